import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import {
    buildPredictRequest,
    exampleElement,
    parseModelMetadata,
    parsePredictRequestFile,
    UnsupportedSignatureError,
} from "../../../ops/predictRequest";
import { SignatureSpec } from "../../../contract/signature";
import { SAVED_MODELS as FIXTURES_DIR } from "../../support/fixtures";

const oracle = JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, "half_plus_two_cpu.metadata.json"), "utf8"));

const sig = (inputs: SignatureSpec["inputs"]): SignatureSpec => ({ method: "tensorflow/serving/predict", inputs, outputs: {} });

describe("parseModelMetadata", () => {
    it("reads TF Serving's own metadata answer for half_plus_two", () => {
        const meta = parseModelMetadata(oracle);
        assert.strictEqual(meta.name, "default");
        assert.strictEqual(meta.version, "123");
        assert.deepStrictEqual(Object.keys(meta.signatures).sort(), [
            "classify_x_to_y", "regress_x2_to_y3", "regress_x_to_y", "regress_x_to_y2", "serving_default",
        ]);
        assert.deepStrictEqual(meta.signatures.serving_default, {
            method: "tensorflow/serving/predict",
            inputs: { x: { dtype: "DT_FLOAT", shape: [-1, 1] } },
            outputs: { y: { dtype: "DT_FLOAT", shape: [-1, 1] } },
        });
    });

    it("reads unknown_rank as a null shape", () => {
        const meta = parseModelMetadata(oracle);
        assert.deepStrictEqual(meta.signatures.classify_x_to_y.inputs.inputs, { dtype: "DT_STRING", shape: null });
    });

    it("reads a tensor without tensor_shape (the proto3 JSON of an unrecorded shape) as unknown, not as a scalar", () => {
        const meta = parseModelMetadata({
            model_spec: { name: "half_plus_three", version: "123" },
            metadata: { signature_def: { signature_def: { serving_default: {
                inputs: { x: { dtype: "DT_FLOAT", name: "x:0" } },
                outputs: { y: { dtype: "DT_FLOAT", tensor_shape: { dim: [], unknown_rank: false }, name: "y:0" } },
                method_name: "tensorflow/serving/predict",
            } } } },
        });
        assert.deepStrictEqual(meta.signatures.serving_default.inputs.x, { dtype: "DT_FLOAT", shape: null });
        assert.deepStrictEqual(meta.signatures.serving_default.outputs.y, { dtype: "DT_FLOAT", shape: [] });
    });

    it("names the missing field of an answer that is not TF Serving's", () => {
        assert.throws(() => parseModelMetadata({ model_spec: {}, metadata: {} }), /metadata\.signature_def is not a JSON object/);
        assert.throws(() => parseModelMetadata([]), /metadata answer is not a JSON object/);
    });
});

describe("exampleElement", () => {
    it("fills floats with 1.0, ints with 1, bools with true and strings with \"\"", () => {
        assert.strictEqual(exampleElement("DT_FLOAT", "x"), 1.0);
        assert.strictEqual(exampleElement("DT_DOUBLE", "x"), 1.0);
        assert.strictEqual(exampleElement("DT_INT64", "x"), 1);
        assert.strictEqual(exampleElement("DT_UINT8", "x"), 1);
        assert.strictEqual(exampleElement("DT_BOOL", "x"), true);
        assert.strictEqual(exampleElement("DT_STRING", "text"), "");
    });

    it("sends base64 for string inputs whose name ends in _bytes, as TF Serving expects", () => {
        assert.deepStrictEqual(exampleElement("DT_STRING", "image_bytes"), { b64: "" });
    });

    it("refuses a dtype with no JSON form", () => {
        assert.throws(() => exampleElement("DT_COMPLEX64", "z"), UnsupportedSignatureError);
        assert.throws(() => exampleElement("DT_RESOURCE", "z"), /input "z" has dtype DT_RESOURCE/);
    });
});

describe("buildPredictRequest", () => {
    it("sends one example of shape [-1, 1] as a row of one value", () => {
        const meta = parseModelMetadata(oracle);
        assert.deepStrictEqual(buildPredictRequest("serving_default", meta.signatures.serving_default), {
            signature_name: "serving_default",
            instances: [[1.0]],
        });
    });

    it("takes unknown dimensions as 1 and keeps known ones", () => {
        const body = buildPredictRequest("s", sig({ image: { dtype: "DT_FLOAT", shape: [-1, 2, -1, 3] } }));
        assert.deepStrictEqual(body.instances, [[[[1, 1, 1]], [[1, 1, 1]]]]);
    });

    it("sends a scalar per example for an input of unknown rank", () => {
        const body = buildPredictRequest("s", sig({ x: { dtype: "DT_FLOAT", shape: null } }));
        assert.deepStrictEqual(body.instances, [1.0]);
    });

    it("sends one object per example when the signature has several inputs", () => {
        const body = buildPredictRequest("s", sig({
            ids: { dtype: "DT_INT64", shape: [-1, 3] },
            mask: { dtype: "DT_BOOL", shape: [-1] },
            text: { dtype: "DT_STRING", shape: null },
        }));
        assert.deepStrictEqual(body.instances, [{ ids: [1, 1, 1], mask: true, text: "" }]);
    });

    it("switches to the columnar format when an input is a known scalar (no batch dimension)", () => {
        const body = buildPredictRequest("s", sig({
            x: { dtype: "DT_FLOAT", shape: [-1, 2] },
            temperature: { dtype: "DT_FLOAT", shape: [] },
            tag: { dtype: "DT_STRING", shape: null },
        }));
        assert.strictEqual(body.instances, undefined);
        assert.deepStrictEqual(body.inputs, { x: [[1, 1]], temperature: 1, tag: [""] });
    });

    it("refuses a signature without inputs", () => {
        assert.throws(() => buildPredictRequest("get_counter", sig({})), /signature "get_counter" has no inputs/);
    });
});

describe("parsePredictRequestFile", () => {
    it("accepts a row or a columnar body", () => {
        assert.deepStrictEqual(parsePredictRequestFile('{"instances": [[1.0]]}', "in.json"), { instances: [[1]] });
        assert.deepStrictEqual(parsePredictRequestFile('{"inputs": {"x": [1]}, "signature_name": "s"}', "in.json"), {
            inputs: { x: [1] }, signature_name: "s",
        });
    });

    it("names the file and the problem", () => {
        assert.throws(() => parsePredictRequestFile("{", "req.json"), /req\.json is not JSON/);
        assert.throws(() => parsePredictRequestFile("[1]", "req.json"), /req\.json must hold a JSON object/);
        assert.throws(() => parsePredictRequestFile('{"x": 1}', "req.json"), /exactly one of "instances".*or "inputs"/);
        assert.throws(() => parsePredictRequestFile('{"instances": [1], "inputs": [1]}', "req.json"), /exactly one of/);
        assert.throws(() => parsePredictRequestFile('{"instances": []}', "req.json"), /must have "instances" as a non-empty list/);
        assert.throws(() => parsePredictRequestFile('{"instances": [1], "signature_name": 3}', "req.json"), /must have "signature_name" as a string/);
    });
});
