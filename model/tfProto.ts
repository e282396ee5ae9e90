import * as protobuf from "protobufjs";
import * as textformat from "protobufjs/ext/textformat";
import { SignatureSpec, TensorSpec } from "../contract/signature";

/**
 * The few TensorFlow messages a preflight needs, with the field numbers of the official
 * tensorflow/core/protobuf/{saved_model,meta_graph}.proto and
 * tensorflow/core/framework/{tensor_shape,types}.proto.
 *
 * Every field we do not read is declared `reserved` (by number and by name): the binary decoder
 * then skips it by its length prefix, so a graph_def of hundreds of megabytes is never built into
 * objects, and the text-format parser skips the same blocks in `saved_model.pbtxt`.
 */
const SCHEMA = `
syntax = "proto3";
package tensorflow;

message SavedModel {
  int64 saved_model_schema_version = 1;
  repeated MetaGraphDef meta_graphs = 2;
}

message MetaGraphDef {
  message MetaInfoDef {
    string meta_graph_version = 1;
    repeated string tags = 4;
    string tensorflow_version = 5;
    string tensorflow_git_version = 6;
    reserved 2, 3, 7, 8;
    reserved "stripped_op_list", "any_info", "stripped_default_attrs", "function_aliases";
  }
  MetaInfoDef meta_info_def = 1;
  map<string, SignatureDef> signature_def = 5;
  reserved 2, 3, 4, 6, 7;
  reserved "graph_def", "saver_def", "collection_def", "asset_file_def", "object_graph_def";
}

message SignatureDef {
  map<string, TensorInfo> inputs = 1;
  map<string, TensorInfo> outputs = 2;
  string method_name = 3;
  reserved 4;
  reserved "defaults";
}

message TensorInfo {
  oneof encoding {
    string name = 1;
  }
  DataType dtype = 2;
  TensorShapeProto tensor_shape = 3;
  reserved 4, 5;
  reserved "coo_sparse", "composite_tensor";
}

message TensorShapeProto {
  message Dim {
    int64 size = 1;
    string name = 2;
  }
  repeated Dim dim = 2;
  bool unknown_rank = 3;
}

enum DataType {
  DT_INVALID = 0;
  DT_FLOAT = 1;
  DT_DOUBLE = 2;
  DT_INT32 = 3;
  DT_UINT8 = 4;
  DT_INT16 = 5;
  DT_INT8 = 6;
  DT_STRING = 7;
  DT_COMPLEX64 = 8;
  DT_INT64 = 9;
  DT_BOOL = 10;
  DT_QINT8 = 11;
  DT_QUINT8 = 12;
  DT_QINT32 = 13;
  DT_BFLOAT16 = 14;
  DT_QINT16 = 15;
  DT_QUINT16 = 16;
  DT_UINT16 = 17;
  DT_COMPLEX128 = 18;
  DT_HALF = 19;
  DT_RESOURCE = 20;
  DT_VARIANT = 21;
  DT_UINT32 = 22;
  DT_UINT64 = 23;
  DT_FLOAT8_E5M2 = 24;
  DT_FLOAT8_E4M3FN = 25;
  DT_FLOAT8_E4M3FNUZ = 26;
  DT_FLOAT8_E4M3B11FNUZ = 27;
  DT_FLOAT8_E5M2FNUZ = 28;
  DT_INT4 = 29;
  DT_UINT4 = 30;
  DT_INT2 = 31;
  DT_UINT2 = 32;
  DT_FLOAT_REF = 101;
  DT_DOUBLE_REF = 102;
  DT_INT32_REF = 103;
  DT_UINT8_REF = 104;
  DT_INT16_REF = 105;
  DT_INT8_REF = 106;
  DT_STRING_REF = 107;
  DT_COMPLEX64_REF = 108;
  DT_INT64_REF = 109;
  DT_BOOL_REF = 110;
  DT_QINT8_REF = 111;
  DT_QUINT8_REF = 112;
  DT_QINT32_REF = 113;
  DT_BFLOAT16_REF = 114;
  DT_QINT16_REF = 115;
  DT_QUINT16_REF = 116;
  DT_UINT16_REF = 117;
  DT_COMPLEX128_REF = 118;
  DT_HALF_REF = 119;
  DT_RESOURCE_REF = 120;
  DT_VARIANT_REF = 121;
  DT_UINT32_REF = 122;
  DT_UINT64_REF = 123;
  DT_FLOAT8_E5M2_REF = 124;
  DT_FLOAT8_E4M3FN_REF = 125;
  DT_FLOAT8_E4M3FNUZ_REF = 126;
  DT_FLOAT8_E4M3B11FNUZ_REF = 127;
  DT_FLOAT8_E5M2FNUZ_REF = 128;
  DT_INT4_REF = 129;
  DT_UINT4_REF = 130;
  DT_INT2_REF = 131;
  DT_UINT2_REF = 132;
}
`;

/** One MetaGraph of a SavedModel: its tag set and its signatures (names sorted). */
export interface MetaGraphSpec { tags: string[]; signatures: Record<string, SignatureSpec> }

/** TensorFlow marks a reference dtype by adding this to the value type (DT_FLOAT_REF = 101). */
const REF_DTYPE_OFFSET = 100;

const root = protobuf.parse(SCHEMA, { keepCase: true }).root;
const savedModelType = root.lookupType("tensorflow.SavedModel");
const dataTypeEnum = root.lookupEnum("tensorflow.DataType");

// Plain-object views of the decoded messages (after toObject with enums and longs as numbers).
interface RawTensorInfo { dtype?: number; tensor_shape?: { dim?: { size?: number }[]; unknown_rank?: boolean } }
interface RawSignatureDef { method_name?: string; inputs?: Record<string, RawTensorInfo>; outputs?: Record<string, RawTensorInfo> }
interface RawMetaGraphDef { meta_info_def?: { tags?: string[] }; signature_def?: Record<string, RawSignatureDef> }
interface RawSavedModel { meta_graphs?: RawMetaGraphDef[] }

/** Decodes a binary `saved_model.pb`. Throws (with protobufjs's reason) if the bytes are not a SavedModel. */
export function decodeSavedModel(bytes: Uint8Array): MetaGraphSpec[] {
    return fromMessage(savedModelType.decode(bytes));
}

/** Parses a text-format `saved_model.pbtxt`. Throws with a line number if the text is malformed. */
export function parseSavedModelText(text: string): MetaGraphSpec[] {
    return fromMessage(textformat.fromText(savedModelType, text));
}

/** The enum name TensorFlow uses for a DataType number, e.g. 1 -> "DT_FLOAT". */
export function dtypeName(value: number): string {
    return dataTypeEnum.valuesById[value] ?? `DT_UNKNOWN_${value}`;
}

/** True for the obsolete TF1 reference dtypes (DT_FLOAT_REF ...), which a serving signature should not expose. */
export function isRefDtype(name: string): boolean {
    const value = dataTypeEnum.values[name];
    return value !== undefined && value > REF_DTYPE_OFFSET;
}

function fromMessage(message: protobuf.Message): MetaGraphSpec[] {
    const raw = savedModelType.toObject(message, { enums: Number, longs: Number, arrays: true, objects: true }) as RawSavedModel;
    return (raw.meta_graphs ?? []).map((graph) => ({
        tags: graph.meta_info_def?.tags ?? [],
        signatures: mapSorted(graph.signature_def ?? {}, toSignature),
    }));
}

function toSignature(raw: RawSignatureDef): SignatureSpec {
    return {
        method: raw.method_name ?? "",
        inputs: mapSorted(raw.inputs ?? {}, toTensor),
        outputs: mapSorted(raw.outputs ?? {}, toTensor),
    };
}

function toTensor(raw: RawTensorInfo): TensorSpec {
    const shape = raw.tensor_shape;
    return {
        dtype: dtypeName(raw.dtype ?? 0),
        // A TensorInfo without tensor_shape records no shape at all: report it as unknown, not as a scalar.
        shape: shape === undefined || shape.unknown_rank ? null : (shape.dim ?? []).map((d) => d.size ?? 0),
    };
}

function mapSorted<A, B>(entries: Record<string, A>, convert: (value: A) => B): Record<string, B> {
    const result: Record<string, B> = {};
    for (const key of Object.keys(entries).sort()) {
        result[key] = convert(entries[key]);
    }
    return result;
}
