import * as assert from "assert";
import { defaultBaseImage, imageReferenceProblem, TF_SERVING_VERSION } from "../../../serving/images";

describe("serving/images", () => {
    describe("defaultBaseImage", () => {
        it("pins a tensorflow/serving release, with the -gpu variant for GPUs", () => {
            assert.match(TF_SERVING_VERSION, /^\d+\.\d+\.\d+$/);
            assert.strictEqual(defaultBaseImage(false), `tensorflow/serving:${TF_SERVING_VERSION}`);
            assert.strictEqual(defaultBaseImage(true), `tensorflow/serving:${TF_SERVING_VERSION}-gpu`);
        });
    });

    describe("imageReferenceProblem", () => {
        const digest = `sha256:${"a1".repeat(32)}`;

        it("accepts names with registries, ports, nested paths, tags and digests", () => {
            for (const ref of [
                "tensorflow/serving:2.20.0",
                defaultBaseImage(true),
                "scratch",
                "registry.example:5000/team/serving:2.20.0",
                "127.0.0.1:5001/half-plus-two",
                "localhost/my_org/tf-serving__custom:v1.2_rc-3",
                `tensorflow/serving@${digest}`,
                `registry.example/team/serving:2.20.0@${digest}`,
                "[::1]:5000/serving:1",
            ]) {
                assert.strictEqual(imageReferenceProblem(ref), undefined, ref);
            }
        });

        it("names what is wrong with a malformed reference", () => {
            const cases: [string, RegExp][] = [
                ["", /empty/],
                [" tensorflow/serving", /surrounding spaces/],
                ["tensorflow/Serving:2.20.0", /not a valid image name/],
                ["tensorflow//serving", /not a valid image name/],
                ["tensorflow/serving-:1", /not a valid image name/],
                ["tensorflow/serving:", /invalid tag ""/],
                ["tensorflow/serving:-gpu", /invalid tag "-gpu"/],
                ["tensorflow/serving:bad tag", /invalid tag/],
                [`tensorflow/serving:${"x".repeat(129)}`, /invalid tag/],
                ["tensorflow/serving@sha256:abc", /malformed digest/],
                [`${"a".repeat(256)}:1`, /longer than 255/],
            ];
            for (const [ref, expected] of cases) {
                const problem = imageReferenceProblem(ref);
                assert.ok(problem, `"${ref}" should be refused`);
                assert.match(problem, expected, ref);
            }
        });
    });
});
