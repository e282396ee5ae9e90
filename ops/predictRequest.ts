/**
 * Pure pieces of a TF Serving REST predict call: reading the `/metadata` answer into plain
 * signatures, and building a one-example `:predict` body from a signature.
 */
import { FLOAT_DTYPES, INT_DTYPES, PredictRequestBody, predictBodyProblem, SignatureSpec } from "../contract/signature";
import { UnsupportedSignatureError } from "../model/tensorJson";

export type { PredictRequestBody } from "../contract/signature";

export { UnsupportedSignatureError } from "../model/tensorJson";
export { parseModelMetadata } from "../contract/modelMetadata";
export type { ModelMetadata } from "../contract/modelMetadata";

/** One made-up element of `dtype`; `name` matters for strings, since TF Serving treats inputs ending in `_bytes` as base64. */
export function exampleElement(dtype: string, name: string): unknown {
    if (FLOAT_DTYPES.has(dtype)) {
        return 1.0;
    }
    if (INT_DTYPES.has(dtype)) {
        return 1;
    }
    if (dtype === "DT_BOOL") {
        return true;
    }
    if (dtype === "DT_STRING") {
        return name.endsWith("_bytes") ? { b64: "" } : "";
    }
    throw new UnsupportedSignatureError(
        `input "${name}" has dtype ${dtype}, which has no JSON form to make an example from`,
    );
}

/** A dense nested list of `dims` (unknown sizes taken as 1) filled with `element`. */
function fill(dims: number[], element: unknown): unknown {
    if (dims.length === 0) {
        return element;
    }
    const size = dims[0] < 0 ? 1 : dims[0];
    return Array.from({ length: size }, () => fill(dims.slice(1), element));
}

/**
 * A batch of one example for `signature`: row format (`instances`), one value (or one object of
 * named values) per example, the batch dimension dropped; an input of unknown rank gets a scalar
 * per example. A known scalar input has no batch dimension, which rows cannot express, so then
 * the whole body uses the columnar format (`inputs`) with each tensor in full.
 */
export function buildPredictRequest(signatureName: string, signature: SignatureSpec): PredictRequestBody {
    const entries = Object.entries(signature.inputs);
    if (entries.length === 0) {
        throw new UnsupportedSignatureError(`signature "${signatureName}" has no inputs`);
    }
    const elements = entries.map(([name, spec]) => [name, exampleElement(spec.dtype, name)] as const);
    const hasScalarInput = entries.some(([, spec]) => spec.shape !== null && spec.shape.length === 0);
    if (hasScalarInput) {
        const inputs: Record<string, unknown> = {};
        entries.forEach(([name, spec], i) => {
            inputs[name] = spec.shape === null ? [elements[i][1]] : fill(spec.shape, elements[i][1]);
        });
        return { signature_name: signatureName, inputs };
    }
    const perExample = entries.map(([, spec], i) => (spec.shape === null ? elements[i][1] : fill(spec.shape.slice(1), elements[i][1])));
    if (entries.length === 1) {
        return { signature_name: signatureName, instances: [perExample[0]] };
    }
    const instance: Record<string, unknown> = {};
    entries.forEach(([name], i) => {
        instance[name] = perExample[i];
    });
    return { signature_name: signatureName, instances: [instance] };
}

/**
 * Reads a user-supplied `:predict` body (the text of `path`); throws naming the file and what
 * TF Serving would reject.
 */
export function parsePredictRequestFile(text: string, path: string): PredictRequestBody {
    let body: unknown;
    try {
        body = JSON.parse(text);
    } catch (err) {
        throw new Error(`${path} is not JSON (${(err as Error).message}); write a predict body such as {"instances": [[1.0]]}`);
    }
    const problem = predictBodyProblem(body);
    if (problem !== undefined) {
        throw new Error(`${path} ${problem}`);
    }
    return body as PredictRequestBody;
}
