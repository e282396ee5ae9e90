/**
 * A facade `ModelImage` reads what its last update pushed from the stack's checkpoint
 * (facade/previousImage.ts), so an unchanged model keeps its push decision (serving/pushDecision.ts)
 * and a second `pulumi preview` shows no change: a YAML program has no records to pass it.
 */
import * as assert from "assert";
import { facadePreviousImage, urnEndsWith } from "../../../facade/previousImage";
import { pushDecision } from "../../../serving/pushDecision";
import type { CheckpointResource } from "../../../stacks/previousOutputs";

const DIGEST = `sha256:${"ab".repeat(32)}`;
const TAG = "ctx-0123456789ab";
const PREFIX = "urn:pulumi:dev::serve-half-plus-two::";
const IMAGE_URN = `${PREFIX}tf-serving:index:ModelImage$tf-serving:index:ModelImage$docker:index/image:Image::image`;

/** The checkpoint a first `pulumi up` of the documented YAML program leaves (the parts read here). */
function firstUpdate(skipPush?: boolean): Record<string, CheckpointResource> {
    return {
        [`${PREFIX}pulumi:pulumi:Stack::serve-half-plus-two-dev`]: { type: "pulumi:pulumi:Stack", outputs: {} },
        [`${PREFIX}tf-serving:index:ModelImage::image`]: { type: "tf-serving:index:ModelImage", outputs: { imageRef: `127.0.0.1:5001/m@${DIGEST}` } },
        [`${PREFIX}tf-serving:index:ModelImage$tf-serving:index:ModelImage::image`]: { type: "tf-serving:index:ModelImage", outputs: { imageRef: `127.0.0.1:5001/m@${DIGEST}` } },
        [IMAGE_URN]: { type: "docker:index/image:Image", outputs: { imageName: `127.0.0.1:5001/m:${TAG}`, ...(skipPush === undefined ? {} : { skipPush }) } },
        // Another component's Image of the same name is not this one's.
        [`${PREFIX}other:index:Thing$docker:index/image:Image::image`]: { type: "docker:index/image:Image", outputs: { imageName: "x/y:other", skipPush: true } },
    };
}

describe("a facade ModelImage's previous image", () => {
    it("is what its Image holds in the checkpoint: the tag it was declared with, and that it pushed", () => {
        assert.deepStrictEqual(facadePreviousImage(firstUpdate(), "image"), { checkpoint: { tag: TAG, pushed: true }, deployedDigest: DIGEST });
        assert.deepStrictEqual(facadePreviousImage(firstUpdate(true), "image")?.checkpoint, { tag: TAG, pushed: false });
    });

    it("keeps the first update's push at the next run, when the registry now holds the tag (no diff on skipPush)", () => {
        const first = pushDecision(TAG, undefined, undefined);
        assert.deepStrictEqual(first, { tag: TAG, pushed: true });
        // Without what the last update left, the tag now found in the registry reads as "reuse it":
        // the Image's skipPush would change from absent to true, a diff on every later preview.
        assert.deepStrictEqual(pushDecision(TAG, undefined, DIGEST), { tag: TAG, pushed: false });
        assert.deepStrictEqual(pushDecision(TAG, facadePreviousImage(firstUpdate(), "image"), DIGEST), first);
    });

    it("is none before the first update, or for another name", () => {
        assert.strictEqual(facadePreviousImage({}, "image"), undefined);
        assert.strictEqual(facadePreviousImage(firstUpdate(), "server"), undefined);
    });

    it("finds the component under a parent of the program's own", () => {
        assert.ok(urnEndsWith(`${PREFIX}my:index:App$tf-serving:index:ModelImage$tf-serving:index:ModelImage$docker:index/image:Image::image`,
            ["tf-serving:index:ModelImage", "tf-serving:index:ModelImage", "docker:index/image:Image"], "image"));
        assert.ok(!urnEndsWith(IMAGE_URN, ["tf-serving:index:ModelImage", "tf-serving:index:ModelImage", "docker:index/image:Image"], "images"));
        assert.ok(!urnEndsWith(`${PREFIX}tf-serving:index:ModelImage$docker:index/image:Image::image`,
            ["tf-serving:index:ModelImage", "tf-serving:index:ModelImage", "docker:index/image:Image"], "image"));
    });
});
