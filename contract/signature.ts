/**
 * A SavedModel's signatures as preflight reads them from the graph and a client reads them from
 * TF Serving's `/metadata`: one shape for both, so what preflight checks is what the smoke test calls.
 */

/** The signature REST `:predict` uses when the body names none, and the one preflight requires by default. */
export const DEFAULT_SIGNATURE = "serving_default";

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
