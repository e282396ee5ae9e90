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

/** A map entry's key (field 1 of the entry message), or undefined when it has none. */
function entryKey(entry: Uint8Array): string | undefined {
    const key = fieldsOf(entry).find((f) => f.field === 1)?.payload;
    return key === undefined ? undefined : Buffer.from(key).toString("utf8");
}

/**
 * The SavedModel `bytes` with input `from` of signature `signature` renamed `to` in every MetaGraph
 * (MetaGraphDef.signature_def = 5, a map of SignatureDef; SignatureDef.inputs = 1, a map of TensorInfo):
 * the graph is untouched, so the renamed input still feeds the same tensor, as a re-export that
 * renamed the signature's key would.
 */
export function withRenamedInput(bytes: Uint8Array, signature: string, from: string, to: string): Uint8Array {
    const renameEntry = (entry: Uint8Array) => (entryKey(entry) !== from ? entry
        : Buffer.concat([delimited(1, Buffer.from(to, "utf8")), ...fieldsOf(entry).filter((f) => f.field !== 1).map((f) => f.raw)]));
    return rewriteField(bytes, 2, (metaGraph) => rewriteField(metaGraph, 5, (sigEntry) => (entryKey(sigEntry) !== signature ? sigEntry
        : rewriteField(sigEntry, 2, (def) => rewriteField(def, 1, renameEntry)))));
}
