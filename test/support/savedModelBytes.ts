/**
 * Rewrites one field of a real `saved_model.pb` at the wire level with protobufjs, every other byte kept as it
 * was (the graph, the signatures): a fixture that differs from a real export in exactly that field. The field
 * numbers are the official ones (tensorflow/core/protobuf/saved_model.proto: SavedModel.meta_graphs = 2;
 * meta_graph.proto: MetaGraphDef.meta_info_def = 1, MetaInfoDef.tensorflow_version = 5).
 */
import * as protobuf from "protobufjs";

const LENGTH_DELIMITED = 2;

interface WireField { field: number; raw: Uint8Array; payload?: Uint8Array }

function fieldsOf(bytes: Uint8Array): WireField[] {
    const reader = protobuf.Reader.create(bytes);
    const fields: WireField[] = [];
    while (reader.pos < reader.len) {
        const start = reader.pos;
        const tag = reader.uint32();
        const wire = tag & 7;
        const payload = wire === LENGTH_DELIMITED ? reader.bytes() : (reader.skipType(wire), undefined);
        fields.push({ field: tag >>> 3, raw: bytes.subarray(start, reader.pos), payload });
    }
    return fields;
}

function delimited(field: number, payload: Uint8Array): Uint8Array {
    return protobuf.Writer.create().uint32((field << 3) | LENGTH_DELIMITED).bytes(payload).finish();
}

/** `message` with each length-delimited field number `field` replaced by `rewrite(payload)`. */
function rewriteField(message: Uint8Array, field: number, rewrite: (payload: Uint8Array) => Uint8Array): Uint8Array {
    return Buffer.concat(fieldsOf(message).map((f) => (f.field === field && f.payload !== undefined ? delimited(field, rewrite(f.payload)) : f.raw)));
}

/** The SavedModel `bytes` with every MetaGraph's `meta_info_def.tensorflow_version` set to `version`. */
export function withTensorflowVersion(bytes: Uint8Array, version: string): Uint8Array {
    return rewriteField(bytes, 2, (metaGraph) => rewriteField(metaGraph, 1, (metaInfo) =>
        Buffer.concat([...fieldsOf(metaInfo).filter((f) => f.field !== 5).map((f) => f.raw), delimited(5, Buffer.from(version, "utf8"))])));
}
