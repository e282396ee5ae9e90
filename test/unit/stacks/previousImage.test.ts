import * as assert from "assert";
import { previousImage } from "../../../stacks/stateRecords";
import { readCheckpoint } from "../../../stacks/previousOutputs";

describe("what the last update left of a model's image", () => {
    const DIGEST = `sha256:${"a".repeat(64)}`;
    const builds = { m: { tag: "ctx-0000000000000001", pushed: true } };
    const models = { m: { imageRef: `localhost:5001/tfs/m@${DIGEST}` } };
    const imageUrn = (model: string) => `urn:pulumi:dev::tf-serving::tf-serving:index:ModelImage$docker:index/image:Image::${model}`;

    it("reads the checkpoint's Image of the model by its URN: its tag, with a registry port, and whether it pushed", () => {
        const checkpoint = readCheckpoint({
            name: "organization/tf-serving/dev",
            outputs: {
                [imageUrn("m")]: { type: "docker:index/image:Image", outputs: { imageName: "localhost:5001/tfs/m:ctx-0000000000000002", skipPush: true } },
                [imageUrn("other")]: { type: "docker:index/image:Image", outputs: { imageName: "localhost:5001/tfs/other:ctx-0000000000000003" } },
                "urn:pulumi:dev::tf-serving::pulumi:pulumi:Stack::tf-serving-dev": { type: "pulumi:pulumi:Stack", outputs: {} },
            },
        }).resources;
        assert.deepStrictEqual(previousImage(builds, models, checkpoint, "m"), {
            record: builds.m, deployedDigest: DIGEST, checkpoint: { tag: "ctx-0000000000000002", pushed: false },
        });
        assert.deepStrictEqual(previousImage({}, { other: {} }, checkpoint, "other")?.checkpoint, undefined, "no record and no digest: a first deployment");
    });

    it("a checkpoint without the model's Image, or an Image name without a tag: no checkpoint record", () => {
        assert.strictEqual(previousImage(builds, models, {}, "m")?.checkpoint, undefined);
        const untagged = readCheckpoint({ outputs: { [imageUrn("m")]: { type: "docker:index/image:Image", outputs: { imageName: "localhost:5001/tfs/m" } } } }).resources;
        assert.strictEqual(previousImage(builds, models, untagged, "m")?.checkpoint, undefined);
    });

    it("reads any answer of the engine without failing: what is not a resource is left out", () => {
        for (const answer of [undefined, null, {}, { outputs: null }, { outputs: "x" }]) {
            assert.deepStrictEqual(readCheckpoint(answer), { stackOutputs: {}, resources: {} }, JSON.stringify(answer));
        }
        assert.deepStrictEqual(Object.keys(readCheckpoint({ outputs: { a: { type: "t", outputs: {} }, b: { type: 1, outputs: {} }, c: { type: "t" }, d: null } }).resources), ["a"]);
    });

    it("the stack's own outputs are its root resource's, the values a StackReference to itself reads", () => {
        const outputs = { imageBuilds: builds, models, clusterName: "tfs" };
        const checkpoint = readCheckpoint({
            outputs: {
                [imageUrn("m")]: { type: "docker:index/image:Image", outputs: { imageName: "localhost:5001/tfs/m:ctx-0000000000000002" } },
                "urn:pulumi:dev::tf-serving::pulumi:pulumi:Stack::tf-serving-dev": { type: "pulumi:pulumi:Stack", outputs },
            },
        });
        assert.deepStrictEqual(checkpoint.stackOutputs, outputs);
        assert.deepStrictEqual(readCheckpoint({ outputs: { [imageUrn("m")]: { type: "docker:index/image:Image", outputs: {} } } }).stackOutputs, {},
            "no root resource (a stack never updated): no outputs");
    });
});
