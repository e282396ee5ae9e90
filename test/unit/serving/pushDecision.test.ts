import * as assert from "assert";
import { pushDecision, readBuildRecord } from "../../../serving/pushDecision";

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

    it("reads a record back from a stack output, and nothing else", () => {
        assert.deepStrictEqual(readBuildRecord({ tag: TAG, pushed: false }), { tag: TAG, pushed: false });
        for (const bad of [undefined, null, "x", { tag: TAG }, { tag: 1, pushed: true }, { tag: TAG, pushed: "yes" }]) {
            assert.strictEqual(readBuildRecord(bad), undefined, JSON.stringify(bad));
        }
    });
});
