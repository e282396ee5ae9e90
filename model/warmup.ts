/**
 * A SavedModel's warmup file, `<version>/assets.extra/tf_serving_warmup_requests`: TFRecords of
 * `tensorflow.serving.PredictionLog`, which TF Serving replays at each load before the version serves
 * (servables/tensorflow/saved_model_warmup{,_util}.cc). One record it cannot run fails the load, so the
 * checks here are the ones that load would make: the framing, the record count, the log kind, and a
 * PredictLog's request against the version's SignatureDef.
 */
import * as fs from "fs";
import { DEFAULT_SIGNATURE, isInternalSignature, SignatureSpec, TensorSpec } from "../contract/signature";
import { servingType } from "./tfProto";
import { PredictRequestBody, predictInputs, tensorFromJson, TensorObject } from "./tensorJson";
import { readTfRecords, RECORD_OVERHEAD_BYTES, TfRecordProblem, writeTfRecords } from "./tfRecord";

/** Where TF Serving looks for the file, relative to a version folder (tensorflow/cc/saved_model/constants.h, saved_model_warmup_util.h). */
export const WARMUP_FILE = "assets.extra/tf_serving_warmup_requests";
/** TF Serving fails a load whose warmup file holds more records than this (WarmupConsts::kMaxNumRecords). */
export const WARMUP_MAX_RECORDS = 1000;

/** One request to record: a REST `:predict` body, the signature it calls, and optionally the answer expected. */
export interface WarmupRequest {
    body: PredictRequestBody;
    signatureName: string;
    signature: SignatureSpec;
    /** The model name written into the request's model_spec; TF Serving's replay does not read it. Default "". */
    modelName?: string;
    /** Outputs by name (nested lists, columnar); written as PredictLog.response, which TF Serving discards at replay. */
    expected?: Record<string, unknown>;
}

/** A request that cannot be written as a warmup record; the message names the request (0-based, as records are). */
export class WarmupError extends Error {
    constructor(message: string) {
        super(message);
        this.name = "WarmupError";
    }
}

/** The PredictionLog kinds (the `log_type` oneof); "none" for a record that sets none, which TF Serving skips. */
export type WarmupKind = "predict_log" | "classify_log" | "regress_log" | "multi_inference_log" | "predict_streamed_log" | "session_run_log" | "none";

/** A tensor of a recorded request: its dtype name and its shape (null for an unknown rank). */
export interface RecordedTensor { dtype: string; shape: number[] | null }

/** One record of a warmup file, decoded. */
export interface WarmupRecord {
    /** 0-based, in file order. */
    index: number;
    /** Byte offset of the record's header in the file. */
    offset: number;
    kind: WarmupKind;
    /** For a PredictLog: its request, as the replay reads it. */
    predict?: {
        signatureName: string;
        inputs: Record<string, RecordedTensor>;
        outputFilter: string[];
        /** Outputs of the logged response, by name (empty when the file carries no answers). */
        responseOutputs: string[];
    };
}

/** A warmup file read through: every record up to the first that cannot be read, and why that one cannot. */
export interface WarmupFile {
    records: WarmupRecord[];
    /** The framing problem that ended the read (a bad CRC, a cut record), if any. */
    framing?: TfRecordProblem;
    /** A record whose bytes are not a PredictionLog (TF Serving: "Failed to parse warmup record"), if any. */
    undecodable?: { index: number; offset: number; reason: string };
    /** Bytes after the last record, too few for a header, which TensorFlow reads as the end of the file. */
    trailingBytes?: number;
}

/**
 * One finding about a record; `index` is the record's (null for the file as a whole). An "error" is what TF
 * Serving refuses, and fails the load on. A "warning" is a tensor whose shape is not the signature's: TF Serving
 * does not check shapes against the signature (its own half_plus_two example sends rank 1 to an input of shape
 * [-1, 1]) and hands the tensor to the graph, which may or may not take it.
 */
export interface WarmupProblem { index: number | null; message: string; severity: "error" | "warning" }

interface Finding { message: string; severity: WarmupProblem["severity"] }

const predictionLogType = servingType("tensorflow.serving.PredictionLog");
const TO_OBJECT = { enums: String, longs: Number, arrays: true, objects: true, oneofs: true } as const;

/** The TFRecord file of `requests`, one PredictLog each, in order. Throws WarmupError naming the request that cannot be written. */
export function buildWarmupFile(requests: readonly WarmupRequest[]): Buffer {
    if (requests.length > WARMUP_MAX_RECORDS) {
        throw new WarmupError(tooMany(requests.length, "requests"));
    }
    return writeTfRecords(requests.map((request, index) => {
        const log = predictLog(request);
        if (typeof log === "string") {
            throw new WarmupError(`request ${index}: ${log}`);
        }
        return predictionLogType.encode(predictionLogType.fromObject({ predict_log: log.log })).finish();
    }));
}

/** A request from the user (an `--input` body, a golden case), and the name messages give it (the file, the file and line). */
export interface WarmupSource {
    name: string;
    body: PredictRequestBody;
    expected?: Record<string, unknown>;
}

/**
 * The warmup requests for `sources` against a version's signatures, or every reason TF Serving would refuse
 * one (one line each, starting with the source's name): an unknown signature, inputs that differ from the
 * signature's, a value of the wrong dtype, too many requests. `warnings`: tensors whose shape is not the
 * signature's (see WarmupProblem), which do not stop the requests.
 */
export function warmupRequests(sources: readonly WarmupSource[], signatures: Record<string, SignatureSpec>, modelName?: string): { requests: WarmupRequest[]; problems: string[]; warnings: string[] } {
    const requests: WarmupRequest[] = [];
    const problems: string[] = [];
    const warnings: string[] = [];
    if (sources.length > WARMUP_MAX_RECORDS) {
        problems.push(tooMany(sources.length, "requests"));
    }
    for (const source of sources) {
        const signatureName = source.body.signature_name ?? DEFAULT_SIGNATURE;
        const signature = signatures[signatureName];
        if (signature === undefined) {
            problems.push(`${source.name}: ${unknownSignature(signatureName, signatures)}`);
            continue;
        }
        const request: WarmupRequest = { body: source.body, signatureName, signature, modelName, expected: source.expected };
        const log = predictLog(request);
        if (typeof log === "string") {
            problems.push(`${source.name}: ${log}`);
            continue;
        }
        for (const found of predictProblems({ signatureName, inputs: recorded(log.inputs), outputFilter: [], responseOutputs: [] }, signatures)) {
            (found.severity === "error" ? problems : warnings).push(`${source.name}: ${found.message}`);
        }
        requests.push(request);
    }
    return { requests, problems, warnings };
}

function tooMany(count: number, what: string): string {
    return `${count} ${what}, more than the ${WARMUP_MAX_RECORDS} records TF Serving reads from a warmup file (Number of warmup records exceeds the maximum); keep at most ${WARMUP_MAX_RECORDS}`;
}

function unknownSignature(name: string, signatures: Record<string, SignatureSpec>): string {
    const callable = Object.keys(signatures).filter((n) => !isInternalSignature(n));
    return `signature "${name}" is not in the model (it has ${callable.join(", ") || "none"}); TF Serving: Serving signature key "${name}" not found.`;
}

function recorded(tensors: Record<string, TensorObject>): Record<string, RecordedTensor> {
    const out: Record<string, RecordedTensor> = {};
    for (const [name, tensor] of Object.entries(tensors)) {
        out[name] = { dtype: tensor.dtype, shape: (tensor.tensor_shape?.dim ?? []).map((d) => Number(d.size ?? 0)) };
    }
    return out;
}

/** A request's PredictLog as a plain object, or why the request cannot be written as one. */
function predictLog(request: WarmupRequest): { log: Record<string, unknown>; inputs: Record<string, TensorObject> } | string {
    const { signatureName, signature } = request;
    let inputs: Record<string, TensorObject>;
    try {
        inputs = predictInputs(request.body, signatureName, signature);
    } catch (err) {
        return (err as Error).message;
    }
    const modelSpec = { name: request.modelName ?? "", signature_name: signatureName };
    const log: Record<string, unknown> = { request: { model_spec: modelSpec, inputs } };
    if (request.expected !== undefined) {
        const outputs: Record<string, TensorObject> = {};
        for (const [name, value] of Object.entries(request.expected)) {
            const spec = signature.outputs[name];
            if (spec === undefined) {
                return `expected output "${name}" is not an output of signature "${signatureName}" (its outputs: ${Object.keys(signature.outputs).join(", ")})`;
            }
            try {
                outputs[name] = tensorFromJson(value, spec.dtype, `expected output "${name}" of signature "${signatureName}"`);
            } catch (err) {
                return (err as Error).message;
            }
        }
        log.response = { model_spec: modelSpec, outputs };
    }
    return { log, inputs };
}

/** Reads a warmup file (a path or its bytes) record by record; throws only when the file cannot be read at all. */
export function readWarmupFile(source: string | Uint8Array): WarmupFile {
    const bytes = typeof source === "string" ? fs.readFileSync(source) : source;
    const { records, problem, trailingBytes } = readTfRecords(bytes);
    const file: WarmupFile = { records: [], ...(problem === undefined ? {} : { framing: problem }), ...(trailingBytes === undefined ? {} : { trailingBytes }) };
    let offset = 0;
    for (const [index, data] of records.entries()) {
        const recordOffset = offset;
        offset += data.length + RECORD_OVERHEAD_BYTES;
        let decoded: RawPredictionLog;
        try {
            decoded = predictionLogType.toObject(predictionLogType.decode(data), TO_OBJECT) as RawPredictionLog;
        } catch (err) {
            // Later records are never reached: TF Serving stops at the first it cannot parse.
            delete file.framing;
            delete file.trailingBytes;
            file.undecodable = { index, offset: recordOffset, reason: (err as Error).message };
            return file;
        }
        file.records.push(toRecord(decoded, index, recordOffset));
    }
    return file;
}

interface RawTensor { dtype?: string; tensor_shape?: { dim?: { size?: number }[]; unknown_rank?: boolean } }
interface RawPredictionLog {
    log_type?: WarmupKind;
    predict_log?: {
        request?: { model_spec?: { signature_name?: string }; inputs?: Record<string, RawTensor>; output_filter?: string[] };
        response?: { outputs?: Record<string, RawTensor> };
    };
}

function toRecord(raw: RawPredictionLog, index: number, offset: number): WarmupRecord {
    const kind = raw.log_type ?? "none";
    if (kind !== "predict_log") {
        return { index, offset, kind };
    }
    const request = raw.predict_log?.request ?? {};
    const inputs: Record<string, RecordedTensor> = {};
    for (const [name, tensor] of Object.entries(request.inputs ?? {})) {
        const shape = tensor.tensor_shape;
        inputs[name] = { dtype: tensor.dtype ?? "DT_INVALID", shape: shape?.unknown_rank ? null : (shape?.dim ?? []).map((d) => d.size ?? 0) };
    }
    return {
        index, offset, kind,
        predict: {
            signatureName: request.model_spec?.signature_name || DEFAULT_SIGNATURE,
            inputs,
            outputFilter: request.output_filter ?? [],
            responseOutputs: Object.keys(raw.predict_log?.response?.outputs ?? {}).sort(),
        },
    };
}

/** Why TF Serving's replay refuses each kind it does not run (saved_model_warmup.cc answers UNIMPLEMENTED). */
const REFUSED_KINDS: Partial<Record<WarmupKind, string>> = {
    predict_streamed_log: "is a PredictStreamedLog, which TF Serving's warmup does not replay (Unsupported log_type for warmup): write a PredictLog instead",
    session_run_log: "is a SessionRunLog, which TF Serving's warmup does not replay (Unsupported log_type for warmup): write a PredictLog instead",
};

/**
 * Every reason TF Serving would fail the load on this warmup file ("error"), and every tensor whose shape is not
 * the signature's ("warning"), each naming its record (0-based). `signatures` are the loaded MetaGraph's; null
 * when they are unknown (the graph could not be read), and then only the framing, the count and the kinds are checked.
 */
export function warmupProblems(source: Uint8Array | WarmupFile, signatures: Record<string, SignatureSpec> | null): WarmupProblem[] {
    const file = source instanceof Uint8Array ? readWarmupFile(source) : source;
    const problems: WarmupProblem[] = [];
    for (const record of file.records) {
        const at = `record ${record.index} (byte ${record.offset})`;
        const refused = REFUSED_KINDS[record.kind];
        if (refused !== undefined) {
            problems.push({ index: record.index, message: `${at} ${refused}`, severity: "error" });
        } else if (record.predict !== undefined && signatures !== null) {
            problems.push(...predictProblems(record.predict, signatures).map((f) => ({ index: record.index, message: `${at}: ${f.message}`, severity: f.severity })));
        }
    }
    if (file.records.length > WARMUP_MAX_RECORDS) {
        problems.push({ index: WARMUP_MAX_RECORDS, message: `record ${WARMUP_MAX_RECORDS}: the file holds ${tooMany(file.records.length, "records")}`, severity: "error" });
    }
    if (file.framing !== undefined) {
        const { index, offset, kind, message } = file.framing;
        const what = kind === "truncated" ? "is cut short" : kind === "length-crc" ? "has a length whose CRC does not match" : "has data whose CRC does not match";
        problems.push({ index, message: `record ${index} (byte ${offset}) ${what} (TensorFlow: "${message}"), and TF Serving reads no further`, severity: "error" });
    }
    if (file.undecodable !== undefined) {
        const { index, offset, reason } = file.undecodable;
        problems.push({ index, message: `record ${index} (byte ${offset}) is not a PredictionLog (${reason}); TF Serving: "Failed to parse warmup record"`, severity: "error" });
    }
    return problems;
}

/** What TF Serving's predict would refuse in a recorded request (predict_util.cc's checks), and shapes that differ from the signature's. */
function predictProblems(request: NonNullable<WarmupRecord["predict"]>, signatures: Record<string, SignatureSpec>): Finding[] {
    const signature = signatures[request.signatureName];
    if (signature === undefined) {
        return [{ message: unknownSignature(request.signatureName, signatures), severity: "error" }];
    }
    const problems: Finding[] = [];
    const error = (message: string) => problems.push({ message, severity: "error" });
    const sent = Object.keys(request.inputs).sort();
    const wanted = Object.keys(signature.inputs).sort();
    const extra = sent.filter((name) => !(name in signature.inputs));
    const missing = wanted.filter((name) => !(name in request.inputs));
    if (extra.length > 0 || missing.length > 0) {
        error(`its inputs {${sent.join(", ")}} are not signature "${request.signatureName}"'s {${wanted.join(", ")}}`
            + `${extra.length > 0 ? `: extra ${extra.join(", ")}` : ""}${missing.length > 0 ? `${extra.length > 0 ? "," : ":"} missing ${missing.join(", ")}` : ""}`);
    }
    for (const name of sent.filter((n) => n in signature.inputs)) {
        const problem = tensorProblem(request.inputs[name], signature.inputs[name]);
        if (problem !== undefined) {
            problems.push({ ...problem, message: `input "${name}" ${problem.message}` });
        }
    }
    const unknownOutputs = request.outputFilter.filter((name) => !(name in signature.outputs));
    if (unknownOutputs.length > 0) {
        error(`its output_filter names ${unknownOutputs.join(", ")}, not among signature "${request.signatureName}"'s outputs (${Object.keys(signature.outputs).join(", ")})`);
    }
    return problems;
}

/** A recorded tensor against the signature's: the same dtype (TF Serving refuses another), and the same rank and known dimensions (it does not check them). */
function tensorProblem(tensor: RecordedTensor, spec: TensorSpec): Finding | undefined {
    if (tensor.dtype !== spec.dtype) {
        return { message: `is ${tensor.dtype}, but the signature expects ${spec.dtype}`, severity: "error" };
    }
    if (spec.shape === null || tensor.shape === null) {
        return undefined;
    }
    const shown = (dims: number[]): string => `[${dims.join(", ")}]`;
    const graph = "TF Serving does not check shapes, but the graph may fail on it, and then the load fails";
    if (tensor.shape.length !== spec.shape.length) {
        return { message: `has shape ${shown(tensor.shape)} (rank ${tensor.shape.length}), but the signature says rank ${spec.shape.length} (${shown(spec.shape)}, -1 any size): ${graph}`, severity: "warning" };
    }
    const bad = spec.shape.findIndex((size, i) => size >= 0 && tensor.shape![i] !== size);
    return bad < 0 ? undefined : { message: `has shape ${shown(tensor.shape)}, but the signature fixes dimension ${bad} at ${spec.shape[bad]} (${shown(spec.shape)}): ${graph}`, severity: "warning" };
}
