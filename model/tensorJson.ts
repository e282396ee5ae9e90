/**
 * TF Serving's REST `:predict` bodies and their JSON values as TensorProtos (plain objects with the
 * field names of tensor.proto), both ways: what `tfs smoke --grpc` sends and reads, and what a warmup
 * record holds.
 */
import { PredictRequestBody, SignatureSpec } from "../contract/signature";

export type { PredictRequestBody } from "../contract/signature";

/** A signature whose inputs cannot be filled with a made-up example; the user must supply one. */
export class UnsupportedSignatureError extends Error {
    constructor(message: string) {
        super(message);
        this.name = "UnsupportedSignatureError";
    }
}

/** A TensorProto as plain object (field names of tensor.proto). */
export interface TensorObject {
    dtype: string;
    tensor_shape?: { dim?: { size?: string | number }[]; unknown_rank?: boolean };
    tensor_content?: Uint8Array;
    [field: string]: unknown;
}

/** The typed field that holds each dtype's values (tensor.proto's comments). */
const VALUE_FIELDS: Record<string, string> = {
    DT_FLOAT: "float_val", DT_DOUBLE: "double_val", DT_INT32: "int_val", DT_INT16: "int_val", DT_INT8: "int_val",
    DT_UINT8: "int_val", DT_UINT16: "int_val", DT_INT64: "int64_val", DT_UINT32: "uint32_val", DT_UINT64: "uint64_val",
    DT_BOOL: "bool_val", DT_STRING: "string_val",
};

/**
 * A JSON value (a number, string, boolean, `{"b64": ...}` or a dense nested list of them) as a
 * TensorProto of `dtype`. Throws naming `where` for a ragged list or a value of the wrong kind.
 */
export function tensorFromJson(value: unknown, dtype: string, where: string): TensorObject {
    const field = VALUE_FIELDS[dtype];
    if (field === undefined) {
        throw new UnsupportedSignatureError(`${where} has dtype ${dtype}, which this tool cannot write as a TensorProto`);
    }
    const shape: number[] = [];
    for (let v = value; Array.isArray(v); v = v[0]) {
        shape.push(v.length);
    }
    const values: unknown[] = [];
    const walk = (v: unknown, depth: number): void => {
        if (depth < shape.length) {
            if (!Array.isArray(v) || v.length !== shape[depth]) {
                throw new Error(`${where} is not a dense list: every list at depth ${depth} must have ${shape[depth]} elements`);
            }
            v.forEach((e) => walk(e, depth + 1));
            return;
        }
        values.push(leaf(v, dtype, where));
    };
    walk(value, 0);
    return { dtype, tensor_shape: { dim: shape.map((size) => ({ size })) }, [field]: values };
}

function leaf(v: unknown, dtype: string, where: string): unknown {
    if (dtype === "DT_STRING") {
        if (typeof v === "string") {
            return Buffer.from(v, "utf8");
        }
        const b64 = (v as { b64?: unknown } | null)?.b64;
        if (typeof b64 === "string") {
            return Buffer.from(b64, "base64");
        }
    } else if (dtype === "DT_BOOL" ? typeof v === "boolean" : typeof v === "number") {
        return v;
    }
    throw new Error(`${where}: ${JSON.stringify(v)} is not a ${dtype} value`);
}

/** Little-endian readers of tensor_content for the dtypes it is common in. */
const CONTENT_READERS: Record<string, { size: number; read: (view: DataView, offset: number) => number }> = {
    DT_FLOAT: { size: 4, read: (v, o) => v.getFloat32(o, true) },
    DT_DOUBLE: { size: 8, read: (v, o) => v.getFloat64(o, true) },
    DT_INT32: { size: 4, read: (v, o) => v.getInt32(o, true) },
    DT_INT64: { size: 8, read: (v, o) => Number(v.getBigInt64(o, true)) },
};

/**
 * A TensorProto as TF Serving's REST JSON writes it: nested lists by shape (a scalar for no
 * dims), strings as text, int64 as numbers. Fewer values than the shape holds repeat the last
 * (Tensor::FromProto); throws for a dtype it cannot read.
 */
export function tensorToJson(tensor: TensorObject): unknown {
    const dims = (tensor.tensor_shape?.dim ?? []).map((d) => Number(d.size ?? 0));
    const count = dims.reduce((a, b) => a * b, 1);
    let values: unknown[];
    const content = tensor.tensor_content;
    if (content !== undefined && content.length > 0) {
        const reader = CONTENT_READERS[tensor.dtype];
        if (reader === undefined) {
            throw new Error(`an answer tensor of ${tensor.dtype} in tensor_content, which tfs smoke cannot read`);
        }
        const view = new DataView(content.buffer, content.byteOffset, content.byteLength);
        values = Array.from({ length: content.byteLength / reader.size }, (_, i) => reader.read(view, i * reader.size));
    } else {
        const field = VALUE_FIELDS[tensor.dtype];
        if (field === undefined) {
            throw new Error(`an answer tensor of ${tensor.dtype}, which tfs smoke cannot read`);
        }
        values = ((tensor[field] as unknown[] | undefined) ?? []).map((v) =>
            (Buffer.isBuffer(v) ? v.toString("utf8") : typeof v === "string" && tensor.dtype !== "DT_STRING" ? Number(v) : v));
    }
    while (values.length < count) {
        values.push(values.length === 0 ? 0 : values[values.length - 1]);
    }
    let offset = 0;
    const nest = (depth: number): unknown => {
        if (depth === dims.length) {
            return values[offset++];
        }
        return Array.from({ length: dims[depth] }, () => nest(depth + 1));
    };
    return nest(0);
}

/**
 * PredictRequest.inputs for a REST `:predict` body: `instances` rows are stacked into one tensor
 * per input (a batch dimension first), `inputs` are taken whole; dtypes come from the signature.
 */
export function predictInputs(body: PredictRequestBody, signatureName: string, signature: SignatureSpec): Record<string, TensorObject> {
    const names = Object.keys(signature.inputs).sort();
    const tensor = (name: string, value: unknown): TensorObject =>
        tensorFromJson(value, signature.inputs[name].dtype, `input "${name}" of signature "${signatureName}"`);
    const pick = (source: Record<string, unknown>, name: string, what: string): unknown => {
        if (!(name in source)) {
            throw new Error(`${what} lacks input "${name}" of signature "${signatureName}" (its inputs: ${names.join(", ")})`);
        }
        return source[name];
    };
    const isNamed = (v: unknown): v is Record<string, unknown> =>
        v !== null && typeof v === "object" && !Array.isArray(v) && !(names.length === 1 && "b64" in v);
    const out: Record<string, TensorObject> = {};
    if (body.instances !== undefined) {
        for (const name of names) {
            out[name] = tensor(name, body.instances.map((row, i) =>
                (isNamed(row) ? pick(row, name, `instance ${i}`) : names.length === 1 ? row : pick({}, name, `instance ${i}`))));
        }
        return out;
    }
    const inputs = body.inputs;
    for (const name of names) {
        out[name] = tensor(name, isNamed(inputs) ? pick(inputs, name, "\"inputs\"") : names.length === 1 ? inputs : pick({}, name, "\"inputs\""));
    }
    return out;
}
