import * as assert from "assert";
import { compareOutputs, GoldenCase, parseGolden } from "../../../contract/golden";
import { caseLine, CaseAnswer, goldenOutcome, runGoldenCases } from "../../../ops/goldenSmoke";

const FILE = "golden.jsonl";
const parse = (...cases: unknown[]) => parseGolden(cases.map((c) => JSON.stringify(c)).join("\n"), FILE);

describe("tfs smoke --golden's judging and wording (ops/goldenSmoke.ts)", () => {
    describe("caseLine", () => {
        it("says ok with each output's worst difference and its tolerance", () => {
            const [c] = parse({ name: "two", request: { instances: [1] }, expected: { y: [1, 2], z: [0] }, tolerance: { z: { atol: 0.5 } } });
            assert.strictEqual(caseLine(compareOutputs(c, c.expected ?? {}, { y: [1, 2.000001], z: [0.25] }), FILE, ["y", "z"]),
                `case "two" (${FILE}:1): ok, worst |difference| y ${Math.abs(2.000001 - 2)} (atol 0.000001, rtol 0.00001), z 0.25 (atol 0.5, rtol 0.00001)`);
        });

        it("says how many rows differ for argmax, and exact for strings", () => {
            const [c] = parse({ request: { instances: [1] }, expected: { scores: [[0.1, 0.9]], label: ["cat"] }, tolerance: { scores: { argmax: true } } });
            assert.strictEqual(caseLine(compareOutputs(c, c.expected ?? {}, { scores: [[0.4, 0.6]], label: ["cat"] }), FILE, []),
                `case "line 1" (${FILE}:1): ok, worst |difference| scores 0 of 1 rows differ (argmax), label 0 (exact)`);
        });

        it("says a case without expected outputs answered, with the outputs it answered", () => {
            const [c] = parse({ name: "any", request: { instances: [1] } });
            assert.strictEqual(caseLine({ case: c, ok: true, outputs: [] }, FILE, ["z", "y"]),
                `case "any" (${FILE}:1): answered (no expected outputs to compare; outputs y, z)`);
        });

        it("words a failure as the canary does: the output, where, expected and received", () => {
            const [c] = parse({ name: "wrong", request: { instances: [1] }, expected: { y: [2.5] } });
            assert.strictEqual(caseLine(compareOutputs(c, { y: [2.5] }, { y: [3.5] }), FILE, ["y"]),
                `case "wrong" (${FILE}:1): output "y" at [0]: expected 2.5, received 3.5 (worst |difference| 1, atol 0.000001, rtol 0.00001)`);
        });
    });

    describe("runGoldenCases and goldenOutcome", () => {
        const cases = parse(
            { name: "a", request: { instances: [1] }, expected: { y: [2.5] } },
            { name: "b", request: { instances: [2] }, expected: { y: [3] } },
            { name: "c", request: { instances: [3] } },
        );
        const run = (answers: Record<string, CaseAnswer>) => {
            const sent: string[] = [];
            return runGoldenCases({ file: FILE, cases }, async (c: GoldenCase) => {
                sent.push(c.name);
                return answers[c.name];
            }, () => undefined).then((report) => ({ report, sent }));
        };
        const good = { a: { outputs: { y: [2.5] } }, b: { outputs: { y: [3] } }, c: { outputs: { y: [3.5] } } };

        it("sends every case in file order and counts the passed", async () => {
            const { report, sent } = await run(good);
            assert.deepStrictEqual(sent, ["a", "b", "c"]);
            assert.deepStrictEqual([report.passed, report.differed, report.failed], [3, 0, 0]);
            assert.deepStrictEqual(report.cases.map((c) => [c.name, c.line, c.ok, c.compared]), [["a", 1, true, true], ["b", 2, true, true], ["c", 3, true, false]]);
            assert.deepStrictEqual(goldenOutcome(report, "m"), { outcome: "ok", message: `3 cases of ${FILE} answered as expected by model "m"` });
        });

        it("is golden-mismatch when a case answers otherwise, and goes on to the next case", async () => {
            const { report, sent } = await run({ ...good, a: { outputs: { y: [9] } } });
            assert.deepStrictEqual(sent, ["a", "b", "c"]);
            assert.deepStrictEqual([report.passed, report.differed, report.failed], [2, 1, 0]);
            assert.strictEqual(goldenOutcome(report, "m").outcome, "golden-mismatch");
            assert.strictEqual(goldenOutcome(report, "m").message, `1 of 3 cases of ${FILE} answered otherwise than expected by model "m" (each case's line says how)`);
        });

        it("is a predict error when a case got no answer, even beside a difference", async () => {
            const { report } = await run({ ...good, a: { outputs: { y: [9] } }, b: { error: "predict failed with HTTP 400: bad" } });
            assert.deepStrictEqual([report.passed, report.differed, report.failed], [1, 1, 1]);
            assert.strictEqual(report.cases[1].text, `case "b" (${FILE}:2): predict failed with HTTP 400: bad`);
            assert.strictEqual(report.cases[1].error, "predict failed with HTTP 400: bad");
            assert.strictEqual(goldenOutcome(report, "m").outcome, "predict-error");
        });

        it("sends no case once the deadline has passed, reporting each unsent one as failed", async () => {
            const sent: string[] = [];
            const report = await runGoldenCases({ file: FILE, cases }, async (c) => {
                sent.push(c.name);
                return good[c.name as keyof typeof good];
            }, () => undefined, Date.now() - 1);
            assert.deepStrictEqual(sent, []);
            assert.strictEqual(report.failed, 3);
            assert.strictEqual(report.cases[0].text, `case "a" (${FILE}:1): not sent: the run's --timeout had passed (raise --timeout for a file of many cases)`);
            assert.strictEqual(goldenOutcome(report, "m").outcome, "predict-error");
        });

        it("says case, not cases, for one", async () => {
            const report = await runGoldenCases({ file: FILE, cases: cases.slice(0, 1) }, async () => good.a, () => undefined);
            assert.strictEqual(goldenOutcome(report, "m").message, `1 case of ${FILE} answered as expected by model "m"`);
        });
    });
});
