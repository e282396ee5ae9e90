/**
 * Whether a model's image is pushed, or the registry's copy of its content tag is reused. Going
 * back to a model the registry already holds (a rollback, a version tried and withdrawn) must run
 * the very image that ran before, not a rebuild: builds are not bit-for-bit reproducible, so a
 * second push of the same tag would move it to a new digest, and pods would roll to bytes nobody
 * has run yet. The decision is kept stable for an unchanged model (the same as at its last update,
 * which the stack records), so a no-op previews no change.
 */

/** What the stack recorded for a model's image at its last update. */
export interface ImageBuildRecord {
    /** The content tag (`ctx-...`) the Image was declared with. */
    tag: string;
    /** True when that update pushed it; false when it reused the registry's copy. */
    pushed: boolean;
}

/** What the stack's last update says about a model's image. */
export interface PreviousImage {
    /** Its record; absent for a stack last updated by a version of this program that kept none. */
    record?: ImageBuildRecord;
    /** The digest its pods ran (`sha256:...`), from the stack's `models` output. */
    deployedDigest?: string;
    /**
     * What the Image resource holds in the stack's latest checkpoint (its tag, whether it pushed). It
     * differs from `record` after an update that built a new version and then failed (a canary rolled
     * back): the outputs, written only by an update that succeeded, still name the version that serves.
     */
    checkpoint?: ImageBuildRecord;
}

/**
 * `tag`: the model's content tag now; `previous`: what the last update left, if any; `heldDigest`:
 * the digest the registry holds for `tag` before anything is built (undefined: none, or not known).
 */
export function pushDecision(tag: string, previous: PreviousImage | undefined, heldDigest: string | undefined): ImageBuildRecord {
    const record = previous?.record;
    const checkpoint = previous?.checkpoint;
    // Back to the version the pods run, after an update that built another one and failed: the Image
    // changes whatever is declared, and the registry's copy of this tag is what serves. Pushing it again
    // would move the tag to a new build (a new digest, a new rollout, a canary of the same model).
    if (checkpoint !== undefined && checkpoint.tag !== tag && heldDigest !== undefined && heldDigest === previous?.deployedDigest) {
        return { tag, pushed: false };
    }
    // Unchanged: the decision the Image holds (a reused tag the registry has since lost is pushed again).
    const kept = checkpoint ?? record;
    if (kept?.tag === tag && (kept.pushed || heldDigest !== undefined)) {
        return kept;
    }
    // Deployed before records were kept, and unchanged: that image was pushed.
    if (record === undefined && heldDigest !== undefined && previous?.deployedDigest === heldDigest) {
        return { tag, pushed: true };
    }
    return { tag, pushed: heldDigest === undefined };
}
