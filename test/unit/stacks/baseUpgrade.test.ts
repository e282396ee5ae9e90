/**
 * What moving the pinned TF Serving release (serving/images.ts) does to a running stack: a stack deployed on the
 * previous default, 2.20.0, previewed on the new one. Only the model image (a new base, so a new build and
 * digest) and the pods that run it may change; every other resource keeps its inputs.
 */
/* eslint-disable @typescript-eslint/no-explicit-any */
import * as assert from "assert";
import { TF_SERVING_VERSION } from "../../../serving/images";
import { exampleConfig, runCloudStack } from "../../support/cloudMocks";

const IP = { ip: "203.0.113.10" };
const PREVIOUS = "tensorflow/serving:2.20.0";

describe("a running stack after the TF Serving base moves (under mocks)", () => {
    it("changes the model image and the Deployment's pod template, nothing else", async function () {
        this.timeout(60_000); // two whole stacks composed under mocks
        assert.notStrictEqual(TF_SERVING_VERSION, "2.20.0");
        const before = await runCloudStack(exampleConfig("gcp-example", undefined, { "tf-serving:baseImage": PREVIOUS }), IP);
        const after = await runCloudStack(exampleConfig("gcp-example"), IP, undefined, before.outputs);
        const key = (r: { type: string; name: string }) => `${r.type}::${r.name}`;
        const was = new Map(before.recorder.resources.map((r) => [key(r), JSON.stringify(r.inputs)]));
        const now = new Map(after.recorder.resources.map((r) => [key(r), JSON.stringify(r.inputs)]));
        assert.deepStrictEqual([...now.keys()].sort(), [...was.keys()].sort(), "the same resources");
        const changed = [...now.entries()].filter(([k, inputs]) => was.get(k) !== inputs).map(([k]) => k).sort();
        assert.deepStrictEqual(changed, ["docker:index/image:Image::half-plus-two", "kubernetes:apps/v1:Deployment::half-plus-two"]);

        assert.match(before.dockerfiles["half-plus-two"], /^FROM tensorflow\/serving:2\.20\.0$/m);
        assert.match(after.dockerfiles["half-plus-two"], new RegExp(`^FROM tensorflow/serving:${TF_SERVING_VERSION.replace(/\./g, "\\.")}$`, "m"));
        // The Deployment differs only in its containers' image: the pods roll onto the new build, nothing else moves.
        const deployment = (run: typeof before) => run.recorder.one("kubernetes:apps/v1:Deployment", "half-plus-two").inputs as any;
        const images = (d: any) => d.spec.template.spec.containers.map((c: any) => c.image);
        const withoutImages = (d: any) => JSON.stringify(d, (k, v) => (k === "image" ? undefined : v));
        assert.notDeepStrictEqual(images(deployment(after)), images(deployment(before)));
        assert.strictEqual(withoutImages(deployment(after)), withoutImages(deployment(before)));
    });
});
