/**
 * A SavedModel's signatures as preflight reads them from the graph and a client reads them from
 * TF Serving's `/metadata`: one shape for both, so what preflight checks is what the smoke test calls.
 */

/** The signature REST `:predict` uses when the body names none, and the one preflight requires by default. */
export const DEFAULT_SIGNATURE = "serving_default";

/** Dtypes whose REST JSON values are numbers: floating point, and the integers below. */
export const FLOAT_DTYPES: ReadonlySet<string> = new Set(["DT_FLOAT", "DT_DOUBLE", "DT_HALF", "DT_BFLOAT16"]);
export const INT_DTYPES: ReadonlySet<string> = new Set([
    "DT_INT8", "DT_INT16", "DT_INT32", "DT_INT64", "DT_UINT8", "DT_UINT16", "DT_UINT32", "DT_UINT64",
]);

/** One tensor of a signature: its dtype name ("DT_FLOAT") and shape (null = unknown rank, -1 = unknown size). */
export interface TensorSpec {
    dtype: string;
    shape: number[] | null;
}

/** One SignatureDef: its method name and its named inputs and outputs. */
export interface SignatureSpec {
    method: string;
    inputs: Record<string, TensorSpec>;
    outputs: Record<string, TensorSpec>;
}

/** Signatures TensorFlow writes for itself (`__saved_model_init_op`), not something a client calls. */
export function isInternalSignature(name: string): boolean {
    return name.startsWith("__saved_model_");
}

/** A `:predict` body in row (`instances`) or columnar (`inputs`) format. */
export interface PredictRequestBody {
    signature_name?: string;
    instances?: unknown[];
    inputs?: unknown;
}

/**
 * What TF Serving's REST API would refuse in the shape of a `:predict` body (not its values), as
 * a phrase that follows the body's name ("must have exactly one of ..."); undefined for a usable body.
 */
export function predictBodyProblem(body: unknown): string | undefined {
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
        return "must hold a JSON object with \"instances\" or \"inputs\", such as {\"instances\": [[1.0]]}";
    }
    const request = body as Record<string, unknown>;
    const hasInstances = "instances" in request;
    if (hasInstances === "inputs" in request) {
        return "must have exactly one of \"instances\" (row format) or \"inputs\" (columnar format)";
    }
    if (hasInstances && (!Array.isArray(request.instances) || request.instances.length === 0)) {
        return "must have \"instances\" as a non-empty list, one element per example";
    }
    if ("signature_name" in request && typeof request.signature_name !== "string") {
        return "must have \"signature_name\" as a string";
    }
    return undefined;
}
