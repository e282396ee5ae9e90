import * as assert from "assert";
import { servingType } from "../../../model/tfProto";
import { grpcAuthorityFromStackOutputs, grpcEndpointFromStackOutputs } from "../../../ops/grpcSmoke";
import { channelOptions } from "../../../ops/grpcTransport";
import { UnsupportedSignatureError } from "../../../ops/predictRequest";
import { predictInputs, serviceDefinition, tensorFromJson, tensorToJson, versionStatuses } from "../../../ops/tfServingGrpc";

describe("TF Serving's gRPC API (definitions and tensor conversions)", () => {
    it("names the methods by TF Serving's paths", () => {
        assert.deepStrictEqual(Object.values(serviceDefinition("PredictionService")).map((m) => m.path),
            ["/tensorflow.serving.PredictionService/Predict", "/tensorflow.serving.PredictionService/GetModelMetadata"]);
        assert.deepStrictEqual(Object.values(serviceDefinition("ModelService")).map((m) => m.path), ["/tensorflow.serving.ModelService/GetModelStatus"]);
    });

    it("writes a PredictRequest with tensor.proto's and predict.proto's field numbers", () => {
        const predict = serviceDefinition("PredictionService").Predict;
        const bytes = predict.requestSerialize({
            model_spec: { name: "m", version_label: "canary", signature_name: "s" },
            inputs: { x: tensorFromJson([[1.5]], "DT_FLOAT", "x") },
        });
        // model_spec (1) {name 1, signature_name 3, version_label 4}; inputs (2) {key 1, value 2 {dtype 1, tensor_shape 2, float_val 5 packed}}
        const spec = Buffer.from([0x0a, 0x01, 0x6d, 0x1a, 0x01, 0x73, 0x22, 0x06, ...Buffer.from("canary")]);
        const tensor = Buffer.from([0x08, 0x01, 0x12, 0x08, 0x12, 0x02, 0x08, 0x01, 0x12, 0x02, 0x08, 0x01, 0x2a, 0x04, 0x00, 0x00, 0xc0, 0x3f]);
        const entry = Buffer.concat([Buffer.from([0x0a, 0x01, 0x78, 0x12, tensor.length]), tensor]);
        const want = Buffer.concat([Buffer.from([0x0a, spec.length]), spec, Buffer.from([0x12, entry.length]), entry]);
        assert.strictEqual(Buffer.from(bytes).toString("hex"), want.toString("hex"));
    });

    it("reads GetModelStatus's states and codes by name, an absent code as OK", () => {
        const response = servingType("tensorflow.serving.GetModelStatusResponse");
        const bytes = response.encode(response.fromObject({
            model_version_status: [{ version: 2, state: "LOADING", status: {} }, { version: 1, state: "END", status: { error_code: "NOT_FOUND", error_message: "gone" } }],
        })).finish();
        const decoded = serviceDefinition("ModelService").GetModelStatus.responseDeserialize(Buffer.from(bytes));
        assert.deepStrictEqual(versionStatuses(decoded as Parameters<typeof versionStatuses>[0]), [
            { version: "2", state: "LOADING", errorCode: "OK", errorMessage: "" },
            { version: "1", state: "END", errorCode: "NOT_FOUND", errorMessage: "gone" },
        ]);
    });

    it("makes tensors from JSON values: shape from the nesting, strings and b64 as bytes", () => {
        assert.deepStrictEqual(tensorFromJson([[1, 2], [3, 4]], "DT_INT64", "x"), { dtype: "DT_INT64", tensor_shape: { dim: [{ size: 2 }, { size: 2 }] }, int64_val: [1, 2, 3, 4] });
        assert.deepStrictEqual(tensorFromJson(5, "DT_DOUBLE", "x"), { dtype: "DT_DOUBLE", tensor_shape: { dim: [] }, double_val: [5] });
        assert.deepStrictEqual(tensorFromJson(["a", { b64: "AAE=" }], "DT_STRING", "x").string_val, [Buffer.from("a"), Buffer.from([0, 1])]);
        assert.throws(() => tensorFromJson([[1, 2], [3]], "DT_FLOAT", "input \"x\""), /input "x" is not a dense list/);
        assert.throws(() => tensorFromJson(["1"], "DT_FLOAT", "input \"x\""), /input "x": "1" is not a DT_FLOAT value/);
        assert.throws(() => tensorFromJson([1], "DT_HALF", "input \"x\""), UnsupportedSignatureError);
    });

    it("reads answer tensors into JSON: typed fields, tensor_content, the last value repeated to fill the shape", () => {
        assert.deepStrictEqual(tensorToJson({ dtype: "DT_FLOAT", tensor_shape: { dim: [{ size: "2" }, { size: "1" }] }, float_val: [2.5, 3] }), [[2.5], [3]]);
        assert.deepStrictEqual(tensorToJson({ dtype: "DT_INT64", tensor_shape: { dim: [{ size: "3" }] }, int64_val: ["7"] }), [7, 7, 7]);
        assert.deepStrictEqual(tensorToJson({ dtype: "DT_STRING", tensor_shape: {}, string_val: [Buffer.from("hi")] }), "hi");
        const content = Buffer.alloc(8);
        content.writeFloatLE(1.5, 0);
        content.writeFloatLE(-2, 4);
        assert.deepStrictEqual(tensorToJson({ dtype: "DT_FLOAT", tensor_shape: { dim: [{ size: "2" }] }, tensor_content: content }), [1.5, -2]);
    });

    it("turns REST bodies into PredictRequest inputs: rows stacked per input, columns whole", () => {
        const signature = { method: "tensorflow/serving/predict", inputs: { a: { dtype: "DT_FLOAT", shape: [-1] }, b: { dtype: "DT_INT32", shape: [-1] } }, outputs: {} };
        assert.deepStrictEqual(predictInputs({ instances: [{ a: 1, b: 2 }, { a: 3, b: 4 }] }, "s", signature), {
            a: { dtype: "DT_FLOAT", tensor_shape: { dim: [{ size: 2 }] }, float_val: [1, 3] },
            b: { dtype: "DT_INT32", tensor_shape: { dim: [{ size: 2 }] }, int_val: [2, 4] },
        });
        assert.deepStrictEqual(predictInputs({ inputs: { a: [1], b: [2] } }, "s", signature).b.int_val, [2]);
        assert.throws(() => predictInputs({ instances: [{ a: 1 }] }, "s", signature), /instance 0 lacks input "b" of signature "s" \(its inputs: a, b\)/);
        const single = { method: "", inputs: { x: { dtype: "DT_FLOAT", shape: [-1, 1] } }, outputs: {} };
        assert.deepStrictEqual(predictInputs({ instances: [[1], [2]] }, "s", single).x.tensor_shape, { dim: [{ size: 2 }, { size: 1 }] });
        assert.deepStrictEqual(predictInputs({ inputs: [[1], [2]] }, "s", single).x.float_val, [1, 2]);
    });
});

describe("grpcEndpointFromStackOutputs", () => {
    it("takes grpcEndpoint and the model served at restUrl; names the missing output", () => {
        const outputs = {
            restUrl: { value: "http://198.51.100.7:8501" }, grpcEndpoint: { value: "198.51.100.7:8500" },
            models: { value: { other: { restUrl: "http://192.0.2.1:8501" }, m: { restUrl: "http://198.51.100.7:8501" } } },
        };
        assert.deepStrictEqual(grpcEndpointFromStackOutputs(outputs, "dev"), { grpcEndpoint: "198.51.100.7:8500", model: "m" });
        assert.throws(() => grpcEndpointFromStackOutputs({ restUrl: outputs.restUrl }, "dev"), /stack "dev" has no grpcEndpoint output \(its outputs: restUrl\)/);
    });
});

describe("the gRPC authority (a Gateway that routes gRPC by host)", () => {
    it("the models output's grpcAuthority of the model, when its Gateway names one", () => {
        const outputs = { models: { value: { one: { grpcAuthority: "one.grpc.example.com" }, two: { restUrl: "http://192.0.2.1:8501" } } } };
        assert.strictEqual(grpcAuthorityFromStackOutputs(outputs, "one"), "one.grpc.example.com");
        assert.strictEqual(grpcAuthorityFromStackOutputs(outputs, "two"), undefined);
        assert.strictEqual(grpcAuthorityFromStackOutputs({}, "one"), undefined);
    });

    it("is the channel's default authority (grpc-js `grpc.default_authority`); none without it", () => {
        assert.deepStrictEqual(channelOptions({ tls: false, authority: "one.grpc.example.com" }), { "grpc.default_authority": "one.grpc.example.com" });
        assert.deepStrictEqual(channelOptions({ tls: false }), {});
    });
});
