import * as assert from "assert";
import { TF_SERVING_VERSION } from "../../../serving/images";
import {
    PINNED_TENSORFLOW, baseImageServingVersion, formatLine, isNewerLine, parseTensorflowVersion, servingTensorflow,
} from "../../../serving/tensorflowVersion";

describe("serving/tensorflowVersion", () => {
    it("reads the version strings TensorFlow writes into meta_info_def.tensorflow_version", () => {
        // The fixtures' own values (test/fixtures/saved_models): 1.14.0, 2.14.0, 1.0.0-rc2, 1.1.0-rc2.
        for (const [text, line] of [["1.14.0", "1.14"], ["2.14.0", "2.14"], ["1.0.0-rc2", "1.0"], ["2.21.0-rc1", "2.21"],
            ["2.21.0-dev20260105", "2.21"], ["2.20.1", "2.20"], ["10.2.3", "10.2"]] as const) {
            const parsed = parseTensorflowVersion(text);
            assert.ok(parsed, text);
            assert.strictEqual(formatLine(parsed), line, text);
        }
        for (const text of ["", "unknown", "v1.0.0-rc1-102-g1536a84-dirty", "2.20", "two"]) {
            assert.strictEqual(parseTensorflowVersion(text), undefined, text);
        }
    });

    it("compares release lines, not patches", () => {
        const v = (text: string) => parseTensorflowVersion(text)!;
        assert.strictEqual(isNewerLine(v("2.21.0"), v("2.20.0")), true);
        assert.strictEqual(isNewerLine(v("3.0.0"), v("2.20.0")), true);
        assert.strictEqual(isNewerLine(v("2.20.1"), v("2.20.0")), false);
        assert.strictEqual(isNewerLine(v("2.19.1"), v("2.20.0")), false);
        assert.strictEqual(isNewerLine(v("1.99.0"), v("2.20.0")), false);
        assert.strictEqual(isNewerLine(v("2.100.0"), v("2.20.0")), true, "numbers, not strings");
    });

    it("maps TF Serving 2.21.0, the pinned release, to TensorFlow 2.21 (its client tensorflow-serving-api 2.21.0 requires tensorflow >= 2.21.0)", () => {
        assert.strictEqual(TF_SERVING_VERSION, "2.21.0");
        assert.strictEqual(formatLine(PINNED_TENSORFLOW), "2.21");
        assert.strictEqual(formatLine(servingTensorflow("2.20.0")!), "2.20");
        assert.strictEqual(formatLine(servingTensorflow("2.19.1")!), "2.19");
    });

    it("reads the TF Serving release from a base image's tag, and nothing from a tag that names none", () => {
        const digest = `sha256:${"a1".repeat(32)}`;
        for (const [image, version] of [
            ["tensorflow/serving:2.20.0", "2.20.0"], ["tensorflow/serving:2.20.0-gpu", "2.20.0"],
            ["registry.example:5000/team/serving:2.19.1", "2.19.1"], [`tensorflow/serving:2.20.0-gpu@${digest}`, "2.20.0"],
            ["tensorflow/serving:2.21.0-rc0", "2.21.0"],
        ] as const) {
            assert.strictEqual(baseImageServingVersion(image), version, image);
        }
        for (const image of ["tensorflow/serving", "tensorflow/serving:latest", "tensorflow/serving:latest-gpu", "registry.example:5000/serving",
            `tensorflow/serving@${digest}`, "mirror.example/serving:prod", "mirror.example/serving:2.20"]) {
            assert.strictEqual(baseImageServingVersion(image), undefined, image);
        }
    });
});
