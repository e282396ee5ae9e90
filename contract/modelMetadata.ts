/**
 * TF Serving's `GET /v1/models/NAME/metadata` answer read into plain signatures: what `tfs smoke`
 * checks a request against and what the canary's golden check names a single output from.
 */
import { SignatureSpec, TensorSpec } from "./signature";

/** What `GET /v1/models/NAME/metadata` says about the version it answered for. */
export interface ModelMetadata {
    name: string;
    version: string;
    signatures: Record<string, SignatureSpec>;
}

/** Reads the JSON of `GET /v1/models/NAME/metadata`; throws naming the first field that is not as TF Serving writes it. */
export function parseModelMetadata(json: unknown): ModelMetadata {
    const root = asObject(json, "metadata answer");
    const spec = asObject(root.model_spec, "model_spec");
    const defs = asObject(
        asObject(asObject(root.metadata, "metadata").signature_def, "metadata.signature_def").signature_def,
        "metadata.signature_def.signature_def",
    );
    const signatures: Record<string, SignatureSpec> = {};
    for (const [name, def] of Object.entries(defs)) {
        const where = `metadata.signature_def.signature_def.${name}`;
        const sig = asObject(def, where);
        signatures[name] = {
            method: typeof sig.method_name === "string" ? sig.method_name : "",
            inputs: parseTensorMap(sig.inputs, `${where}.inputs`),
            outputs: parseTensorMap(sig.outputs, `${where}.outputs`),
        };
    }
    return { name: String(spec.name ?? ""), version: String(spec.version ?? ""), signatures };
}

function parseTensorMap(json: unknown, where: string): Record<string, TensorSpec> {
    const tensors: Record<string, TensorSpec> = {};
    for (const [name, info] of Object.entries(json === undefined ? {} : asObject(json, where))) {
        const tensor = asObject(info, `${where}.${name}`);
        // No tensor_shape: the export recorded no shape (half_plus_three), which is unknown, not a scalar.
        const shape = tensor.tensor_shape === undefined ? { unknown_rank: true } : asObject(tensor.tensor_shape, `${where}.${name}.tensor_shape`);
        const dims = Array.isArray(shape.dim) ? shape.dim : [];
        tensors[name] = {
            dtype: String(tensor.dtype ?? "DT_INVALID"),
            // int64 sizes arrive as JSON strings ("-1"), the proto3 JSON mapping of int64.
            shape: shape.unknown_rank === true ? null : dims.map((d) => Number(asObject(d, `${where}.${name}.tensor_shape.dim`).size ?? -1)),
        };
    }
    return tensors;
}

function asObject(value: unknown, where: string): Record<string, unknown> {
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
        throw new Error(`${where} is not a JSON object`);
    }
    return value as Record<string, unknown>;
}
