import * as assert from "assert";
import { pushDecision } from "../../../serving/pushDecision";

describe("pushDecision", () => {
    const TAG = "ctx-00000000000000aa";
    const OTHER = "ctx-00000000000000bb";
    const HELD = `sha256:${"c".repeat(64)}`;

    it("a first deployment of a tag the registry does not hold: pushed", () => {
        assert.deepStrictEqual(pushDecision(TAG, undefined, undefined), { tag: TAG, pushed: true });
    });

    it("a tag the registry holds already (another stack pushed it, or an earlier model): reused", () => {
        assert.deepStrictEqual(pushDecision(TAG, undefined, HELD), { tag: TAG, pushed: false });
        assert.deepStrictEqual(pushDecision(TAG, { record: { tag: OTHER, pushed: true } }, HELD), { tag: TAG, pushed: false });
    });

    it("an unchanged tag keeps the decision it had, whatever the registry says now", () => {
        assert.deepStrictEqual(pushDecision(TAG, { record: { tag: TAG, pushed: true } }, HELD), { tag: TAG, pushed: true });
        assert.deepStrictEqual(pushDecision(TAG, { record: { tag: TAG, pushed: false } }, HELD), { tag: TAG, pushed: false });
    });

    it("a reused tag the registry has lost since (a cleanup policy) is pushed again", () => {
        assert.deepStrictEqual(pushDecision(TAG, { record: { tag: TAG, pushed: false } }, undefined), { tag: TAG, pushed: true });
    });

    it("no record, but the pods run the digest the registry holds for the tag: deployed before records were kept, pushed", () => {
        assert.deepStrictEqual(pushDecision(TAG, { deployedDigest: HELD }, HELD), { tag: TAG, pushed: true });
        assert.deepStrictEqual(pushDecision(TAG, { deployedDigest: `sha256:${"d".repeat(64)}` }, HELD), { tag: TAG, pushed: false });
    });

    it("back to the serving version after an update that built another and failed (a canary rolled back): the registry's copy, not a rebuild", () => {
        // The outputs still name the serving version (TAG, pushed); the checkpoint's Image holds the failed build (OTHER).
        const failed = { record: { tag: TAG, pushed: true }, deployedDigest: HELD, checkpoint: { tag: OTHER, pushed: true } };
        assert.deepStrictEqual(pushDecision(TAG, failed, HELD), { tag: TAG, pushed: false });
        // The registry's copy is not what the pods run: still the registry's copy, as for any tag the Image does not hold.
        assert.deepStrictEqual(pushDecision(TAG, { ...failed, deployedDigest: `sha256:${"d".repeat(64)}` }, HELD), { tag: TAG, pushed: false });
        // The registry has lost it: pushed.
        assert.deepStrictEqual(pushDecision(TAG, failed, undefined), { tag: TAG, pushed: true });
        // The checkpoint agrees with the outputs (no failed update): the decision is kept, so a no-op stays one.
        assert.deepStrictEqual(pushDecision(TAG, { ...failed, checkpoint: { tag: TAG, pushed: true } }, HELD), { tag: TAG, pushed: true });
        // The failed version declared again: the Image keeps what it holds (the same build runs the canary again).
        assert.deepStrictEqual(pushDecision(OTHER, failed, `sha256:${"e".repeat(64)}`), { tag: OTHER, pushed: true });
    });

    it("the checkpoint's decision wins over the outputs' record when they differ for the same tag", () => {
        assert.deepStrictEqual(pushDecision(TAG, { record: { tag: TAG, pushed: true }, checkpoint: { tag: TAG, pushed: false } }, HELD), { tag: TAG, pushed: false });
        assert.deepStrictEqual(pushDecision(TAG, { record: { tag: TAG, pushed: false }, checkpoint: { tag: TAG, pushed: false } }, undefined), { tag: TAG, pushed: true });
    });
});
