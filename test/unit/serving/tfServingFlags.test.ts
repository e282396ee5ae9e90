import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { managedFlags } from "../../../serving/flags";
import { TF_SERVING_FLAGS, tfServingFlagProblem } from "../../../serving/tfServingFlags";

const STANDIN_FLAGS = path.resolve(__dirname, "../../../tools/e2e-env/go/tfserving-standin/flags.go");

describe("TF_SERVING_FLAGS", () => {
    it("is the list the e2e stand-in server declares, with the same types", () => {
        const kinds: Record<string, string> = { kindBool: "bool", kindInt32: "int32", kindInt64: "int64", kindFloat: "float", kindString: "string" };
        const declared = Object.fromEntries([...fs.readFileSync(STANDIN_FLAGS, "utf8").matchAll(/^\s*\{"([a-z0-9_]+)", (kind[A-Za-z0-9]+),/gm)]
            .map(([, name, kind]) => [name, kinds[kind]]));
        assert.ok(Object.keys(declared).length > 40, "the stand-in's flag table was not found");
        assert.deepStrictEqual(TF_SERVING_FLAGS, declared);
    });

    it("holds every flag the program manages", () => {
        for (const flag of managedFlags().keys()) {
            assert.ok(flag.slice(2) in TF_SERVING_FLAGS, flag);
        }
    });
});

describe("tfServingFlagProblem", () => {
    it("accepts flags as TensorFlow's parser reads them", () => {
        for (const ok of ["--rest_api_timeout_in_ms=5000", "--enable_batching", "--enable_batching=false", "--flush_filesystem_caches=0",
            "--per_process_gpu_memory_fraction=0.5", "--load_retry_interval_micros=-1", "--grpc_channel_arguments=grpc.max_connection_age_ms=2000",
            "--model_config_file_poll_wait_seconds=60", "--saved_model_tags="]) {
            assert.strictEqual(tfServingFlagProblem(ok), undefined, ok);
        }
    });

    it("refuses an unknown flag, with the nearest real one", () => {
        assert.match(tfServingFlagProblem("--enable_batchin=true")!, /--enable_batchin is not a tensorflow_model_server flag \(did you mean --enable_batching\?\): TF Serving ignores/);
        assert.doesNotMatch(tfServingFlagProblem("--frobnicate=1")!, /did you mean/);
    });

    it("refuses a value the flag's type cannot hold, saying the pods would crash-loop", () => {
        assert.match(tfServingFlagProblem("--rest_api_timeout_in_ms=30s")!, /takes a whole number \(32-bit\).*not "30s".*crash-loop/);
        assert.match(tfServingFlagProblem("--rest_api_timeout_in_ms=2147483648")!, /32-bit/);
        assert.strictEqual(tfServingFlagProblem("--load_retry_interval_micros=2147483648"), undefined);
        assert.match(tfServingFlagProblem("--enable_profiler=yes")!, /takes true or false, not "yes"/);
        assert.match(tfServingFlagProblem("--per_process_gpu_memory_fraction=half")!, /takes a number/);
        assert.match(tfServingFlagProblem("--grpc_max_threads")!, /needs a value \(--grpc_max_threads=VALUE\)/);
    });

    it("refuses what is not a flag", () => {
        for (const bad of ["enable_batching", "-enable_batching", "--", "--=1"]) {
            assert.match(tfServingFlagProblem(bad)!, /--name=value/, bad);
        }
    });
});
