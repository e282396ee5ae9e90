import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import {
    compareOutputs,
    DEFAULT_ATOL,
    DEFAULT_RTOL,
    GOLDEN_MAX_BYTES,
    GOLDEN_MAX_CASES,
    GOLDEN_MAX_LINE_BYTES,
    GoldenCase,
    GoldenError,
    goldenProblems,
    ONLY_OUTPUT,
    parseGolden,
    readGoldenFile,
    restOutputs,
} from "../../../contract/golden";
import { SignatureSpec } from "../../../contract/signature";

const FILE = "golden.jsonl";
const SEE = "(see docs/guides/model-contract.md#golden-files)";
const lines = (...cases: unknown[]) => cases.map((c) => (typeof c === "string" ? c : JSON.stringify(c))).join("\n");
const REQUEST = { instances: [1] };

/** The GoldenError `text` raises, which must name the file and `line` and cite the docs. */
function refusal(text: string, line: number): string {
    let message: string | undefined;
    try {
        parseGolden(text, FILE);
    } catch (err) {
        assert.ok(err instanceof GoldenError, `a GoldenError, not ${(err as Error).name}: ${(err as Error).message}`);
        message = err.message;
    }
    assert.ok(message !== undefined, "the file was accepted");
    assert.ok(message.startsWith(`${FILE}:${line}: `), `names ${FILE}:${line}: ${message}`);
    assert.ok(message.endsWith(SEE), `cites the docs: ${message}`);
    assert.doesNotMatch(message, /\n/, "one line");
    return message;
}

/** The one case of a one-line file. */
const only = (entry: unknown): GoldenCase => {
    const cases = parseGolden(lines(entry), FILE);
    assert.strictEqual(cases.length, 1);
    return cases[0];
};

describe("golden files (contract/golden.ts)", () => {
    describe("parseGolden: what a case is", () => {
        it("reads each non-blank line as a case: its line, its name (else \"line N\"), its signature (else serving_default)", () => {
            const cases = parseGolden(lines(
                { name: "one row", request: { instances: [[1.0]] }, expected: { y: [[2.5]] } },
                "",
                "   ",
                { request: { signature_name: "regress", inputs: { x: [1] } } },
            ) + "\r\n", FILE);
            assert.deepStrictEqual(cases.map((c) => [c.line, c.name, c.signatureName]), [[1, "one row", "serving_default"], [4, "line 4", "regress"]]);
            assert.deepStrictEqual(cases[0].expected, { y: [[2.5]] });
            assert.strictEqual("expected" in cases[1], false, "a case without expected outputs has none");
        });

        it("reads a CRLF line as its LF twin", () => {
            assert.strictEqual(parseGolden(`${JSON.stringify({ name: "a", request: REQUEST })}\r\n`, FILE)[0].name, "a");
        });

        it("refuses a line that is not JSON", () => {
            assert.match(refusal(lines({ request: REQUEST }, "{\"request\": {\"instances\": [1]"), 2), /^golden\.jsonl:2: not JSON \(/);
        });

        it("refuses a comment line, which JSON lines do not have", () => {
            assert.match(refusal(lines({ request: REQUEST }, "  # the expected values come from v1"), 2), /JSON lines have no comments/);
        });

        it("refuses a line that is JSON but not an object", () => {
            assert.match(refusal(lines([{ request: REQUEST }]), 1), /a case must be a JSON object/);
            assert.match(refusal(lines("null"), 1), /a case must be a JSON object/);
        });

        it("refuses an unknown key, with the key it is near", () => {
            const message = refusal(lines({ request: REQUEST, expectd: { y: [2.5] } }), 1);
            assert.match(message, /unknown key "expectd" \(did you mean "expected"\?\); a case has name, request, expected, tolerance/);
            assert.doesNotMatch(refusal(lines({ request: REQUEST, weight: 1 }), 1), /did you mean/, "no guess for a key near nothing");
        });

        it("refuses a name given twice, naming the first line that has it", () => {
            assert.match(refusal(lines({ name: "a", request: REQUEST }, "", { name: "a", request: REQUEST }), 3), /the name "a" is already line 1's/);
        });

        it("refuses an empty or non-string name", () => {
            assert.match(refusal(lines({ name: " ", request: REQUEST }), 1), /"name" must be a non-empty string/);
            assert.match(refusal(lines({ name: 3, request: REQUEST }), 1), /"name" must be a non-empty string/);
        });

        it("refuses a case without a request", () => {
            assert.match(refusal(lines({ name: "a", expected: { y: [2.5] } }), 1), /no "request"; give the :predict body to send/);
        });

        it("refuses a request that is not a :predict body", () => {
            assert.match(refusal(lines({ request: [1] }), 1), /"request" must hold a JSON object with "instances" or "inputs"/);
            assert.match(refusal(lines({ request: { instances: [1], inputs: [1] } }), 1), /"request" must have exactly one of "instances" \(row format\) or "inputs"/);
            assert.match(refusal(lines({ request: {} }), 1), /"request" must have exactly one of "instances"/);
            assert.match(refusal(lines({ request: { instances: [] } }), 1), /"request" must have "instances" as a non-empty list/);
            assert.match(refusal(lines({ request: { signature_name: 1, instances: [1] } }), 1), /"request" must have "signature_name" as a string/);
        });

        it("refuses expected outputs that are not an object of outputs by name", () => {
            assert.match(refusal(lines({ request: REQUEST, expected: [2.5] }), 1), /"expected" must be an object of outputs by name/);
            assert.match(refusal(lines({ request: REQUEST, expected: {} }), 1), /"expected" must be an object of outputs by name/);
        });

        it("refuses a ragged expected output, naming where it breaks", () => {
            assert.match(refusal(lines({ request: REQUEST, expected: { y: [[1, 2], [3]] } }), 1),
                /expected "y" is not a dense list: at \[1\] should be a list of 2 like the first at its depth/);
            assert.match(refusal(lines({ request: REQUEST, expected: { y: [[1], 2] } }), 1), /expected "y" is not a dense list: at \[1\]/);
            assert.match(refusal(lines({ request: REQUEST, expected: { y: [1, [2]] } }), 1),
                /expected "y" is not a dense list: at \[1\] is a list where its siblings are values/);
        });
    });

    describe("parseGolden: tolerances", () => {
        it("defaults to atol 1e-6 and rtol 1e-5 for every output", () => {
            assert.deepStrictEqual([DEFAULT_ATOL, DEFAULT_RTOL], [1e-6, 1e-5]);
            assert.deepStrictEqual(only({ request: REQUEST }).tolerance("y"), { kind: "close", atol: 1e-6, rtol: 1e-5 });
        });

        it("takes an output's own keys over the case's, and the case's over the defaults", () => {
            const c = only({ request: REQUEST, tolerance: { atol: 0.1, y: { rtol: 0.2 }, scores: { argmax: true } } });
            assert.deepStrictEqual(c.tolerance("y"), { kind: "close", atol: 0.1, rtol: 0.2 });
            assert.deepStrictEqual(c.tolerance("z"), { kind: "close", atol: 0.1, rtol: DEFAULT_RTOL });
            assert.deepStrictEqual(c.tolerance("scores"), { kind: "argmax" });
            assert.deepStrictEqual(Object.keys(c.toleranceByOutput).sort(), ["scores", "y"]);
        });

        it("refuses a negative tolerance, and takes 0", () => {
            assert.match(refusal(lines({ request: REQUEST, tolerance: { atol: -1e-6 } }), 1), /"tolerance\.atol" is -0\.000001, negative: a tolerance is a distance, 0 or more/);
            assert.match(refusal(lines({ request: REQUEST, tolerance: { y: { rtol: -1 } } }), 1), /"tolerance\.y\.rtol" is -1, negative/);
            assert.deepStrictEqual(only({ request: REQUEST, tolerance: { atol: 0, rtol: 0 } }).tolerance("y"), { kind: "close", atol: 0, rtol: 0 });
        });

        it("refuses a tolerance that is not a finite number (NaN as a string, an overflowing 1e999, a string)", () => {
            assert.match(refusal(lines({ request: REQUEST, tolerance: { atol: "NaN" } }), 1), /"tolerance\.atol" is "NaN"; it must be a finite number/);
            assert.match(refusal(lines("{\"request\": {\"instances\": [1]}, \"tolerance\": {\"rtol\": 1e999}}"), 1), /"tolerance\.rtol" is null; it must be a finite number/);
            assert.match(refusal(lines({ request: REQUEST, tolerance: { y: { atol: "0.1" } } }), 1), /"tolerance\.y\.atol" is "0\.1"; it must be a finite number/);
        });

        it("refuses an unknown key in an output's tolerance, with the key it is near", () => {
            assert.match(refusal(lines({ request: REQUEST, tolerance: { y: { atoll: 0.1 } } }), 1),
                /"tolerance\.y" has unknown key "atoll" \(did you mean "atol"\?\); an output's tolerance has atol, rtol, argmax/);
        });

        it("refuses a misspelt case-wide key (read as an output) whose value is not an output's object", () => {
            assert.match(refusal(lines({ request: REQUEST, tolerance: { rtool: 0.1 } }), 1),
                /"tolerance" has "rtool": 0\.1, which is neither atol, rtol, argmax \(did you mean "rtol"\?\)/);
        });

        it("refuses a tolerance that is not an object", () => {
            assert.match(refusal(lines({ request: REQUEST, tolerance: 0.1 }), 1), /"tolerance" must be an object/);
        });

        it("refuses argmax with atol or rtol, and argmax that is not a boolean", () => {
            assert.match(refusal(lines({ request: REQUEST, tolerance: { argmax: true, atol: 0.1 } }), 1), /"tolerance" has argmax with atol\/rtol/);
            assert.match(refusal(lines({ request: REQUEST, tolerance: { y: { argmax: true, rtol: 0.1 } } }), 1), /"tolerance\.y" has argmax with atol\/rtol/);
            assert.match(refusal(lines({ request: REQUEST, tolerance: { argmax: "yes" } }), 1), /"tolerance\.argmax" must be true or false/);
        });

        it("refuses argmax on a scalar expected output", () => {
            assert.match(refusal(lines({ request: REQUEST, expected: { y: 3 }, tolerance: { argmax: true } }), 1),
                /expected "y" is a scalar, but argmax compares the largest entry along the last axis/);
        });

        it("refuses argmax on an expected output of strings, naming the first", () => {
            assert.match(refusal(lines({ request: REQUEST, expected: { y: [[0.1, "b"]] }, tolerance: { y: { argmax: true } } }), 1),
                /expected "y" at \[0\]\[1\] is "b", but argmax compares numbers/);
            assert.doesNotThrow(() => only({ request: REQUEST, expected: { y: [[0.1, 0.9]] }, tolerance: { y: { argmax: true } } }));
        });
    });

    describe("parseGolden and readGoldenFile: bounds", () => {
        const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "golden-test-"));
        after(() => fs.rmSync(tmp, { recursive: true, force: true }));

        it("takes 1000 cases and refuses the 1001st, at its line", () => {
            assert.strictEqual(GOLDEN_MAX_CASES, 1000);
            const many = Array.from({ length: GOLDEN_MAX_CASES }, () => lines({ request: REQUEST }));
            assert.strictEqual(parseGolden(many.join("\n"), FILE).length, 1000);
            assert.match(refusal([...many, lines({ request: REQUEST })].join("\n"), 1001), /more than 1000 cases, the most a golden file may hold/);
        });

        /** A case line of exactly `bytes` bytes. */
        const lineOf = (bytes: number) => {
            const empty = JSON.stringify({ name: "", request: REQUEST });
            return JSON.stringify({ name: "n".repeat(bytes - empty.length), request: REQUEST });
        };

        it("takes a line of 1 MiB and refuses one a byte longer, at its line", () => {
            assert.strictEqual(GOLDEN_MAX_LINE_BYTES, 2 ** 20);
            assert.strictEqual(Buffer.byteLength(lineOf(GOLDEN_MAX_LINE_BYTES)), GOLDEN_MAX_LINE_BYTES);
            assert.strictEqual(parseGolden(lineOf(GOLDEN_MAX_LINE_BYTES), FILE).length, 1);
            assert.match(refusal(lines({ request: REQUEST }, lineOf(GOLDEN_MAX_LINE_BYTES + 1)), 2), /the case is 1 MiB, more than the 1 MiB one line may hold; split its examples/);
        });

        it("refuses a file over 16 MiB before reading it, naming the file", () => {
            assert.strictEqual(GOLDEN_MAX_BYTES, 16 * 2 ** 20);
            const big = path.join(tmp, "big.jsonl");
            fs.writeFileSync(big, "");
            fs.truncateSync(big, GOLDEN_MAX_BYTES + 1);
            assert.throws(() => readGoldenFile(big), (err: Error) => err instanceof GoldenError
                && err.message === `${big}: 16 MiB, more than the 16 MiB a golden file may hold; keep fewer or smaller cases ${SEE}`);
        });

        it("refuses a far larger file by its size, never reading it (3 GiB, sparse)", () => {
            const huge = path.join(tmp, "huge.jsonl");
            fs.writeFileSync(huge, "");
            fs.truncateSync(huge, 3 * 2 ** 30);
            assert.throws(() => readGoldenFile(huge), (err: Error) => err instanceof GoldenError && err.message.startsWith(`${huge}: 3072 MiB, more than the 16 MiB`));
            fs.rmSync(huge);
        });

        it("refuses text over 16 MiB given to parseGolden, too", () => {
            assert.throws(() => parseGolden("\n".repeat(GOLDEN_MAX_BYTES + 1), FILE), /^GoldenError: golden\.jsonl: 16 MiB, more than the 16 MiB/);
        });

        it("reads a file within the bounds, and names a file it cannot read", () => {
            const good = path.join(tmp, "good.jsonl");
            fs.writeFileSync(good, `${lines({ name: "a", request: REQUEST })}\n`);
            assert.deepStrictEqual(readGoldenFile(good).map((c) => c.name), ["a"]);
            assert.throws(() => readGoldenFile(path.join(tmp, "missing.jsonl")), (err: Error) => err instanceof GoldenError
                && err.message.startsWith(`${path.join(tmp, "missing.jsonl")}: cannot read it (ENOENT)`));
        });
    });

    describe("goldenProblems: a file against a version's signatures", () => {
        const f = (shape: number[] | null) => ({ dtype: "DT_FLOAT", shape });
        const SIGNATURES: Record<string, SignatureSpec> = {
            serving_default: {
                method: "tensorflow/serving/predict",
                inputs: { x: f([-1]) },
                outputs: { y: f([-1]), scores: f([-1, 3]), classes: { dtype: "DT_INT64", shape: [-1] }, total: f([]) },
            },
            mixed: {
                method: "tensorflow/serving/predict",
                inputs: { count: { dtype: "DT_INT32", shape: [-1] }, word: { dtype: "DT_STRING", shape: [-1] }, flag: { dtype: "DT_BOOL", shape: [-1] } },
                outputs: { out: f([-1]) },
            },
            __saved_model_init_op: { method: "", inputs: {}, outputs: {} },
        };
        const problems = (...entries: unknown[]) => goldenProblems(parseGolden(lines(...entries), FILE), SIGNATURES, FILE);

        it("finds nothing in cases that fit, row and columnar", () => {
            assert.deepStrictEqual(problems(
                { request: { instances: [1, 2] }, expected: { y: [2.5, 3], scores: [[0, 1, 0], [1, 0, 0]] }, tolerance: { scores: { argmax: true } } },
                { request: { inputs: { x: [1] } } },
                { request: { signature_name: "mixed", instances: [{ count: 1, word: "a", flag: true }, { count: 2, word: { b64: "YQ==" }, flag: false }] } },
            ), []);
        });

        it("names an unknown signature with the one it is near, and lists the model's (not TensorFlow's own)", () => {
            assert.deepStrictEqual(problems({ name: "a", request: { signature_name: "serving_defualt", instances: [1] } }), [
                `${FILE}:1: case "a": signature "serving_defualt" is not the model's (did you mean "serving_default"?) (its signatures: mixed, serving_default); `
                + `set the request's "signature_name" to one of them ${SEE}`,
            ]);
        });

        it("names an unknown input with the one it is near, and the input then missing", () => {
            assert.deepStrictEqual(problems({ request: { instances: [{ xx: 1 }] } }), [
                `${FILE}:1: instance 0 has input "xx", which signature "serving_default" does not have (did you mean "x"?) (its inputs: x) ${SEE}`,
                `${FILE}:1: instance 0 lacks input "x" of signature "serving_default"; TF Serving needs every input ${SEE}`,
            ]);
        });

        it("names a missing input of a columnar request", () => {
            assert.deepStrictEqual(problems({ request: { signature_name: "mixed", inputs: { count: [1], word: ["a"] } } }), [
                `${FILE}:1: "inputs" lacks input "flag" of signature "mixed"; TF Serving needs every input ${SEE}`,
            ]);
        });

        it("refuses a bare value for a signature of several inputs", () => {
            assert.match(problems({ request: { signature_name: "mixed", instances: [1] } })[0], /instance 0 is a bare value, but signature "mixed" has inputs count, flag, word/);
        });

        it("names a value of the wrong JSON type for its dtype, once per input, with where it is", () => {
            assert.deepStrictEqual(problems({ request: { instances: [[1, "a"], [2, "b"]] } }), [
                `${FILE}:1: instance 0, input "x" at [1] is "a", but the tensor is DT_FLOAT: write a number ${SEE}`,
            ]);
            const mixed = problems({ request: { signature_name: "mixed", inputs: { count: [1.5], word: [3], flag: [1] } } });
            assert.deepStrictEqual(mixed.map((p) => p.replace(` ${SEE}`, "")), [
                `${FILE}:1: "inputs", input "count" at [0] is 1.5, but the tensor is DT_INT32: write an integer`,
                `${FILE}:1: "inputs", input "word" at [0] is 3, but the tensor is DT_STRING: write a string or {"b64": ...}`,
                `${FILE}:1: "inputs", input "flag" at [0] is 1, but the tensor is DT_BOOL: write true or false`,
            ]);
        });

        it("names an expected output (or a tolerance's) the signature does not have, with the one it is near", () => {
            assert.deepStrictEqual(problems({ request: REQUEST, expected: { yy: [2.5] }, tolerance: { scores: { argmax: true }, clases: { atol: 1 } } }), [
                `${FILE}:1: expected "yy" is not an output of signature "serving_default" (did you mean "y"?) (its outputs: classes, scores, total, y) ${SEE}`,
                `${FILE}:1: tolerance for "clases" is not an output of signature "serving_default" (did you mean "classes"?) (its outputs: classes, scores, total, y) ${SEE}`,
            ]);
        });

        it("names an expected output whose values do not fit its dtype", () => {
            assert.deepStrictEqual(problems({ request: REQUEST, expected: { classes: [1.5] } }), [
                `${FILE}:1: expected "classes" at [0] is 1.5, but the tensor is DT_INT64: write an integer ${SEE}`,
            ]);
        });

        it("refuses argmax on an output that holds no scores: not a float, or a scalar", () => {
            assert.deepStrictEqual(problems({ request: REQUEST, expected: { classes: [1] }, tolerance: { classes: { argmax: true } } }), [
                `${FILE}:1: argmax for "classes" needs scores, a float output of rank 1 or more, but it is DT_INT64 of shape [-1]; compare it with atol/rtol ${SEE}`,
            ]);
            assert.match(problems({ request: REQUEST, tolerance: { total: { argmax: true } } })[0], /argmax for "total" needs scores, .* but it is DT_FLOAT of shape \[\]/);
        });
    });

    describe("restOutputs: an answer as outputs by name", () => {
        const c = (expected?: Record<string, unknown>) => only({ request: REQUEST, ...(expected ? { expected } : {}) });

        it("row format, one output: names it from the signature", () => {
            assert.deepStrictEqual(restOutputs(c(), { predictions: [2.5, 3] }, ["y"]), { y: [2.5, 3] });
        });

        it("row format, one output and no signature: names it from the case's one expected output, else ONLY_OUTPUT", () => {
            assert.deepStrictEqual(restOutputs(c({ z: [1] }), { predictions: [[2.5]] }), { z: [[2.5]] });
            assert.deepStrictEqual(restOutputs(c(), { predictions: [[2.5]] }), { [ONLY_OUTPUT]: [[2.5]] });
        });

        it("row format, several outputs: each output's values stacked by row", () => {
            assert.deepStrictEqual(restOutputs(c(), { predictions: [{ a: 1, b: [1, 2] }, { a: 2, b: [3, 4] }] }, ["a", "b"]), { a: [1, 2], b: [[1, 2], [3, 4]] });
            assert.throws(() => restOutputs(c(), { predictions: [{ a: 1, b: 2 }, { a: 2 }] }, ["a", "b"]), /prediction 1 lacks output "b" that prediction 0 has/);
        });

        it("row format, one output of bytes: a {b64} value is the output's value, not outputs by name", () => {
            assert.deepStrictEqual(restOutputs(c(), { predictions: [{ b64: "AA==" }] }, ["image"]), { image: [{ b64: "AA==" }] });
            assert.deepStrictEqual(restOutputs(c({ image: [{ b64: "AA==" }] }), { predictions: [{ b64: "AA==" }] }), { image: [{ b64: "AA==" }] }, "without the signature too");
        });

        it("columnar, one output and several", () => {
            assert.deepStrictEqual(restOutputs(c(), { outputs: [[2.5], [3]] }, ["y"]), { y: [[2.5], [3]] });
            assert.deepStrictEqual(restOutputs(c(), { outputs: { a: [1], b: ["x"] } }, ["a", "b"]), { a: [1], b: ["x"] });
        });

        it("refuses an error answer, one that is not an object, and one with neither predictions nor outputs", () => {
            assert.throws(() => restOutputs(c(), { error: "Input to reshape is a tensor with 2 values" }, ["y"]), /^Error: the answer is an error: Input to reshape/);
            assert.throws(() => restOutputs(c(), [1], ["y"]), /the answer is not a JSON object/);
            assert.throws(() => restOutputs(c(), { result: [1] }, ["y"]), /the answer has neither "predictions" nor "outputs" \(its keys: result\)/);
        });
    });

    describe("compareOutputs: answers against expected outputs", () => {
        const withTolerance = (tolerance: unknown) => only({ request: REQUEST, tolerance });

        it("passes |d| == atol + rtol*|e| and fails just above it (atol 0.5, rtol 0.25, e 2: the bound is 1)", () => {
            const c = withTolerance({ atol: 0.5, rtol: 0.25 });
            const at = (e: number, r: number) => compareOutputs(c, { y: [e] }, { y: [r] });
            assert.strictEqual(at(2, 3).ok, true);
            assert.strictEqual(at(2, 1).ok, true);
            assert.strictEqual(at(2, 3 + 2 ** -40).ok, false);
            assert.strictEqual(at(-2, -3).ok, true, "rtol scales |expected|, also for a negative one");
            assert.strictEqual(at(2, 3).outputs[0].worst, 1);
        });

        it("scales rtol by the expected value, not the received one (numpy's allclose is not symmetric)", () => {
            const c = withTolerance({ atol: 0, rtol: 0.4 });
            assert.strictEqual(compareOutputs(c, { y: [2] }, { y: [2.9] }).ok, false, "0.9 > 0.4 * 2, though 0.9 <= 0.4 * 2.9");
        });

        it("applies the defaults: 1e-6 + 1e-5 * |e|", () => {
            const c = only({ request: REQUEST });
            assert.strictEqual(compareOutputs(c, { y: [1] }, { y: [1 + 1.05e-5] }).ok, true);
            assert.strictEqual(compareOutputs(c, { y: [1] }, { y: [1 + 1.2e-5] }).ok, false);
        });

        it("uses each output's own tolerance", () => {
            const c = withTolerance({ y: { atol: 1 } });
            const result = compareOutputs(c, { y: [1], z: [1] }, { y: [1.9], z: [1.9] });
            assert.deepStrictEqual(result.outputs.map((o) => [o.output, o.ok]), [["y", true], ["z", false]]);
            assert.strictEqual(result.ok, false);
        });

        it("reports the worst difference, the first failing index and its values, and how many failed", () => {
            const result = compareOutputs(only({ request: REQUEST }), { y: [[1, 2], [3, 4]] }, { y: [[1, 2.5], [3, 6]] });
            const [y] = result.outputs;
            assert.strictEqual(result.ok, false);
            assert.deepStrictEqual({ worst: y.worst, at: y.at, expected: y.expected, received: y.received, compared: y.compared, mismatches: y.mismatches },
                { worst: 2, at: [0, 1], expected: 2, received: 2.5, compared: 4, mismatches: 2 });
        });

        it("fails different shapes before comparing any value", () => {
            const [y] = compareOutputs(only({ request: REQUEST }), { y: [1, 2] }, { y: [[1, 2]] }).outputs;
            assert.deepStrictEqual([y.ok, y.why, y.worst], [false, "shape [2] expected, [1, 2] received", Infinity]);
            const [same] = compareOutputs(only({ request: REQUEST }), { y: [[1, 2]] }, { y: [[1], [2]] }).outputs;
            assert.deepStrictEqual([same.ok, same.why], [false, "shape [1, 2] expected, [2, 1] received"], "the same values and rank, other dimensions");
        });

        it("fails an expected output the answer lacks, and ignores outputs not expected", () => {
            const result = compareOutputs(only({ request: REQUEST }), { y: [1] }, { z: [1], w: [2] });
            assert.strictEqual(result.outputs[0].why, "the answer has no output \"y\" (it has: w, z)");
            assert.strictEqual(compareOutputs(only({ request: REQUEST }), { y: [1] }, { y: [1], z: [9] }).ok, true);
        });

        it("compares strings exactly, whatever the tolerance", () => {
            const c = withTolerance({ atol: 100 });
            assert.strictEqual(compareOutputs(c, { label: ["cat", "dog"] }, { label: ["cat", "dog"] }).ok, true);
            const [label] = compareOutputs(c, { label: ["cat", "dog"] }, { label: ["cat", "dogs"] }).outputs;
            assert.deepStrictEqual([label.ok, label.exact, label.at, label.expected, label.received], [false, true, [1], "dog", "dogs"]);
        });

        it("takes NaN as equal to NaN, and an infinity only as itself", () => {
            const c = only({ request: REQUEST });
            assert.strictEqual(compareOutputs(c, { y: ["NaN", 1, "Infinity"] }, { y: ["NaN", 1, "Infinity"] }).ok, true);
            const nan = compareOutputs(c, { y: ["NaN"] }, { y: [1] }).outputs[0];
            assert.deepStrictEqual([nan.ok, nan.worst], [false, Infinity]);
            assert.strictEqual(compareOutputs(c, { y: ["Infinity"] }, { y: ["-Infinity"] }).ok, false);
            assert.strictEqual(compareOutputs(c, { y: [1] }, { y: ["NaN"] }).ok, false);
        });

        it("with argmax, compares the largest entry of each row, and names the first row whose class differs", () => {
            const c = withTolerance({ scores: { argmax: true } });
            const expected = { scores: [[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]] };
            assert.strictEqual(compareOutputs(c, expected, { scores: [[0.4, 0.6], [0.51, 0.49], [0, 1]] }).ok, true, "values far apart, classes the same");
            const [scores] = compareOutputs(c, expected, { scores: [[0.2, 0.7], [0.3, 0.6], [0.6, 0.4]] }).outputs;
            assert.deepStrictEqual({ ok: scores.ok, at: scores.at, expected: scores.expected, received: scores.received, worst: scores.worst, compared: scores.compared },
                { ok: false, at: [1], expected: 0, received: 1, worst: 2, compared: 3 });
        });

        it("with argmax, never agrees with a received row holding NaN, even where its largest number is the expected class", () => {
            const c = withTolerance({ argmax: true });
            assert.strictEqual(compareOutputs(c, { s: [[0.1, 0.9]] }, { s: [["NaN", 1]] }).ok, false);
            assert.strictEqual(compareOutputs(c, { s: [[0.9, 0.1]] }, { s: [[1, "NaN"]] }).ok, false);
        });
    });
});
