/**
 * The tag a model image is pushed under: `ctx-` and the first 16 hex digits of the staged build
 * context's digest. It names the content (the same model, Dockerfile and base give the same tag on
 * every machine) but not the bytes of one build: image builds are not bit-for-bit reproducible
 * (config timestamps), so two pushes of one tag may carry different image digests. Pods never run
 * a tag: they run the digest the registry reports for it. Registries that refuse to move a tag
 * therefore exempt these tags (see `CONTENT_TAG_WILDCARD` and docs/concepts/model-image.md#tags-and-immutability).
 */
const PREFIX = "ctx-";
const DIGEST_CHARS = 16;

/** The image tag for a build context digest (64 lowercase hex digits, as `contextDigest` returns). */
export function contentTag(contextDigest: string): string {
    if (!/^[0-9a-f]{64}$/.test(contextDigest)) {
        throw new Error(`a build context digest is 64 lowercase hex digits, got "${contextDigest}"`);
    }
    return `${PREFIX}${contextDigest.slice(0, DIGEST_CHARS)}`;
}

/** True for a tag `contentTag` makes. */
export function isContentTag(tag: string): boolean {
    return new RegExp(`^${PREFIX}[0-9a-f]{${DIGEST_CHARS}}$`).test(tag);
}

/** A registry wildcard (ECR's tag mutability exclusion filter syntax) matching every content tag. */
export const CONTENT_TAG_WILDCARD = `${PREFIX}*`;
