import * as assert from "assert";
import * as protobuf from "protobufjs";
import { decodeSavedModel, dtypeName, isRefDtype } from "../../../model/tfProto";

/** Length-delimited field `field` holding `bytes`, written by hand from the official field numbers. */
function message(build: (w: protobuf.Writer) => void): Uint8Array {
    const writer = protobuf.Writer.create();
    build(writer);
    return writer.finish();
}
const bytesField = (w: protobuf.Writer, field: number, bytes: Uint8Array): protobuf.Writer => w.uint32((field << 3) | 2).bytes(bytes);
const stringField = (w: protobuf.Writer, field: number, text: string): protobuf.Writer => w.uint32((field << 3) | 2).string(text);
const varintField = (w: protobuf.Writer, field: number, value: number): protobuf.Writer => w.uint32(field << 3).int64(value);

describe("tfProto", () => {
    it("decodes a SavedModel written from the official field numbers, skipping a graph_def it could not parse", () => {
        const dim = (size: number): Uint8Array => message((w) => varintField(w, 1, size));
        const shape = message((w) => { bytesField(w, 2, dim(-1)); bytesField(w, 2, dim(28)); });
        const tensorInfo = message((w) => { stringField(w, 1, "images:0"); varintField(w, 2, 4); bytesField(w, 3, shape); });
        const mapEntry = (key: string, value: Uint8Array): Uint8Array => message((w) => { stringField(w, 1, key); bytesField(w, 2, value); });
        const signature = message((w) => { bytesField(w, 1, mapEntry("images", tensorInfo)); stringField(w, 3, "tensorflow/serving/predict"); });
        const metaInfo = message((w) => { stringField(w, 4, "serve"); stringField(w, 5, "2.16.1"); stringField(w, 6, "v2.16.0-rc0-18-g5bc9d26649c"); });
        // 4 MiB that are not a GraphDef (0xff never starts a valid tag): decoding it would throw.
        const graphDef = new Uint8Array(4 * 1024 * 1024).fill(0xff);
        // SaverDef (meta_graph.proto / saver.proto): filename_tensor_name 1, restore_op_name 3, version 7.
        const saverDef = message((w) => { stringField(w, 1, "save/Const:0"); stringField(w, 3, "save/restore_all"); varintField(w, 7, 2); });
        const metaGraph = message((w) => { bytesField(w, 1, metaInfo); bytesField(w, 2, graphDef); bytesField(w, 3, saverDef); bytesField(w, 5, mapEntry("serving_default", signature)); });
        const savedModel = message((w) => { varintField(w, 1, 1); bytesField(w, 2, metaGraph); });

        assert.deepStrictEqual(decodeSavedModel(savedModel), [{
            tags: ["serve"],
            signatures: {
                serving_default: {
                    method: "tensorflow/serving/predict",
                    inputs: { images: { dtype: "DT_UINT8", shape: [-1, 28] } },
                    outputs: {},
                },
            },
            tensorflowVersion: "2.16.1",
            tensorflowGitVersion: "v2.16.0-rc0-18-g5bc9d26649c",
            restoreOp: "save/restore_all",
        }]);
    });

    it("names dtypes as TensorFlow does, including reference and unknown ones", () => {
        assert.strictEqual(dtypeName(1), "DT_FLOAT");
        assert.strictEqual(dtypeName(7), "DT_STRING");
        assert.strictEqual(dtypeName(9), "DT_INT64");
        assert.strictEqual(dtypeName(14), "DT_BFLOAT16");
        assert.strictEqual(dtypeName(101), "DT_FLOAT_REF");
        assert.strictEqual(dtypeName(999), "DT_UNKNOWN_999");
        assert.strictEqual(isRefDtype("DT_FLOAT_REF"), true);
        assert.strictEqual(isRefDtype("DT_FLOAT"), false);
        assert.strictEqual(isRefDtype("DT_UNKNOWN_999"), false);
    });
});
