import * as assert from "assert";
import { sizeServer } from "../../../serving/sizing";
import { imageServerArgs } from "../../../serving/dockerfile";
import { managedFlags, serverArgs, warmupReplays } from "../../../serving/flags";

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

describe("managedFlags", () => {
    it("holds every flag the pod and the image set, so extraServerArgs cannot override one", () => {
        const set = [
            ...flagsOf(serverArgs({ sizing: SIZING, batching: true, enableWarmup: false, extraServerArgs: [] })),
            ...flagsOf(imageServerArgs({ modelName: "m", versions: [1] })),
            ...flagsOf(imageServerArgs({ modelName: "m", versions: [1, 2], versionLabels: { stable: 1 } })),
        ];
        const missing = set.filter((flag) => !managedFlags().has(flag));
        assert.deepStrictEqual(missing, []);
    });

    it("says what controls each flag instead, and refuses the GPU memory fraction the pod's growth setting replaces", () => {
        assert.strictEqual(managedFlags().get("--grpc_max_threads"), "threads follow the CPU limit: set cpu instead");
        assert.strictEqual(managedFlags().get("--port"), "the gRPC port is fixed at 8500 (the Service, probes and NetworkPolicy use it)");
        assert.match(managedFlags().get("--per_process_gpu_memory_fraction") ?? "", /TF_FORCE_GPU_ALLOW_GROWTH=true/);
        assert.strictEqual(managedFlags().get("--rest_api_timeout_in_ms"), undefined);
    });
});

describe("warmupReplays", () => {
    it("replays each record once by default, as TF Serving does without the flag", () => {
        assert.strictEqual(warmupReplays(7, { enableWarmup: true, extraServerArgs: [] }), 7);
    });

    it("multiplies by --num_request_iterations_for_warmup, the last occurrence winning", () => {
        const extraServerArgs = ["--num_request_iterations_for_warmup=2", "--rest_api_timeout_in_ms=5000", "--num_request_iterations_for_warmup=5"];
        assert.strictEqual(warmupReplays(7, { enableWarmup: true, extraServerArgs }), 35);
    });

    it("takes a value of 0 or below as unset (the server passes it on only above 0)", () => {
        assert.strictEqual(warmupReplays(7, { enableWarmup: true, extraServerArgs: ["--num_request_iterations_for_warmup=0"] }), 7);
    });

    it("replays nothing with warmup off", () => {
        assert.strictEqual(warmupReplays(7, { enableWarmup: false, extraServerArgs: ["--num_request_iterations_for_warmup=3"] }), 0);
    });
});
