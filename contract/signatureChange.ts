/**
 * The contract a served model keeps with its clients: its serving SignatureDefs. Comparing the
 * signatures of the version a stack serves with the version that replaces it tells a change that
 * refuses requests clients already send (breaking) from one they cannot notice (additive).
 *
 * The rules follow what TF Serving checks on a call (predict_util.cc, the REST and gRPC paths alike):
 * a request names a signature (or `serving_default`), feeds exactly that signature's inputs (it
 * refuses a missing or an extra one: "input size does not match signature"), and each fed tensor
 * must have the input's dtype and fit its shape. What a client reads back is the outputs by name.
 * So, for each signature the old version had:
 * - gone, or its method changed: breaking (calls to it are refused, or answered in another form);
 * - an input removed, renamed or added: breaking (the inputs clients send no longer match); one
 *   removed and one added of the same dtype read as a rename;
 * - an input's dtype changed, its rank changed (known to another, or known where it was unknown),
 *   or a known dimension changed (to another size, or to a size where any was accepted): breaking;
 *   a dimension or rank becoming unknown only accepts more: additive;
 * - an output removed, or its dtype or rank changed, or a known dimension changed to another
 *   known size: breaking (what clients read is gone or reshaped); an output added, or a dimension
 *   becoming known or unknown: additive.
 * A signature added is additive. Signatures TensorFlow writes for itself are never compared.
 */
import { SignatureSpec, TensorSpec, isInternalSignature } from "./signature";

export type ChangeKind =
    | "signature-removed" | "signature-added" | "method-changed"
    | "input-removed" | "input-renamed" | "input-added" | "input-dtype" | "input-rank" | "input-dimension" | "input-relaxed"
    | "output-removed" | "output-added" | "output-dtype" | "output-rank" | "output-dimension" | "output-relaxed";

/** One difference between two versions' signatures. */
export interface SignatureChange {
    kind: ChangeKind;
    breaking: boolean;
    signature: string;
    /** The input or output it concerns (for a rename, the old name). */
    tensor?: string;
    /** What changed, in a client's words: `input "x" is renamed to "inputs"`. */
    detail: string;
}

const BREAKING: ReadonlySet<ChangeKind> = new Set<ChangeKind>([
    "signature-removed", "method-changed", "input-removed", "input-renamed", "input-added", "input-dtype", "input-rank", "input-dimension",
    "output-removed", "output-dtype", "output-rank", "output-dimension",
]);

const change = (kind: ChangeKind, signature: string, detail: string, tensor?: string): SignatureChange =>
    ({ kind, breaking: BREAKING.has(kind), signature, tensor, detail });

/** `[-1,3]`, or `unknown rank`. */
export function shapeText(shape: TensorSpec["shape"]): string {
    return shape === null ? "unknown rank" : `[${shape.join(",")}]`;
}

const tensorText = (t: TensorSpec) => `${t.dtype} ${shapeText(t.shape)}`;
const sameTensor = (a: TensorSpec, b: TensorSpec) => a.dtype === b.dtype && shapeText(a.shape) === shapeText(b.shape);

/**
 * How one tensor's shape changed, for `side` ("input" or "output"): the change, or undefined when
 * the shapes are the same. Unknown dimensions are -1; a null shape is an unknown rank.
 */
function shapeChange(side: "input" | "output", signature: string, name: string, before: TensorSpec["shape"], after: TensorSpec["shape"]): SignatureChange | undefined {
    const what = `${side} "${name}"`;
    const moved = `${what} changes shape from ${shapeText(before)} to ${shapeText(after)}`;
    if (shapeText(before) === shapeText(after)) {
        return undefined;
    }
    if (after === null) {
        return change(`${side}-relaxed`, signature, `${moved}: it accepts more than before`, name);
    }
    if (before === null) {
        // An input that took any rank now takes one; an output that said nothing now says more.
        return side === "input" ? change("input-rank", signature, `${moved}: requests of another rank are refused`, name)
            : change("output-relaxed", signature, `${moved}: its shape is now known`, name);
    }
    if (before.length !== after.length) {
        return change(`${side}-rank`, signature, `${moved}: its rank changes from ${before.length} to ${after.length}`, name);
    }
    const narrowed = before.findIndex((d, i) => after[i] !== -1 && d !== after[i] && (d !== -1 || side === "input"));
    if (narrowed >= 0) {
        const was = before[narrowed] === -1 ? "any size" : String(before[narrowed]);
        return change(`${side}-dimension`, signature, `${moved}: dimension ${narrowed} was ${was}, now ${after[narrowed]}`, name);
    }
    return change(`${side}-relaxed`, signature, `${moved}: ${side === "input" ? "it accepts more than before" : "a dimension is now known or unknown"}`, name);
}

/** The changes to one signature's tensors on `side`, with one removed and one added tensor of the same type read as a rename. */
function tensorChanges(side: "input" | "output", signature: string, before: Record<string, TensorSpec>, after: Record<string, TensorSpec>): SignatureChange[] {
    const removed = Object.keys(before).filter((n) => !(n in after)).sort();
    const added = Object.keys(after).filter((n) => !(n in before)).sort();
    const out: SignatureChange[] = [];
    if (side === "input" && removed.length === 1 && added.length === 1 && before[removed[0]].dtype === after[added[0]].dtype) {
        const [was, now] = [before[removed[0]], after[added[0]]];
        const reshaped = sameTensor(was, now) ? "" : ` (its shape changes from ${shapeText(was.shape)} to ${shapeText(now.shape)})`;
        out.push(change("input-renamed", signature, `input "${removed[0]}" is renamed to "${added[0]}"${reshaped}: requests that send "${removed[0]}" are refused`, removed[0]));
    } else {
        out.push(...removed.map((n) => side === "input"
            ? change("input-removed", signature, `input "${n}" (${tensorText(before[n])}) is removed: requests that send it are refused`, n)
            : change("output-removed", signature, `output "${n}" (${tensorText(before[n])}) is removed: clients that read it get nothing`, n)));
        out.push(...added.map((n) => side === "input"
            ? change("input-added", signature, `input "${n}" (${tensorText(after[n])}) is added: requests without it are refused (TF Serving needs every input)`, n)
            : change("output-added", signature, `output "${n}" (${tensorText(after[n])}) is added`, n)));
    }
    for (const name of Object.keys(before).filter((n) => n in after).sort()) {
        const [a, b] = [before[name], after[name]];
        if (a.dtype !== b.dtype) {
            out.push(change(`${side}-dtype`, signature, `${side} "${name}" changes dtype from ${a.dtype} to ${b.dtype}`, name));
            continue;
        }
        const shape = shapeChange(side, signature, name, a.shape, b.shape);
        if (shape !== undefined) {
            out.push(shape);
        }
    }
    return out;
}

/** Every difference between the signatures a client could call in `before` and in `after`, breaking ones first. */
export function compareSignatures(before: Record<string, SignatureSpec>, after: Record<string, SignatureSpec>): SignatureChange[] {
    const names = (s: Record<string, SignatureSpec>) => Object.keys(s).filter((n) => !isInternalSignature(n)).sort();
    const out: SignatureChange[] = [];
    for (const name of names(before)) {
        const [a, b] = [before[name], after[name]];
        if (b === undefined) {
            out.push(change("signature-removed", name, `signature "${name}" is removed: calls to it are refused`));
        } else if (a.method !== b.method) {
            out.push(change("method-changed", name, `signature "${name}" changes method from ${a.method || "(none)"} to ${b.method || "(none)"}`));
        } else {
            out.push(...tensorChanges("input", name, a.inputs, b.inputs), ...tensorChanges("output", name, a.outputs, b.outputs));
        }
    }
    out.push(...names(after).filter((n) => before[n] === undefined).map((n) => change("signature-added", n, `signature "${n}" is added`)));
    return [...out.filter((c) => c.breaking), ...out.filter((c) => !c.breaking)];
}

/** One served version set against another: which old version each new one replaces. */
export interface VersionPair { before: number; after: number }

/**
 * Pairs each served version with the one whose clients it takes:
 * - a version served before and after, with itself (a re-export under the same number);
 * - the highest version, when it is new, with the highest served before: requests that name no
 *   version (REST and gRPC alike) move from that one to it;
 * - any other new version with a version no longer served (the highest below it, else the lowest):
 *   clients that named the old one by a label move over. A new version beside those still served
 *   (an older one added for a label) takes nobody's clients yet and is compared with nothing.
 */
export function replacedVersions(before: number[], after: number[]): VersionPair[] {
    if (before.length === 0 || after.length === 0) {
        return [];
    }
    const old = new Set(before);
    const pairs = new Map<number, number>(after.filter((v) => old.has(v)).map((v) => [v, v]));
    const [highest, oldHighest] = [Math.max(...after), Math.max(...before)];
    if (!pairs.has(highest)) {
        pairs.set(highest, oldHighest);
    }
    const dropped = before.filter((v) => !after.includes(v)).sort((a, b) => a - b);
    for (const v of after.filter((a) => !pairs.has(a))) {
        const below = dropped.filter((d) => d <= v);
        const replaced = below.length > 0 ? below[below.length - 1] : dropped[0];
        if (replaced !== undefined) {
            pairs.set(v, replaced);
        }
    }
    return [...pairs].map(([a, b]) => ({ before: b, after: a })).sort((x, y) => x.after - y.after);
}

/** What one model's served versions change, pair by pair, against those a stack serves now. */
export interface VersionChanges extends VersionPair { changes: SignatureChange[] }

/** The changes of each newly served version against the one it replaces (`replacedVersions`); pairs that change nothing are left out. */
export function servedVersionChanges(before: Record<number, Record<string, SignatureSpec>>, after: Record<number, Record<string, SignatureSpec>>): VersionChanges[] {
    return replacedVersions(Object.keys(before).map(Number), Object.keys(after).map(Number))
        .map((pair) => ({ ...pair, changes: compareSignatures(before[pair.before], after[pair.after]) }))
        .filter((c) => c.changes.length > 0);
}
