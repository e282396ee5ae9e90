/**
 * Golden requests: the answers a model's clients rely on, as JSON lines of `:predict` bodies with
 * the outputs expected from them. Read and bounded here, checked against a version's signatures,
 * and compared with an answer by numpy's allclose rule, so that `tfs smoke --golden`, preparation
 * and the canary judge a version's answers by one rule.
 */
import * as fs from "fs";
import { DEFAULT_SIGNATURE, FLOAT_DTYPES, INT_DTYPES, PredictRequestBody, predictBodyProblem, SignatureSpec } from "./signature";
import { closest } from "./spelling";

/** As many cases as TF Serving replays from a warmup file (saved_model_warmup_util.h), so one file can feed both. */
export const GOLDEN_MAX_CASES = 1000;
export const GOLDEN_MAX_BYTES = 16 * 1024 * 1024;
/** One case is one request: TF Serving's REST answers of a few MiB are already slow to compare. */
export const GOLDEN_MAX_LINE_BYTES = 1024 * 1024;

/** numpy.allclose's rtol, and an atol fit for float32 outputs near 1 (numpy's 1e-8 is below float32's resolution). */
export const DEFAULT_ATOL = 1e-6;
export const DEFAULT_RTOL = 1e-5;

const SEE = "(see docs/guides/model-contract.md#golden-files)";

/** How one output is compared: `|received - expected| <= atol + rtol * |expected|` elementwise, or the same class per row. */
export type Tolerance = { kind: "close"; atol: number; rtol: number } | { kind: "argmax" };

export interface GoldenCase {
    /** 1-based line in the file. */
    line: number;
    /** The case's `name`, or "line N". */
    name: string;
    /** `request.signature_name`, or `serving_default` as TF Serving's REST API takes it. */
    signatureName: string;
    request: PredictRequestBody;
    /** Expected outputs by name, columnar (nested lists as REST's "outputs" and gRPC's tensors hold them). */
    expected?: Record<string, unknown>;
    /** The tolerance for `output`: its own, else the case's, else the defaults. */
    tolerance: (output: string) => Tolerance;
    /** The outputs the case's `tolerance` names, each with its own. */
    toleranceByOutput: Readonly<Record<string, Tolerance>>;
}

/** A golden file that cannot be used: one line, "<file>:<line>: what is wrong; the fix (see ...)". */
export class GoldenError extends Error {
    constructor(message: string) {
        super(message);
        this.name = "GoldenError";
    }
}

/** Reads a golden file, refusing one over GOLDEN_MAX_BYTES before reading it; throws GoldenError. */
export function readGoldenFile(file: string): GoldenCase[] {
    const source = readGoldenSource(file);
    return parseGolden(source.text, source.file);
}

/** A golden file's text, bounded before it is read whole; `name` is how messages name it (default `file`). Throws GoldenError. */
export function readGoldenSource(file: string, name = file): GoldenSource {
    let size: number;
    try {
        size = fs.statSync(file).size;
    } catch (err) {
        throw new GoldenError(`${name}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); point it at a JSON lines file of golden cases ${SEE}`);
    }
    if (size > GOLDEN_MAX_BYTES) {
        throw new GoldenError(tooLarge(name, size));
    }
    return { file: name, text: fs.readFileSync(file, "utf8") };
}

function tooLarge(file: string, bytes: number): string {
    return `${file}: ${mib(bytes)} MiB, more than the ${mib(GOLDEN_MAX_BYTES)} MiB a golden file may hold; keep fewer or smaller cases ${SEE}`;
}

function mib(bytes: number): string {
    return String(Math.round((bytes / 2 ** 20) * 10) / 10);
}

const CASE_KEYS = ["name", "request", "expected", "tolerance"];
const TOLERANCE_KEYS = ["atol", "rtol", "argmax"];

/** Parses a golden file's text (`file` names it in messages); throws GoldenError at the first problem. */
export function parseGolden(text: string, file: string): GoldenCase[] {
    const bytes = Buffer.byteLength(text, "utf8");
    if (bytes > GOLDEN_MAX_BYTES) {
        throw new GoldenError(tooLarge(file, bytes));
    }
    const cases: GoldenCase[] = [];
    const lineOfName = new Map<string, number>();
    text.split("\n").forEach((raw, i) => {
        const line = i + 1;
        const fail = (what: string): never => {
            throw new GoldenError(`${file}:${line}: ${what} ${SEE}`);
        };
        const content = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
        if (content.trim() === "") {
            return;
        }
        const lineBytes = Buffer.byteLength(content, "utf8");
        if (lineBytes > GOLDEN_MAX_LINE_BYTES) {
            fail(`the case is ${mib(lineBytes)} MiB, more than the ${mib(GOLDEN_MAX_LINE_BYTES)} MiB one line may hold; split its examples over several cases`);
        }
        if (cases.length === GOLDEN_MAX_CASES) {
            fail(`more than ${GOLDEN_MAX_CASES} cases, the most a golden file may hold; keep the cases that tell versions apart`);
        }
        if (content.trimStart().startsWith("#")) {
            fail("JSON lines have no comments; remove the line (a case can carry a \"name\" instead)");
        }
        let json: unknown;
        try {
            json = JSON.parse(content);
        } catch (err) {
            fail(`not JSON (${(err as Error).message}); write one case per line, such as {"request": {"instances": [[1.0]]}, "expected": {"y": [[2.5]]}}`);
        }
        if (!isPlainObject(json)) {
            fail("a case must be a JSON object with \"request\" (and \"expected\", \"tolerance\", \"name\" if wanted)");
        }
        const entry = json as Record<string, unknown>;
        for (const key of Object.keys(entry).filter((k) => !CASE_KEYS.includes(k))) {
            fail(`unknown key "${key}"${didYouMean(key, CASE_KEYS)}; a case has ${CASE_KEYS.join(", ")}`);
        }
        let name = `line ${line}`;
        if ("name" in entry) {
            if (typeof entry.name !== "string" || entry.name.trim() === "") {
                fail("\"name\" must be a non-empty string, or be left out for \"line N\"");
            }
            name = entry.name as string;
            const first = lineOfName.get(name);
            if (first !== undefined) {
                fail(`the name "${name}" is already line ${first}'s; give each case its own name`);
            }
            lineOfName.set(name, line);
        }
        if (!("request" in entry)) {
            fail("no \"request\"; give the :predict body to send, such as {\"instances\": [[1.0]]}");
        }
        const bodyProblem = predictBodyProblem(entry.request);
        if (bodyProblem !== undefined) {
            fail(`"request" ${bodyProblem}`);
        }
        const request = entry.request as PredictRequestBody;
        const expected = "expected" in entry ? readExpected(entry.expected, fail) : undefined;
        const { byOutput, fallback } = readTolerance(entry.tolerance, fail);
        const tolerance = (output: string): Tolerance => byOutput[output] ?? fallback;
        for (const [output, value] of Object.entries(expected ?? {})) {
            if (tolerance(output).kind === "argmax") {
                const shape = denseShape(value);
                if (Array.isArray(shape) && shape.length === 0) {
                    fail(`expected "${output}" is a scalar, but argmax compares the largest entry along the last axis; use atol/rtol for it`);
                }
                const leaf = firstLeaf(value, (v) => typeof v !== "number");
                if (leaf !== undefined) {
                    fail(`expected "${output}"${indexText(leaf.at)} is ${JSON.stringify(leaf.value)}, but argmax compares numbers (scores)`);
                }
            }
        }
        cases.push({
            line, name, signatureName: request.signature_name ?? DEFAULT_SIGNATURE, request,
            ...(expected === undefined ? {} : { expected }), tolerance, toleranceByOutput: byOutput,
        });
    });
    return cases;
}

function readExpected(value: unknown, fail: (what: string) => never): Record<string, unknown> {
    if (!isPlainObject(value) || Object.keys(value as object).length === 0) {
        fail("\"expected\" must be an object of outputs by name, such as {\"y\": [[2.5]]}; leave it out to check only that the case answers");
    }
    for (const [output, tensor] of Object.entries(value as Record<string, unknown>)) {
        const shape = denseShape(tensor);
        if (typeof shape === "string") {
            fail(`expected "${output}" ${shape}`);
        }
    }
    return value as Record<string, unknown>;
}

/**
 * `tolerance`: atol/rtol/argmax for every output, and objects of them by output name; an output's
 * own keys override the case's, which override the defaults.
 */
function readTolerance(value: unknown, fail: (what: string) => never): { byOutput: Record<string, Tolerance>; fallback: Tolerance } {
    const defaults: Tolerance = { kind: "close", atol: DEFAULT_ATOL, rtol: DEFAULT_RTOL };
    if (value === undefined) {
        return { byOutput: {}, fallback: defaults };
    }
    if (!isPlainObject(value)) {
        fail("\"tolerance\" must be an object, such as {\"atol\": 1e-6, \"rtol\": 1e-5} or {\"scores\": {\"argmax\": true}}");
    }
    const spec = value as Record<string, unknown>;
    const own = Object.fromEntries(Object.entries(spec).filter(([k]) => TOLERANCE_KEYS.includes(k)));
    const fallback = toleranceOf(own, defaults, "tolerance", fail);
    const byOutput: Record<string, Tolerance> = {};
    for (const [output, fields] of Object.entries(spec).filter(([k]) => !TOLERANCE_KEYS.includes(k))) {
        if (!isPlainObject(fields)) {
            fail(`"tolerance" has "${output}": ${JSON.stringify(fields)}, which is neither ${TOLERANCE_KEYS.join(", ")}${didYouMean(output, TOLERANCE_KEYS)} `
                + `nor an output's own object such as {"${output}": {"atol": 0.01}}`);
        }
        const unknown = Object.keys(fields as object).find((k) => !TOLERANCE_KEYS.includes(k));
        if (unknown !== undefined) {
            fail(`"tolerance.${output}" has unknown key "${unknown}"${didYouMean(unknown, TOLERANCE_KEYS)}; an output's tolerance has ${TOLERANCE_KEYS.join(", ")}`);
        }
        byOutput[output] = toleranceOf(fields as Record<string, unknown>, fallback, `tolerance.${output}`, fail);
    }
    return { byOutput, fallback };
}

function toleranceOf(fields: Record<string, unknown>, inherited: Tolerance, where: string, fail: (what: string) => never): Tolerance {
    if ("argmax" in fields && typeof fields.argmax !== "boolean") {
        fail(`"${where}.argmax" must be true or false`);
    }
    if (fields.argmax === true && ("atol" in fields || "rtol" in fields)) {
        fail(`"${where}" has argmax with atol/rtol: argmax compares classes, atol and rtol compare values; keep one`);
    }
    for (const key of ["atol", "rtol"].filter((k) => k in fields)) {
        const v = fields[key];
        if (typeof v !== "number" || !Number.isFinite(v)) {
            fail(`"${where}.${key}" is ${JSON.stringify(v)}; it must be a finite number, 0 or more, such as 1e-6`);
        }
        if ((v as number) < 0) {
            fail(`"${where}.${key}" is ${v}, negative: a tolerance is a distance, 0 or more (0 asks for equal values)`);
        }
    }
    if (fields.argmax === true) {
        return { kind: "argmax" };
    }
    const base = inherited.kind === "close" ? inherited : { atol: DEFAULT_ATOL, rtol: DEFAULT_RTOL };
    return {
        kind: "close",
        atol: (fields.atol as number | undefined) ?? base.atol,
        rtol: (fields.rtol as number | undefined) ?? base.rtol,
    };
}

/** A golden file's text, with the name messages give it (the path as the user wrote it). */
export interface GoldenSource {
    file: string;
    text: string;
}

/**
 * Every reason `source` cannot serve as a model's golden cases: the first thing that stops it
 * parsing, or each case that a served version (`served`: each one's signatures) would refuse. One
 * line each, "<file>:<line>: ...". The one check the stack's preparation and `ModelServer` run.
 */
export function goldenIssues(source: GoldenSource, served: Record<string, SignatureSpec>[]): string[] {
    let cases: GoldenCase[];
    try {
        cases = parseGolden(source.text, source.file);
    } catch (err) {
        if (err instanceof GoldenError) {
            return [err.message];
        }
        throw err;
    }
    return [...new Set(served.flatMap((signatures) => goldenProblems(cases, signatures, source.file)))];
}

// --- Against a version's signatures ---------------------------------------------------------

/**
 * What TF Serving would refuse, or what could never match, in each case against `signatures` (a
 * served version's, or an endpoint's /metadata): an unknown signature, input or output, a missing
 * input, a value of the wrong JSON type for its dtype, argmax on an output that has no classes.
 * One line per problem, "<file>:<line>: ...".
 */
export function goldenProblems(cases: GoldenCase[], signatures: Record<string, SignatureSpec>, file: string): string[] {
    const problems: string[] = [];
    for (const c of cases) {
        const say = (what: string) => problems.push(`${file}:${c.line}: ${c.name === `line ${c.line}` ? "" : `case "${c.name}": `}${what} ${SEE}`);
        const signature = signatures[c.signatureName];
        if (signature === undefined) {
            const known = Object.keys(signatures).filter((n) => !n.startsWith("__saved_model_")).sort();
            say(`signature "${c.signatureName}" is not the model's${didYouMean(c.signatureName, known)} (its signatures: ${known.join(", ") || "none"}); `
                + "set the request's \"signature_name\" to one of them");
            continue;
        }
        for (const problem of inputProblems(c.request, signature, c.signatureName)) {
            say(problem);
        }
        const outputs = Object.keys(signature.outputs).sort();
        const checkOutput = (output: string, what: string): boolean => {
            if (output in signature.outputs) {
                return true;
            }
            say(`${what} "${output}" is not an output of signature "${c.signatureName}"${didYouMean(output, outputs)} (its outputs: ${outputs.join(", ") || "none"})`);
            return false;
        };
        for (const [output, value] of Object.entries(c.expected ?? {})) {
            if (checkOutput(output, "expected")) {
                const problem = valueProblem(value, signature.outputs[output].dtype);
                if (problem !== undefined) {
                    say(`expected "${output}"${problem}`);
                }
            }
        }
        Object.keys(c.toleranceByOutput).forEach((output) => checkOutput(output, "tolerance for"));
        const compared = new Set([...Object.keys(c.expected ?? {}), ...Object.keys(c.toleranceByOutput)]);
        for (const output of [...compared].filter((o) => o in signature.outputs && c.tolerance(o).kind === "argmax")) {
            const spec = signature.outputs[output];
            if (!FLOAT_DTYPES.has(spec.dtype) || (spec.shape !== null && spec.shape.length === 0)) {
                say(`argmax for "${output}" needs scores, a float output of rank 1 or more, but it is ${spec.dtype} of shape ${shapeText(spec.shape)}; compare it with atol/rtol`);
            }
        }
    }
    return problems;
}

/** Each input the request gives, by name, as the list of values it holds (one per row, or the whole tensor). */
function inputProblems(request: PredictRequestBody, signature: SignatureSpec, signatureName: string): string[] {
    const names = Object.keys(signature.inputs).sort();
    const problems: string[] = [];
    const isNamed = (v: unknown): v is Record<string, unknown> => isPlainObject(v) && !(names.length === 1 && isB64(v));
    const given: { name: string; value: unknown; where: string }[] = [];
    const takeNamed = (source: Record<string, unknown>, where: string) => {
        for (const key of Object.keys(source)) {
            if (!(key in signature.inputs)) {
                problems.push(`${where} has input "${key}", which signature "${signatureName}" does not have${didYouMean(key, names)} (its inputs: ${names.join(", ") || "none"})`);
            } else {
                given.push({ name: key, value: source[key], where });
            }
        }
        const missing = names.filter((n) => !(n in source));
        if (missing.length > 0) {
            problems.push(`${where} lacks input${missing.length === 1 ? "" : "s"} ${missing.map((n) => `"${n}"`).join(", ")} of signature "${signatureName}"; TF Serving needs every input`);
        }
    };
    const takeBare = (value: unknown, where: string) => {
        if (names.length === 1) {
            given.push({ name: names[0], value, where });
        } else {
            problems.push(`${where} is a bare value, but signature "${signatureName}" has inputs ${names.join(", ")}: write it as an object by input name`);
        }
    };
    if (request.instances !== undefined) {
        request.instances.forEach((row, i) => (isNamed(row) ? takeNamed(row, `instance ${i}`) : takeBare(row, `instance ${i}`)));
    } else if (isNamed(request.inputs)) {
        takeNamed(request.inputs, "\"inputs\"");
    } else {
        takeBare(request.inputs, "\"inputs\"");
    }
    const reported = new Set<string>();
    for (const { name, value, where } of given) {
        const problem = valueProblem(value, signature.inputs[name].dtype);
        // One line per input is enough: the same mistake is usually in every row.
        if (problem !== undefined && !reported.has(name)) {
            reported.add(name);
            problems.push(`${where}, input "${name}"${problem}`);
        }
    }
    return [...new Set(problems)].slice(0, 10);
}

/** What makes `value` (a tensor's JSON) unfit for `dtype`, as " at [0][1]: ... ", or undefined. */
function valueProblem(value: unknown, dtype: string): string | undefined {
    const want = FLOAT_DTYPES.has(dtype) ? { test: (v: unknown) => typeof v === "number", what: "a number" }
        : INT_DTYPES.has(dtype) ? { test: (v: unknown) => Number.isInteger(v), what: "an integer" }
            : dtype === "DT_BOOL" ? { test: (v: unknown) => typeof v === "boolean", what: "true or false" }
                : dtype === "DT_STRING" ? { test: (v: unknown) => typeof v === "string" || isB64(v), what: "a string or {\"b64\": ...}" }
                    : undefined;
    if (want === undefined) {
        return undefined;
    }
    const leaf = firstLeaf(value, (v) => !want.test(v));
    return leaf === undefined ? undefined : `${indexText(leaf.at)} is ${JSON.stringify(leaf.value)}, but the tensor is ${dtype}: write ${want.what}`;
}

// --- Answers ----------------------------------------------------------------------------------

/** The name restOutputs gives the output of a single-output answer when neither the signature nor the case names it. */
export const ONLY_OUTPUT = "(only output)";

/**
 * A REST `:predict` answer as columnar outputs by name. Row format (`predictions`): a list per
 * instance, each the output's value for a single-output signature or an object by output name;
 * columnar (`outputs`): the value of the single output or an object by output name. TF Serving
 * leaves a single output unnamed: it is named from `outputNames` (the signature's), else from the
 * case's one expected output, else ONLY_OUTPUT. Throws for an answer that is neither.
 */
export function restOutputs(c: GoldenCase, response: unknown, outputNames?: string[]): Record<string, unknown> {
    const single = outputNames?.length === 1 ? outputNames[0]
        : c.expected !== undefined && Object.keys(c.expected).length === 1 ? Object.keys(c.expected)[0] : ONLY_OUTPUT;
    const multi = outputNames === undefined ? undefined : outputNames.length > 1;
    const named = (v: unknown): v is Record<string, unknown> => isPlainObject(v) && !isB64(v) && multi !== false;
    if (!isPlainObject(response)) {
        throw new Error("the answer is not a JSON object");
    }
    const body = response as Record<string, unknown>;
    if (typeof body.error === "string") {
        throw new Error(`the answer is an error: ${body.error}`);
    }
    if (Array.isArray(body.predictions)) {
        const rows = body.predictions;
        if (rows.length > 0 && rows.every(named)) {
            const keys = Object.keys(rows[0]).sort();
            const out: Record<string, unknown> = {};
            for (const key of keys) {
                out[key] = rows.map((row, i) => {
                    if (!(key in row)) {
                        throw new Error(`prediction ${i} lacks output "${key}" that prediction 0 has`);
                    }
                    return row[key];
                });
            }
            return out;
        }
        return { [single]: rows };
    }
    if ("outputs" in body) {
        return named(body.outputs) ? { ...body.outputs } : { [single]: body.outputs };
    }
    throw new Error(`the answer has neither "predictions" nor "outputs" (its keys: ${Object.keys(body).join(", ") || "none"})`);
}

/** One output's comparison: the worst difference (or, for argmax, the rows whose class differs) and the first failing element. */
export interface OutputDiff {
    output: string;
    ok: boolean;
    /** The largest |received - expected| (Infinity where a NaN or an infinity differs); for argmax, the rows whose class differs. */
    worst: number;
    tolerance: Tolerance;
    /** Elements (argmax: rows) that were compared, and how many failed. */
    compared: number;
    mismatches: number;
    /** Values compared exactly (strings, booleans) rather than within a tolerance. */
    exact: boolean;
    /** The first failing element's index (argmax: the row's). */
    at?: number[];
    expected?: unknown;
    received?: unknown;
    /** Why nothing could be compared element by element: a missing output, different shapes. */
    why?: string;
}

export interface CaseResult {
    case: GoldenCase;
    ok: boolean;
    outputs: OutputDiff[];
    /** The request failed, or its answer could not be read. */
    error?: string;
}

/**
 * Compares `received` (outputs by name) with `expected` (the case's, or another pod's answer),
 * output by output with the case's tolerances: shapes first, then numbers by numpy's allclose
 * (`|r - e| <= atol + rtol * |e|`; NaN matches NaN, an infinity only itself), strings and booleans
 * exactly; argmax agreement along the last axis, row by row. Outputs received and not expected are
 * not compared.
 */
export function compareOutputs(c: GoldenCase, expected: Record<string, unknown>, received: Record<string, unknown>): CaseResult {
    const outputs = Object.entries(expected).map(([output, value]) => compareOutput(output, value, received, c.tolerance(output)));
    return { case: c, ok: outputs.every((o) => o.ok), outputs };
}

function compareOutput(output: string, expected: unknown, received: Record<string, unknown>, tolerance: Tolerance): OutputDiff {
    const base = { output, tolerance, worst: 0, compared: 0, mismatches: 0, exact: false };
    const failed = (why: string): OutputDiff => ({ ...base, ok: false, worst: Infinity, why });
    if (!(output in received)) {
        return failed(`the answer has no output "${output}" (it has: ${Object.keys(received).sort().join(", ") || "none"})`);
    }
    const want = denseShape(expected);
    const got = denseShape(received[output]);
    if (typeof want === "string") {
        return failed(`the expected value ${want}`);
    }
    if (typeof got === "string") {
        return failed(`the received value ${got}`);
    }
    if (want.length !== got.length || want.some((d, i) => d !== got[i])) {
        return failed(`shape ${shapeText(want)} expected, ${shapeText(got)} received`);
    }
    const e = flatten(expected);
    const r = flatten(received[output]);
    return tolerance.kind === "argmax" ? compareArgmax(base, want, e, r) : compareClose(base, want, e, r, tolerance);
}

type DiffBase = Pick<OutputDiff, "output" | "tolerance" | "worst" | "compared" | "mismatches" | "exact">;

function compareClose(base: DiffBase, shape: number[], e: unknown[], r: unknown[], tolerance: { atol: number; rtol: number }): OutputDiff {
    const diff: OutputDiff = { ...base, ok: true, compared: e.length };
    e.forEach((ev, i) => {
        const en = numeric(ev);
        const rn = numeric(r[i]);
        let d: number;
        let ok: boolean;
        if (en === undefined || rn === undefined) {
            diff.exact = true;
            ok = JSON.stringify(ev) === JSON.stringify(r[i]);
            d = ok ? 0 : Infinity;
        } else if (!Number.isFinite(en) || !Number.isFinite(rn)) {
            ok = Object.is(en, rn) || (Number.isNaN(en) && Number.isNaN(rn)) || en === rn;
            d = ok ? 0 : Infinity;
        } else {
            d = Math.abs(rn - en);
            ok = d <= tolerance.atol + tolerance.rtol * Math.abs(en);
        }
        diff.worst = Math.max(diff.worst, d);
        if (!ok) {
            diff.mismatches++;
            if (diff.ok) {
                Object.assign(diff, { ok: false, at: unravel(i, shape), expected: ev, received: r[i] });
            }
        }
    });
    return diff;
}

function compareArgmax(base: DiffBase, shape: number[], e: unknown[], r: unknown[]): OutputDiff {
    const diff: OutputDiff = { ...base, ok: true };
    if (shape.length === 0) {
        return { ...diff, ok: false, worst: Infinity, why: "argmax needs an output of rank 1 or more, and this one is a scalar" };
    }
    const width = shape[shape.length - 1];
    const rows = width === 0 ? 0 : e.length / width;
    diff.compared = rows;
    for (let row = 0; row < rows; row++) {
        const want = argmax(e.slice(row * width, (row + 1) * width));
        const got = argmax(r.slice(row * width, (row + 1) * width));
        if (want !== got) {
            diff.mismatches++;
            if (diff.ok) {
                Object.assign(diff, { ok: false, at: unravel(row, shape.slice(0, -1)), expected: want, received: got });
            }
        }
    }
    diff.worst = diff.mismatches;
    return diff;
}

/** The index of the first largest number (numpy's argmax); -1 where an entry is not a number, so it never agrees by chance. */
function argmax(values: unknown[]): number {
    let best = -1;
    let bestValue = -Infinity;
    for (const [i, v] of values.entries()) {
        const n = numeric(v);
        if (n === undefined || Number.isNaN(n)) {
            return -1;
        }
        if (best === -1 || n > bestValue) {
            best = i;
            bestValue = n;
        }
    }
    return best;
}

/** A number, or the NaN / Infinity tokens TF Serving writes and smoke reads back as strings; undefined for anything else. */
function numeric(v: unknown): number | undefined {
    if (typeof v === "number") {
        return v;
    }
    return v === "NaN" ? NaN : v === "Infinity" ? Infinity : v === "-Infinity" ? -Infinity : undefined;
}

// --- Tensors as nested lists ------------------------------------------------------------------

/** The shape of a dense nested list (a scalar has []), or what makes it ragged, as a phrase. */
export function denseShape(value: unknown): number[] | string {
    const shape: number[] = [];
    for (let v = value; Array.isArray(v); v = v[0]) {
        shape.push(v.length);
    }
    const check = (v: unknown, depth: number, at: number[]): string | undefined => {
        if (depth === shape.length) {
            return Array.isArray(v) ? `is not a dense list:${indexText(at)} is a list where its siblings are values` : undefined;
        }
        if (!Array.isArray(v) || v.length !== shape[depth]) {
            return `is not a dense list:${indexText(at)} should be a list of ${shape[depth]} like the first at its depth`;
        }
        for (let i = 0; i < v.length; i++) {
            const problem = check(v[i], depth + 1, [...at, i]);
            if (problem !== undefined) {
                return problem;
            }
        }
        return undefined;
    };
    return check(value, 0, []) ?? shape;
}

function flatten(value: unknown): unknown[] {
    return Array.isArray(value) ? value.flatMap(flatten) : [value];
}

function unravel(flat: number, shape: number[]): number[] {
    const at: number[] = [];
    for (let d = shape.length - 1; d >= 0; d--) {
        at.unshift(flat % shape[d]);
        flat = Math.floor(flat / shape[d]);
    }
    return at;
}

/** The first leaf (non-list) of a nested list that `bad` picks, with its index. */
function firstLeaf(value: unknown, bad: (v: unknown) => boolean, at: number[] = []): { at: number[]; value: unknown } | undefined {
    if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
            const found = firstLeaf(value[i], bad, [...at, i]);
            if (found !== undefined) {
                return found;
            }
        }
        return undefined;
    }
    return bad(value) ? { at, value } : undefined;
}

/** " at [0][1]", or "" for the value itself. */
function indexText(at: number[]): string {
    return at.length === 0 ? "" : ` at ${at.map((i) => `[${i}]`).join("")}`;
}

function shapeText(shape: number[] | null): string {
    return shape === null ? "unknown" : `[${shape.join(", ")}]`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
    return v !== null && typeof v === "object" && !Array.isArray(v);
}

function isB64(v: unknown): boolean {
    return isPlainObject(v) && Object.keys(v).length === 1 && typeof v.b64 === "string";
}

function didYouMean(name: string, candidates: string[]): string {
    const near = closest(name, candidates, Math.max(2, Math.floor(name.length / 3)));
    return near === undefined || near === name ? "" : ` (did you mean "${near}"?)`;
}
