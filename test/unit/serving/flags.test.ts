import * as assert from "assert";
import { sizeServer } from "../../../model/sizing";
import { imageServerArgs } from "../../../serving/dockerfile";
import { MANAGED_FLAGS, serverArgs } from "../../../serving/flags";

const SIZING = sizeServer({ servedVersionBytes: [300 * 2 ** 20], gpu: false, batching: true, overrides: { cpu: "2" } });
const flagsOf = (args: string[]) => args.map((a) => a.split("=")[0]);

describe("serverArgs", () => {
    it("passes --enable_model_warmup=false when warmup is off (TF Serving's default is true)", () => {
        const args = serverArgs({ sizing: SIZING, batching: false, enableWarmup: false, extraServerArgs: [] });
        assert.ok(args.includes("--enable_model_warmup=false"), args.join(" "));
        assert.ok(!args.includes("--enable_model_warmup=true"));
    });

    it("says --enable_model_warmup=true when warmup is on", () => {
        const args = serverArgs({ sizing: SIZING, batching: false, enableWarmup: true, extraServerArgs: [] });
        assert.deepStrictEqual(args.filter((a) => a.startsWith("--enable_model_warmup")), ["--enable_model_warmup=true"]);
    });

    it("appends the user's flags after the managed ones", () => {
        const args = serverArgs({ sizing: SIZING, batching: false, enableWarmup: true, extraServerArgs: ["--rest_api_timeout_in_ms=5000"] });
        assert.strictEqual(args[args.length - 1], "--rest_api_timeout_in_ms=5000");
    });
});

describe("MANAGED_FLAGS", () => {
    it("lists every flag the pod and the image set, so extraServerArgs cannot override one", () => {
        const set = [
            ...flagsOf(serverArgs({ sizing: SIZING, batching: true, enableWarmup: false, extraServerArgs: [] })),
            ...flagsOf(imageServerArgs({ modelName: "m", versions: [1] })),
            ...flagsOf(imageServerArgs({ modelName: "m", versions: [1, 2] })),
        ];
        const missing = set.filter((flag) => !Object.hasOwn(MANAGED_FLAGS, flag));
        assert.deepStrictEqual(missing, []);
    });
});
