import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import * as protobuf from "protobufjs";
import { SignatureSpec } from "../../../contract/signature";
import { servingType } from "../../../model/tfProto";
import { readTfRecords, RECORD_OVERHEAD_BYTES, writeTfRecords } from "../../../model/tfRecord";
import { buildWarmupFile, readWarmupFile, WARMUP_MAX_RECORDS, WarmupError, warmupProblems, WarmupRequest, warmupRequests } from "../../../model/warmup";

/** half_plus_two's predict signature: x and y, DT_FLOAT, [-1, 1]. */
const HALF_PLUS_TWO: SignatureSpec = {
    method: "tensorflow/serving/predict",
    inputs: { x: { dtype: "DT_FLOAT", shape: [-1, 1] } },
    outputs: { y: { dtype: "DT_FLOAT", shape: [-1, 1] } },
};
const SIGNATURES = { serving_default: HALF_PLUS_TWO };
const TENSORFLOW_WRITTEN = path.resolve(__dirname, "../../fixtures/warmup/tensorflow_written_warmup_requests");
const STANDIN_WARMUP = path.resolve(__dirname, "../../../tools/e2e-env/go/tfserving-standin/testdata/half_plus_two_warmup_requests");
const request = (instances: unknown[], extra: Partial<WarmupRequest> = {}): WarmupRequest =>
    ({ body: { instances }, signatureName: "serving_default", signature: HALF_PLUS_TWO, ...extra });

/** A PredictionLog with one field set by its official number (prediction_log.proto), written by hand. */
function logWithField(field: number, body: Uint8Array = new Uint8Array(0)): Uint8Array {
    return protobuf.Writer.create().uint32((field << 3) | 2).bytes(body).finish();
}

describe("warmup", () => {
    describe("buildWarmupFile", () => {
        it("writes one PredictLog per request, with the request's inputs as TensorProtos and the model_spec", () => {
            const file = buildWarmupFile([request([[1.0], [2.0]], { modelName: "m" }), request([[3.0]])]);
            const { records, problem } = readTfRecords(file);
            assert.strictEqual(problem, undefined);
            assert.strictEqual(records.length, 2);
            const log = servingType("tensorflow.serving.PredictionLog");
            const first = log.toObject(log.decode(records[0]), { longs: Number, enums: String }) as {
                predict_log: { request: { model_spec: { name: string; signature_name: string }; inputs: Record<string, { dtype: string; tensor_shape: { dim: { size: number }[] }; float_val: number[] }> } };
            };
            assert.deepStrictEqual(first.predict_log.request.model_spec, { name: "m", signature_name: "serving_default" });
            const x = first.predict_log.request.inputs.x;
            assert.deepStrictEqual([x.dtype, x.tensor_shape.dim.map((d) => d.size), x.float_val], ["DT_FLOAT", [2, 1], [1, 2]]);
        });

        it("fills PredictLog.response where an answer is expected", () => {
            const read = readWarmupFile(buildWarmupFile([request([[1.0]], { expected: { y: [[2.5]] } }), request([[1.0]])]));
            assert.deepStrictEqual(read.records.map((r) => r.predict?.responseOutputs), [["y"], []]);
        });

        it("refuses an expected output the signature lacks, naming the request", () => {
            assert.throws(() => buildWarmupFile([request([[1.0]]), request([[1.0]], { expected: { z: [[1]] } })]),
                (err: Error) => err instanceof WarmupError && /^request 1: expected output "z" is not an output of signature "serving_default" \(its outputs: y\)/.test(err.message));
        });

        it("refuses a body that does not fit the signature, naming the request", () => {
            assert.throws(() => buildWarmupFile([{ ...request([]), body: { instances: [["one"]] } }]), /^WarmupError: request 0: input "x" of signature "serving_default": "one" is not a DT_FLOAT value/);
        });

        it(`refuses more than ${WARMUP_MAX_RECORDS} requests`, () => {
            const many = Array.from({ length: WARMUP_MAX_RECORDS + 1 }, () => request([[1.0]]));
            assert.throws(() => buildWarmupFile(many), /1001 requests, more than the 1000 records TF Serving reads/);
            assert.strictEqual(readWarmupFile(buildWarmupFile(many.slice(1))).records.length, WARMUP_MAX_RECORDS);
        });
    });

    it("writes the bytes the Go stand-in's test replays (tools/e2e-env/go/tfserving-standin/testdata)", () => {
        const file = buildWarmupFile([
            { ...request([[1.0], [2.0]]), modelName: "half_plus_two", expected: { y: [[2.5], [3.0]] } },
            { body: { inputs: { x: [[5.0]] } }, signatureName: "serving_default", signature: HALF_PLUS_TWO, modelName: "half_plus_two" },
        ]);
        assert.ok(file.equals(fs.readFileSync(STANDIN_WARMUP)), "regenerate the testdata file if the encoding changed on purpose");
    });

    it("reads a file TensorFlow wrote, with its kinds and its tensors' dtypes and shapes", () => {
        const file = readWarmupFile(TENSORFLOW_WRITTEN);
        assert.strictEqual(file.framing, undefined);
        assert.deepStrictEqual(file.records.map((r) => r.kind), ["predict_log", "predict_log", "session_run_log", "predict_streamed_log", "classify_log"]);
        assert.deepStrictEqual(file.records[0].predict, { signatureName: "serving_default", inputs: { x: { dtype: "DT_FLOAT", shape: [2, 1] } }, outputFilter: [], responseOutputs: [] });
        assert.deepStrictEqual(warmupProblems(file, SIGNATURES).map((p) => [p.index, /DT_INT64, but the signature expects DT_FLOAT|SessionRunLog|PredictStreamedLog/.test(p.message)]),
            [[1, true], [2, true], [3, true]]);
    });

    describe("warmupProblems", () => {
        it("finds none in a file it built", () => {
            assert.deepStrictEqual(warmupProblems(buildWarmupFile([request([[1.0]]), request([[1.0], [2.0]])]), SIGNATURES), []);
        });

        it("names the record of a flipped byte", () => {
            const file = buildWarmupFile([request([[1.0]]), request([[2.0]]), request([[3.0]])]);
            const second = readTfRecords(file).records[0].length + RECORD_OVERHEAD_BYTES;
            file[second + 14] ^= 0xff;
            const problems = warmupProblems(file, SIGNATURES);
            assert.strictEqual(problems.length, 1);
            assert.strictEqual(problems[0].index, 1);
            assert.match(problems[0].message, new RegExp(`^record 1 \\(byte ${second}\\) has data whose CRC does not match \\(TensorFlow: "corrupted record at ${second + 12}"\\)`));
        });

        it("names a record cut short", () => {
            const file = buildWarmupFile([request([[1.0]]), request([[2.0]])]);
            assert.deepStrictEqual(warmupProblems(file.subarray(0, file.length - 2), SIGNATURES).map((p) => p.index), [1]);
        });

        it("lets a few bytes after the last record pass, which TensorFlow reads as the end, and counts them", () => {
            const file = Buffer.concat([buildWarmupFile([request([[1.0]])]), Buffer.alloc(5)]);
            assert.deepStrictEqual(warmupProblems(file, SIGNATURES), []);
            assert.strictEqual(readWarmupFile(file).trailingBytes, 5);
        });

        it("says TF Serving refuses streamed and session-run logs, and lets classify and regress logs pass", () => {
            // prediction_log.proto: classify_log 2, regress_log 3, multi_inference_log 4, session_run_log 5, predict_streamed_log 7.
            const file = writeTfRecords([2, 3, 4, 5, 7].map((field) => logWithField(field)));
            assert.deepStrictEqual(readWarmupFile(file).records.map((r) => r.kind),
                ["classify_log", "regress_log", "multi_inference_log", "session_run_log", "predict_streamed_log"]);
            const problems = warmupProblems(file, SIGNATURES);
            assert.deepStrictEqual(problems.map((p) => p.index), [3, 4]);
            assert.match(problems[0].message, /record 3 \(byte \d+\) is a SessionRunLog, which TF Serving's warmup does not replay/);
            assert.match(problems[1].message, /record 4 \(byte \d+\) is a PredictStreamedLog/);
        });

        it(`names record ${WARMUP_MAX_RECORDS} of a file with too many`, () => {
            const file = writeTfRecords(Array.from({ length: WARMUP_MAX_RECORDS + 2 }, () => logWithField(2)));
            const problems = warmupProblems(file, SIGNATURES);
            assert.deepStrictEqual(problems.map((p) => p.index), [WARMUP_MAX_RECORDS]);
            assert.match(problems[0].message, /^record 1000: the file holds 1002 records, more than the 1000 records TF Serving reads/);
        });

        it("names a record that is not a PredictionLog", () => {
            const file = writeTfRecords([logWithField(2), Buffer.from([0xff, 0xff, 0xff])]);
            const problems = warmupProblems(file, SIGNATURES);
            assert.deepStrictEqual(problems.map((p) => p.index), [1]);
            assert.match(problems[0].message, /is not a PredictionLog .*Failed to parse warmup record/);
        });

        it("refuses an unknown signature, other input keys and another dtype, and warns of another shape", () => {
            const other: SignatureSpec = { method: "", inputs: { x: { dtype: "DT_STRING", shape: [-1] }, w: { dtype: "DT_FLOAT", shape: null } }, outputs: {} };
            const file = buildWarmupFile([
                { ...request([[1.0]]), signatureName: "classify" },
                { body: { inputs: { x: ["a"], w: 1 } }, signatureName: "serving_default", signature: other },
                request([[1.0, 2.0]]),
                request([1.0]),
                request([[1.0]]),
            ]);
            const problems = warmupProblems(file, SIGNATURES);
            assert.deepStrictEqual(problems.map((p) => [p.index, p.severity]), [[0, "error"], [1, "error"], [1, "error"], [2, "warning"], [3, "warning"]]);
            assert.match(problems[0].message, /^record 0 \(byte 0\): signature "classify" is not in the model \(it has serving_default\)/);
            assert.match(problems[1].message, /^record 1 \(byte \d+\): its inputs \{w, x\} are not signature "serving_default"'s \{x\}: extra w/);
            assert.match(problems[2].message, /input "x" is DT_STRING, but the signature expects DT_FLOAT/);
            assert.match(problems[3].message, /input "x" has shape \[1, 2\], but the signature fixes dimension 1 at 1 \(\[-1, 1\]\): TF Serving does not check shapes, but the graph may fail on it/);
            assert.match(problems[4].message, /input "x" has shape \[1\] \(rank 1\), but the signature says rank 2/);
        });

        it("checks only framing, count and kinds when the signatures are unknown", () => {
            assert.deepStrictEqual(warmupProblems(buildWarmupFile([{ ...request([[1.0]]), signatureName: "nope" }]), null), []);
        });
    });

    describe("warmupRequests", () => {
        it("resolves each body's signature (serving_default when it names none) and keeps the expected answers", () => {
            const { requests, problems } = warmupRequests([
                { name: "a.json", body: { instances: [[1.0]] }, expected: { y: [[2.5]] } },
                { name: "b.json", body: { signature_name: "serving_default", inputs: { x: [[1.0]] } } },
            ], SIGNATURES, "half_plus_two");
            assert.deepStrictEqual(problems, []);
            assert.deepStrictEqual(requests.map((r) => [r.signatureName, r.modelName, r.expected]), [
                ["serving_default", "half_plus_two", { y: [[2.5]] }], ["serving_default", "half_plus_two", undefined],
            ]);
        });

        it("gives one line per problem, each naming its source", () => {
            const { requests, problems, warnings } = warmupRequests([
                { name: "a.json", body: { signature_name: "predict", instances: [[1.0]] } },
                { name: "b.json", body: { instances: [["one"]] } },
                { name: "c.json", body: { instances: [[1.0, 2.0]] } },
                { name: "golden.jsonl:4", body: { instances: [[1.0]] }, expected: { scores: [[1]] } },
            ], SIGNATURES);
            assert.strictEqual(problems.length, 3, problems.join("\n"));
            assert.match(problems[0], /^a\.json: signature "predict" is not in the model \(it has serving_default\)/);
            assert.match(problems[1], /^b\.json: input "x" of signature "serving_default": "one" is not a DT_FLOAT value/);
            assert.match(problems[2], /^golden\.jsonl:4: expected output "scores" is not an output of signature "serving_default"/);
            assert.deepStrictEqual(warnings.map((w) => w.split(":")[0]), ["c.json"], "a shape is a warning: the request is still written");
            assert.deepStrictEqual(requests.map((r) => r.body), [{ instances: [[1.0, 2.0]] }]);
        });

        it(`refuses more than ${WARMUP_MAX_RECORDS} sources`, () => {
            const sources = Array.from({ length: WARMUP_MAX_RECORDS + 1 }, (_, i) => ({ name: `${i}`, body: { instances: [[1.0]] } }));
            assert.match(warmupRequests(sources, SIGNATURES).problems[0], /^1001 requests, more than the 1000 records/);
        });
    });
});
