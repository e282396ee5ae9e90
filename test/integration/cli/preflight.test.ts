import * as assert from "assert";
import { execFile } from "child_process";
import * as path from "path";
import { SAVED_MODELS } from "../../support/fixtures";

const REPO = path.resolve(__dirname, "../../..");
const FIXTURES = SAVED_MODELS;
const TWO_VERSIONS = path.join(FIXTURES, "half_plus_two_2_versions");

interface Run { status: number | null; stdout: string; stderr: string }

/** Runs `node bin/tfs.js preflight ARGS` as a user would, bounded in time. */
function tfsPreflight(...args: string[]): Promise<Run> {
    return new Promise((resolve, reject) => {
        execFile(process.execPath, [path.join(REPO, "bin", "tfs.js"), "preflight", ...args], { cwd: REPO, encoding: "utf8", timeout: 60_000 },
            (err, stdout, stderr) => {
                if (err && typeof err.code !== "number") {
                    reject(err);
                } else {
                    resolve({ status: err ? Number(err.code) : 0, stdout, stderr });
                }
            });
    });
}

function assertNoStackTrace(text: string): void {
    assert.ok(!/^\s+at .+:\d+:\d+\)?$/m.test(text), `stack trace in:\n${text}`);
}

describe("tfs preflight (child process)", function () {
    this.timeout(120_000);
    let runs: Record<"text" | "json" | "missing" | "counter" | "flags" | "badFlag", Run>;

    // Every run starts node and ts-node afresh: start them all at once rather than one per test.
    before(async () => {
        const [text, json, missing, counter, flags, badFlag] = await Promise.all([
            tfsPreflight(TWO_VERSIONS),
            tfsPreflight(TWO_VERSIONS, "--json"),
            tfsPreflight(path.join(FIXTURES, "does-not-exist")),
            tfsPreflight(path.join(FIXTURES, "counter"), "--json"),
            tfsPreflight(TWO_VERSIONS, "--signature", "regress_x_to_y", "--version", "123", "124", "--json"),
            tfsPreflight(path.join(FIXTURES, "half_plus_two_cpu"), "--version", "latest"),
        ]);
        runs = { text, json, missing, counter, flags, badFlag };
    });

    it("exits 0 for a servable model and prints versions, signatures and the verdict", () => {
        const run = runs.text;
        assert.strictEqual(run.status, 0, run.stderr);
        assert.match(run.stdout, /version 124 {2}served/);
        assert.match(run.stdout, /serving_default +predict +x: DT_FLOAT\[-1,1\] -> y: DT_FLOAT\[-1,1\]/);
        assert.match(run.stdout, /^Server tensorflow\/serving:2\.21\.0: TF Serving 2\.21\.0, TensorFlow 2\.21$/m);
        assert.match(run.stdout, /version 124 {2}served .* exported by TensorFlow 1\.1\.0-rc2$/m);
        assert.match(run.stdout, /^OK: TF Serving would serve version 124/m);
        assert.strictEqual(run.stderr, "");
    });

    it("--json prints exactly one JSON object with the documented shape", () => {
        const run = runs.json;
        assert.strictEqual(run.status, 0, run.stderr);
        const report = JSON.parse(run.stdout);
        assert.strictEqual(report.ok, true);
        assert.strictEqual(report.servedVersion, 124);
        assert.deepStrictEqual(report.errors, []);
        assert.deepStrictEqual(report.warnings.map((w: { code: string }) => w.code), ["VERSIONS_NOT_SERVED"]);
        assert.strictEqual(typeof report.warnings[0].message, "string");
        assert.deepStrictEqual(report.versions.map((v: { version: number }) => v.version), [123, 124]);
        const v124 = report.versions[1];
        assert.strictEqual(v124.path, path.join(TWO_VERSIONS, "00000124"));
        assert.strictEqual(v124.graphFile, "saved_model.pb");
        assert.ok(Number.isInteger(v124.sizeBytes) && v124.sizeBytes > 0);
        assert.deepStrictEqual(v124.tags, ["serve"]);
        assert.strictEqual(v124.tensorflowVersion, "1.1.0-rc2");
        assert.strictEqual(v124.tensorflowGitVersion, "unknown");
        assert.deepStrictEqual(report.server, { baseImage: "tensorflow/serving:2.21.0", servingVersion: "2.21.0", tensorflow: "2.21" });
        assert.deepStrictEqual(v124.signatures.serving_default, {
            method: "tensorflow/serving/predict",
            inputs: { x: { dtype: "DT_FLOAT", shape: [-1, 1] } },
            outputs: { y: { dtype: "DT_FLOAT", shape: [-1, 1] } },
        });
    });

    it("exits 1 for a broken model, in text and in JSON, without a stack trace", () => {
        const text = runs.missing;
        assert.strictEqual(text.status, 1);
        assert.match(text.stdout, /^error BASE_NOT_FOUND: /m);
        assert.match(text.stdout, /^FAILED: /m);
        assertNoStackTrace(text.stdout + text.stderr);

        const json = runs.counter;
        assert.strictEqual(json.status, 1);
        const report = JSON.parse(json.stdout);
        assert.strictEqual(report.ok, false);
        assert.deepStrictEqual(report.errors.map((e: { code: string }) => e.code), ["SIGNATURE_MISSING"]);
    });

    it("passes --signature and --version through", () => {
        const run = runs.flags;
        assert.strictEqual(run.status, 0, run.stdout);
        const report = JSON.parse(run.stdout);
        assert.deepStrictEqual(report.servedVersions, [123, 124]);
        assert.strictEqual(report.signature, "regress_x_to_y");
    });

    it("refuses a bad flag value with a usage error, not a stack trace", () => {
        const run = runs.badFlag;
        assert.strictEqual(run.status, 2);
        assert.match(run.stderr, /"latest" is not a version number/);
        assert.strictEqual(run.stdout, "");
        assertNoStackTrace(run.stderr);
    });
});
