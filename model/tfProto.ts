import * as protobuf from "protobufjs";
import * as textformat from "protobufjs/ext/textformat";
import { SignatureSpec, TensorSpec } from "../contract/signature";

/**
 * The value types of DataType (tensorflow/core/framework/types.proto). Each has a TF1 reference
 * twin, DT_X_REF = DT_X + REF_DTYPE_OFFSET (types.proto: "Every enum above should have a
 * corresponding value below"), so one list gives both halves of the enum.
 */
const VALUE_DTYPES: Readonly<Record<string, number>> = {
    DT_FLOAT: 1, DT_DOUBLE: 2, DT_INT32: 3, DT_UINT8: 4, DT_INT16: 5, DT_INT8: 6, DT_STRING: 7, DT_COMPLEX64: 8,
    DT_INT64: 9, DT_BOOL: 10, DT_QINT8: 11, DT_QUINT8: 12, DT_QINT32: 13, DT_BFLOAT16: 14, DT_QINT16: 15,
    DT_QUINT16: 16, DT_UINT16: 17, DT_COMPLEX128: 18, DT_HALF: 19, DT_RESOURCE: 20, DT_VARIANT: 21, DT_UINT32: 22,
    DT_UINT64: 23, DT_FLOAT8_E5M2: 24, DT_FLOAT8_E4M3FN: 25, DT_FLOAT8_E4M3FNUZ: 26, DT_FLOAT8_E4M3B11FNUZ: 27,
    DT_FLOAT8_E5M2FNUZ: 28, DT_INT4: 29, DT_UINT4: 30, DT_INT2: 31, DT_UINT2: 32,
};

const REF_DTYPE_OFFSET = 100;

/** The DataType enum's entries after DT_INVALID: the value types, then their reference twins. */
function dataTypeEntries(): string {
    const entries = Object.entries(VALUE_DTYPES);
    return [
        ...entries.map(([name, value]) => `  ${name} = ${value};`),
        ...entries.map(([name, value]) => `  ${name}_REF = ${value + REF_DTYPE_OFFSET};`),
    ].join("\n");
}

/**
 * The few TensorFlow messages a preflight needs, with the field numbers of the official
 * tensorflow/core/protobuf/{saved_model,meta_graph}.proto and
 * tensorflow/core/framework/{tensor,tensor_shape,types}.proto; below them, TF Serving's gRPC API
 * (tensorflow_serving/apis/{model,predict,get_model_metadata,get_model_status,prediction_service,
 * model_service}.proto, tensorflow_serving/util/status.proto) for `tfs smoke --grpc`.
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
  SaverDef saver_def = 3;
  map<string, SignatureDef> signature_def = 5;
  reserved 2, 4, 6, 7;
  reserved "graph_def", "collection_def", "asset_file_def", "object_graph_def";
}

message SaverDef {
  string restore_op_name = 3;
  reserved 1, 2, 4, 5, 6, 7;
  reserved "filename_tensor_name", "save_tensor_name", "max_to_keep", "sharded", "keep_checkpoint_every_n_hours", "version";
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

message TensorProto {
  DataType dtype = 1;
  TensorShapeProto tensor_shape = 2;
  int32 version_number = 3;
  bytes tensor_content = 4;
  repeated int32 half_val = 13 [packed = true];
  repeated float float_val = 5 [packed = true];
  repeated double double_val = 6 [packed = true];
  repeated int32 int_val = 7 [packed = true];
  repeated bytes string_val = 8;
  repeated float scomplex_val = 9 [packed = true];
  repeated int64 int64_val = 10 [packed = true];
  repeated bool bool_val = 11 [packed = true];
  repeated double dcomplex_val = 12 [packed = true];
  repeated uint32 uint32_val = 16 [packed = true];
  repeated uint64 uint64_val = 17 [packed = true];
  reserved 14, 15, 18;
  reserved "resource_handle_val", "variant_val", "float8_val";
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
${dataTypeEntries()}
}
`;

/** The wrappers TF Serving's messages use (google/protobuf/{wrappers,any}.proto). */
const WELL_KNOWN_SCHEMA = `
syntax = "proto3";
package google.protobuf;

message Int64Value {
  int64 value = 1;
}

message Any {
  string type_url = 1;
  bytes value = 2;
}
`;

/** tensorflow/core/protobuf/error_codes.proto: the codes a StatusProto carries (gRPC's numbers). */
const ERROR_CODES_SCHEMA = `
syntax = "proto3";
package tensorflow.error;

enum Code {
  OK = 0;
  CANCELLED = 1;
  UNKNOWN = 2;
  INVALID_ARGUMENT = 3;
  DEADLINE_EXCEEDED = 4;
  NOT_FOUND = 5;
  ALREADY_EXISTS = 6;
  PERMISSION_DENIED = 7;
  RESOURCE_EXHAUSTED = 8;
  FAILED_PRECONDITION = 9;
  ABORTED = 10;
  OUT_OF_RANGE = 11;
  UNIMPLEMENTED = 12;
  INTERNAL = 13;
  UNAVAILABLE = 14;
  DATA_LOSS = 15;
  UNAUTHENTICATED = 16;
  DO_NOT_USE_RESERVED_FOR_FUTURE_EXPANSION_USE_DEFAULT_IN_SWITCH_INSTEAD_ = 20;
}
`;

/**
 * TF Serving's gRPC services and the messages of the calls a smoke test makes. Classify, Regress,
 * MultiInference and HandleReloadConfigRequest are left out (no client here calls them); their
 * paths would be /tensorflow.serving.PredictionService/Classify and so on.
 */
const SERVING_SCHEMA = `
syntax = "proto3";
package tensorflow.serving;

message ModelSpec {
  string name = 1;
  oneof version_choice {
    google.protobuf.Int64Value version = 2;
    string version_label = 4;
  }
  string signature_name = 3;
}

message PredictRequest {
  ModelSpec model_spec = 1;
  map<string, TensorProto> inputs = 2;
  repeated string output_filter = 3;
  reserved 4, 5, 6, 7;
  reserved "predict_streamed_options", "client_id", "request_options";
}

message PredictResponse {
  ModelSpec model_spec = 2;
  map<string, TensorProto> outputs = 1;
}

message SignatureDefMap {
  map<string, SignatureDef> signature_def = 1;
}

message GetModelMetadataRequest {
  ModelSpec model_spec = 1;
  repeated string metadata_field = 2;
}

message GetModelMetadataResponse {
  ModelSpec model_spec = 1;
  map<string, google.protobuf.Any> metadata = 2;
}

message StatusProto {
  tensorflow.error.Code error_code = 1;
  string error_message = 2;
}

message GetModelStatusRequest {
  ModelSpec model_spec = 1;
}

message ModelVersionStatus {
  enum State {
    UNKNOWN = 0;
    START = 10;
    LOADING = 20;
    AVAILABLE = 30;
    UNLOADING = 40;
    END = 50;
  }
  int64 version = 1;
  State state = 2;
  StatusProto status = 3;
}

message GetModelStatusResponse {
  repeated ModelVersionStatus model_version_status = 1;
}

service PredictionService {
  rpc Predict(PredictRequest) returns (PredictResponse);
  rpc GetModelMetadata(GetModelMetadataRequest) returns (GetModelMetadataResponse);
}

service ModelService {
  rpc GetModelStatus(GetModelStatusRequest) returns (GetModelStatusResponse);
}
`;

/**
 * A warmup file's records (tensorflow_serving/apis/prediction_log.proto, logging.proto). Only PredictLog is
 * read in full; the other kinds keep their numbers in the oneof, so a record of one is recognised by its kind,
 * while their requests are skipped unread.
 */
const PREDICTION_LOG_SCHEMA = `
syntax = "proto3";
package tensorflow.serving;

message LogMetadata {
  ModelSpec model_spec = 1;
  repeated string saved_model_tags = 3;
  reserved 2, 4, 5, 6, 7, 8;
  reserved "sampling_config", "timestamp_secs", "dc", "request_origin", "request_criticality", "safe_aggregation_privacy_key";
}

message PredictLog {
  PredictRequest request = 1;
  PredictResponse response = 2;
}

message ClassifyLog { reserved 1, 2; reserved "request", "response"; }
message RegressLog { reserved 1, 2; reserved "request", "response"; }
message PredictStreamedLog { reserved 1, 2; reserved "request", "response"; }
message MultiInferenceLog { reserved 1, 2; reserved "request", "response"; }
message SessionRunLog { reserved 1, 2; reserved "request", "response"; }

message PredictionLog {
  LogMetadata log_metadata = 1;
  oneof log_type {
    ClassifyLog classify_log = 2;
    RegressLog regress_log = 3;
    PredictLog predict_log = 6;
    PredictStreamedLog predict_streamed_log = 7;
    MultiInferenceLog multi_inference_log = 4;
    SessionRunLog session_run_log = 5;
  }
}
`;

/**
 * One MetaGraph of a SavedModel: its tag set, its signatures (names sorted), and the TensorFlow that exported it
 * (`meta_info_def.tensorflow_version` and `tensorflow_git_version`, null when the exporter left them empty).
 */
export interface MetaGraphSpec {
    tags: string[];
    signatures: Record<string, SignatureSpec>;
    tensorflowVersion: string | null;
    tensorflowGitVersion: string | null;
    /**
     * `saver_def.restore_op_name`: the op that restores the variables from `variables/` at load; null when
     * the graph has none (a model without variables). TensorFlow's loader skips the restore, without an
     * error, when `variables/variables.index` is missing (`cc/saved_model/loader.cc`, RunRestore).
     */
    restoreOp: string | null;
}

const root = protobuf.parse(SCHEMA, { keepCase: true }).root;
protobuf.parse(WELL_KNOWN_SCHEMA, root, { keepCase: true });
protobuf.parse(ERROR_CODES_SCHEMA, root, { keepCase: true });
protobuf.parse(SERVING_SCHEMA, root, { keepCase: true });
protobuf.parse(PREDICTION_LOG_SCHEMA, root, { keepCase: true });
root.resolveAll();
const savedModelType = root.lookupType("tensorflow.SavedModel");
const dataTypeEnum = root.lookupEnum("tensorflow.DataType");
const signatureDefMapType = root.lookupType("tensorflow.serving.SignatureDefMap");

/** The Any type URL GetModelMetadata packs its "signature_def" entry with. */
export const SIGNATURE_DEF_MAP_URL = "type.googleapis.com/tensorflow.serving.SignatureDefMap";

/** TF Serving's gRPC services, by name: PredictionService and ModelService (package tensorflow.serving). */
export function servingService(name: "PredictionService" | "ModelService"): protobuf.Service {
    return root.lookupService(`tensorflow.serving.${name}`);
}

/** A message type of TF Serving's API or TensorFlow's (e.g. "tensorflow.TensorProto"). */
export function servingType(fullName: string): protobuf.Type {
    return root.lookupType(fullName);
}

/** The signatures in a GetModelMetadata "signature_def" Any's value (a SignatureDefMap), names sorted. */
export function decodeSignatureDefMap(bytes: Uint8Array): Record<string, SignatureSpec> {
    const raw = signatureDefMapType.toObject(signatureDefMapType.decode(bytes), { enums: Number, longs: Number, arrays: true, objects: true }) as {
        signature_def?: Record<string, RawSignatureDef>;
    };
    return mapSorted(raw.signature_def ?? {}, toSignature);
}

/** The DataType number of a name such as "DT_FLOAT"; undefined for a name TensorFlow does not have. */
export function dtypeValue(name: string): number | undefined {
    return dataTypeEnum.values[name];
}

// Plain-object views of the decoded messages (after toObject with enums and longs as numbers).
interface RawTensorInfo { dtype?: number; tensor_shape?: { dim?: { size?: number }[]; unknown_rank?: boolean } }
interface RawSignatureDef { method_name?: string; inputs?: Record<string, RawTensorInfo>; outputs?: Record<string, RawTensorInfo> }
interface RawMetaInfoDef { tags?: string[]; tensorflow_version?: string; tensorflow_git_version?: string }
interface RawMetaGraphDef { meta_info_def?: RawMetaInfoDef; saver_def?: { restore_op_name?: string }; signature_def?: Record<string, RawSignatureDef> }
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
        tensorflowVersion: graph.meta_info_def?.tensorflow_version || null,
        tensorflowGitVersion: graph.meta_info_def?.tensorflow_git_version || null,
        restoreOp: graph.saver_def?.restore_op_name || null,
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
