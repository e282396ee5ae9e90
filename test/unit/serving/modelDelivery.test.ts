import * as assert from "assert";
import { MODEL_DELIVERIES, artifactConfigPath, artifactMountPath, modelDeliveryProblem, servedRelease } from "../../../serving/modelDelivery";

describe("model delivery", () => {
    it("is embedded or imageVolume; anything else is refused with both values and the page that explains them", () => {
        assert.deepStrictEqual([...MODEL_DELIVERIES], ["embedded", "imageVolume"]);
        assert.strictEqual(modelDeliveryProblem("embedded"), undefined);
        assert.strictEqual(modelDeliveryProblem("imageVolume"), undefined);
        for (const bad of ["imagevolume", "volume", "", 1, undefined]) {
            assert.strictEqual(modelDeliveryProblem(bad), 'must be one of "embedded", "imageVolume" (see docs/concepts/model-image.md#two-ways-to-deliver-the-model)', String(bad));
        }
    });

    it("mounts the artifact at the model's base path, its root, with the model config file at the root", () => {
        assert.strictEqual(artifactMountPath("half-plus-two"), "/models/half-plus-two");
        assert.strictEqual(artifactConfigPath("half-plus-two"), "/models/half-plus-two/models.config");
    });

    it("names what a pod runs for the canary's comparison: the image alone when embedded, the image with the artifact otherwise", () => {
        assert.strictEqual(servedRelease({ containers: [{ image: "r/m@sha256:1" }], volumes: [{ name: "tmp" }] }), "r/m@sha256:1");
        const volume = (reference: string) => ({ containers: [{ image: "tensorflow/serving@sha256:b" }], volumes: [{ name: "tmp" }, { name: "model", image: { reference } }] });
        assert.strictEqual(servedRelease(volume("r/m@sha256:a1")), "tensorflow/serving@sha256:b with model r/m@sha256:a1");
        assert.notStrictEqual(servedRelease(volume("r/m@sha256:a1")), servedRelease(volume("r/m@sha256:a2")), "a new model is a new release");
        assert.strictEqual(servedRelease({ containers: [] }), undefined);
    });
});
