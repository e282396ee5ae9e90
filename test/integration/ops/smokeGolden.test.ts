import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { readGoldenFile } from "../../../contract/golden";
import { GoldenInput } from "../../../ops/goldenSmoke";
import { grpcSmoke } from "../../../ops/grpcSmoke";
import { smoke, SMOKE_EXIT_CODES, SmokeUsageError } from "../../../ops/smoke";
import { FakeTfServing } from "../../support/fakeTfServingGrpc";
import { runTfs } from "../../support/tfsCommand";
import { BUILD_TIMEOUT_MS, fixtureArgs, standinBinary, startTfServing, TfServing } from "../../support/tfServingStandin";

const USAGE_EXIT = 2;
/** The cases the e2e sends (test/e2e/canary.test.ts), and one in columnar form. */
const GOLDEN = [
    { name: "three rows", request: { instances: [1, 2, 5] }, expected: { y: [2.5, 3, 4.5] }, tolerance: { atol: 1e-6 } },
    { name: "as the serving version", request: { signature_name: "serving_default", instances: [10, -4] } },
    { name: "columnar", request: { inputs: { x: [[1], [3]] } }, expected: { y: [[2.5], [3.5]] } },
];
/** half_plus_three's answers: a file written for another model. */
const GOLDEN_OF_THREE = [
    { name: "one row", request: { instances: [0] }, expected: { y: [3] } },
    { name: "three rows", request: { instances: [1, 2, 5] }, expected: { y: [3.5, 4, 5.5] } },
];
const jsonLines = (cases: unknown[]) => cases.map((c) => JSON.stringify(c)).join("\n") + "\n";

/**
 * `tfs smoke --golden` against the tensorflow_model_server stand-in serving half_plus_two from its
 * real graph (test/support/tfServingStandin.ts), over REST and gRPC; the CLI as a child process for
 * exit codes and what it prints, the ops functions in process for the report.
 */
describe("tfs smoke --golden", function () {
    this.timeout(120_000);
    let server: TfServing;
    let dir: string;
    before(async function () {
        this.timeout(BUILD_TIMEOUT_MS);
        standinBinary();
        server = await startTfServing({ args: fixtureArgs("half_plus_two_cpu", "half_plus_two") });
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-golden-"));
    });
    after(async () => {
        await server?.close();
        fs.rmSync(dir, { recursive: true, force: true });
    });

    const file = (name: string, text: string) => {
        const p = path.join(dir, name);
        fs.writeFileSync(p, text);
        return p;
    };
    const golden = (name: string, cases: unknown[]): GoldenInput => {
        const p = file(name, jsonLines(cases));
        return { file: p, cases: readGoldenFile(p) };
    };
    const rest = (g: GoldenInput) => smoke({ restUrl: server.url, model: "half_plus_two", timeoutMs: 20_000, golden: g });
    const grpc = (g: GoldenInput) => grpcSmoke({ grpcEndpoint: server.grpcEndpoint, tls: false, model: "half_plus_two", timeoutMs: 20_000, golden: g });
    const tfs = (args: string[]) => runTfs(["smoke", ...args, "--model", "half_plus_two", "--timeout", "20"]);
    const restArgs = () => ["--url", server.url];
    const grpcArgs = () => ["--grpc", "--url", server.grpcEndpoint];

    it("has its own exit code, after the others", () => {
        assert.strictEqual(SMOKE_EXIT_CODES["golden-mismatch"], 6);
        assert.strictEqual(new Set(Object.values(SMOKE_EXIT_CODES)).size, Object.keys(SMOKE_EXIT_CODES).length);
        assert.ok(!Object.values(SMOKE_EXIT_CODES).includes(USAGE_EXIT));
    });

    for (const [transport, send] of [["REST", rest], ["gRPC", grpc]] as const) {
        it(`${transport}: every case answers as expected, each with its worst difference; a case without expected outputs only has to answer`, async () => {
            const g = golden(`pass-${transport}.jsonl`, GOLDEN);
            const report = await send(g);
            assert.strictEqual(report.outcome, "ok", report.message);
            assert.strictEqual(report.exitCode, 0);
            assert.strictEqual(report.message, `3 cases of ${g.file} answered as expected by model "half_plus_two"`);
            assert.deepStrictEqual(report.golden?.cases.map((c) => [c.name, c.line, c.ok, c.compared]),
                [["three rows", 1, true, true], ["as the serving version", 2, true, false], ["columnar", 3, true, true]]);
            assert.deepStrictEqual(report.golden?.cases.map((c) => c.text), [
                `case "three rows" (${g.file}:1): ok, worst |difference| y 0 (atol 0.000001, rtol 0.00001)`,
                `case "as the serving version" (${g.file}:2): answered (no expected outputs to compare; outputs y)`,
                `case "columnar" (${g.file}:3): ok, worst |difference| y 0 (atol 0.000001, rtol 0.00001)`,
            ]);
            assert.strictEqual(report.request, undefined, "no single request of its own");
        });

        it(`${transport}: a case that answers otherwise is golden-mismatch, naming the case, the output, the expected and the received values`, async () => {
            const g = golden(`three-${transport}.jsonl`, GOLDEN_OF_THREE);
            const report = await send(g);
            assert.strictEqual(report.outcome, "golden-mismatch", report.message);
            assert.strictEqual(report.exitCode, SMOKE_EXIT_CODES["golden-mismatch"]);
            assert.deepStrictEqual([report.golden?.differed, report.golden?.passed, report.golden?.failed], [2, 0, 0]);
            assert.strictEqual(report.golden?.cases[1].text,
                `case "three rows" (${g.file}:2): output "y" at [0]: expected 3.5, received 2.5 (worst |difference| 1, atol 0.000001, rtol 0.00001)`);
            const [y] = report.golden?.cases[1].outputs ?? [];
            assert.deepStrictEqual([y.at, y.expected, y.received, y.worst, y.mismatches], [[0], 3.5, 2.5, 1, 3]);
        });

        it(`${transport}: a case naming an unknown input is refused before any case is sent, listing every problem`, async () => {
            const g = golden(`unknown-${transport}.jsonl`, [
                { name: "good", request: { instances: [1] }, expected: { y: [2.5] } },
                { name: "typo", request: { instances: [{ xx: 1 }] } },
                { name: "other", request: { signature_name: "serving_defualt", instances: [1] } },
            ]);
            await assert.rejects(send(g), (err: Error) => {
                assert.ok(err instanceof SmokeUsageError, err.message);
                const lines = err.message.split("\n");
                assert.strictEqual(lines[0], `${g.file} does not fit model "half_plus_two"'s signatures; nothing was sent:`);
                assert.match(lines[1], new RegExp(`^${g.file}:2: case "typo": instance 0 has input "xx", which signature "serving_default" does not have \\(did you mean "x"\\?\\)`));
                assert.match(lines[3], new RegExp(`^${g.file}:3: case "other": signature "serving_defualt" is not the model's \\(did you mean "serving_default"\\?\\)`));
                return true;
            });
        });
    }

    it("REST: a case TF Serving answers with an error is a predict error (exit 5), its line giving the server's error", async () => {
        // "abc" is no serialized tf.Example: TF Serving cannot parse it, and the stand-in does not run ParseExample at all.
        const g = golden("refused.jsonl", [
            { name: "good", request: { instances: [1] }, expected: { y: [2.5] } },
            { name: "not an Example", request: { signature_name: "regress_x_to_y", instances: ["abc"] } },
        ]);
        const report = await rest(g);
        assert.strictEqual(report.outcome, "predict-error", report.message);
        assert.strictEqual(report.exitCode, 5);
        assert.deepStrictEqual([report.golden?.passed, report.golden?.failed], [1, 1]);
        assert.match(report.golden?.cases[1].text ?? "", new RegExp(`^case "not an Example" \\(${g.file}:2\\): predict failed with HTTP \\d+: .*ParseExample`));
    });

    it("gRPC: a case whose Predict fails is a predict error, its line giving the gRPC status", async () => {
        const fake = new FakeTfServing();
        try {
            const g = golden("broken.jsonl", [{ name: "broken", request: { signature_name: "broken", instances: [[1]] }, expected: { y: [[2.5]] } }]);
            const report = await grpcSmoke({ grpcEndpoint: await fake.listen(), tls: false, model: "m", timeoutMs: 5000, golden: g });
            assert.strictEqual(report.outcome, "predict-error", report.message);
            assert.match(report.golden?.cases[0].text ?? "", new RegExp(`^case "broken" \\(${g.file}:1\\): Predict failed with [A-Z_]+: `));
            assert.deepStrictEqual(fake.predictRequests.map((r) => (r.model_spec as { signature_name?: string }).signature_name), ["broken"]);
        } finally {
            fake.close();
        }
    });

    describe("the command", () => {
        it("passes over REST and gRPC: one line per case on stdout, exit 0", async () => {
            const g = file("golden.jsonl", jsonLines(GOLDEN));
            for (const transport of [restArgs(), grpcArgs()]) {
                const run = await tfs([...transport, "--golden", g]);
                assert.strictEqual(run.code, 0, `${transport[0]}: ${run.stdout}${run.stderr}`);
                assert.deepStrictEqual(run.stdout.trim().split("\n"), [
                    `case "three rows" (${g}:1): ok, worst |difference| y 0 (atol 0.000001, rtol 0.00001)`,
                    `case "as the serving version" (${g}:2): answered (no expected outputs to compare; outputs y)`,
                    `case "columnar" (${g}:3): ok, worst |difference| y 0 (atol 0.000001, rtol 0.00001)`,
                    `ok: 3 cases of ${g} answered as expected by model "half_plus_two"`,
                ]);
            }
        });

        it("exits golden-mismatch over REST and gRPC, the case, output, expected and received values in its output", async () => {
            const g = file("golden-of-three.jsonl", jsonLines(GOLDEN_OF_THREE));
            for (const transport of [restArgs(), grpcArgs()]) {
                const run = await tfs([...transport, "--golden", g]);
                assert.strictEqual(run.code, SMOKE_EXIT_CODES["golden-mismatch"], `${transport[0]}: ${run.stdout}${run.stderr}`);
                assert.match(run.stdout, new RegExp(`^case "three rows" \\(${g}:2\\): output "y" at \\[0\\]: expected 3\\.5, received 2\\.5 `, "m"));
                assert.match(run.stderr, new RegExp(`^tfs smoke: golden-mismatch: 2 of 2 cases of ${g} answered otherwise than expected by model "half_plus_two"`, "m"));
            }
        });

        it("carries each case's result in --json", async () => {
            const g = file("json.jsonl", jsonLines(GOLDEN_OF_THREE));
            const run = await tfs([...restArgs(), "--golden", g, "--json"]);
            assert.strictEqual(run.code, SMOKE_EXIT_CODES["golden-mismatch"], run.stderr);
            const report = JSON.parse(run.stdout);
            assert.strictEqual(report.outcome, "golden-mismatch");
            assert.deepStrictEqual(report.golden.cases.map((c: { name: string; ok: boolean }) => [c.name, c.ok]), [["one row", false], ["three rows", false]]);
            assert.deepStrictEqual(report.golden.cases[1].outputs[0].tolerance, { kind: "close", atol: 1e-6, rtol: 1e-5 });
        });

        it("refuses a golden file that does not parse in one line naming file:line, exit 2, before any request", async () => {
            const g = file("bad.jsonl", `${JSON.stringify(GOLDEN[0])}\n{"request": {"instances": [1]}, "tolerance": {"atol": -1}}\n`);
            for (const transport of [restArgs(), ["--grpc", "--url", "127.0.0.1:1"]]) {
                const run = await tfs([...transport, "--golden", g]);
                assert.strictEqual(run.code, USAGE_EXIT, run.stderr);
                assert.strictEqual(run.stdout, "");
                assert.deepStrictEqual(run.stderr.trim().split("\n"), [
                    `tfs: ${g}:2: "tolerance.atol" is -1, negative: a tolerance is a distance, 0 or more (0 asks for equal values) (see docs/guides/model-contract.md#golden-files)`,
                ]);
            }
        });

        it("refuses a case naming an unknown input, exit 2, nothing sent", async () => {
            const g = file("unknown-input.jsonl", jsonLines([{ name: "typo", request: { inputs: { X: [[1]] } }, expected: { y: [[2.5]] } }]));
            for (const transport of [restArgs(), grpcArgs()]) {
                const run = await tfs([...transport, "--golden", g]);
                assert.strictEqual(run.code, USAGE_EXIT, run.stderr);
                assert.match(run.stderr, new RegExp(`^${g}:1: case "typo": "inputs" has input "X", which signature "serving_default" does not have \\(did you mean "x"\\?\\)`, "m"));
                assert.doesNotMatch(run.stderr, /^predict:|at .*\.ts:\d+/m, "refused before the first predict, without a stack trace");
            }
        });

        it("refuses --golden with --input or --signature: each case names its own", async () => {
            const g = file("alone.jsonl", jsonLines(GOLDEN));
            const run = await tfs([...restArgs(), "--golden", g, "--signature", "serving_default"]);
            assert.strictEqual(run.code, USAGE_EXIT);
            assert.match(run.stderr, /--golden .* sends each case's own request .*; drop --signature/);
        });
    });
});
