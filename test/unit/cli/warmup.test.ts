import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { tfsInProcess } from "../../support/tfsInProcess";
import { preflight } from "../../../model/savedModel";
import { readWarmupFile, WARMUP_FILE } from "../../../model/warmup";

const MODEL = path.resolve(__dirname, "../../../models/half_plus_two");

/** Runs `tfs warmup ARGS` in this process, capturing what it prints. */
const tfsWarmup = (...args: string[]) => tfsInProcess("warmup", ...args);

describe("tfs warmup", () => {
    let work: string;
    let model: string;
    const body = (name: string, json: unknown): string => {
        const file = path.join(work, name);
        fs.writeFileSync(file, JSON.stringify(json));
        return file;
    };
    const warmupFile = (): string => path.join(model, "00000123", WARMUP_FILE);

    beforeEach(() => {
        work = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-cli-warmup-"));
        model = path.join(work, "half_plus_two");
        fs.cpSync(MODEL, model, { recursive: true });
    });

    afterEach(() => {
        fs.rmSync(work, { recursive: true, force: true });
    });

    it("writes the highest version's warmup file, one record per body, and preflight then counts them (exit 0)", async () => {
        const run = await tfsWarmup(model, "--input", body("a.json", { instances: [[1.0]] }), body("b.json", { inputs: { x: [[1.0], [2.0]] } }));
        assert.strictEqual(run.code, 0, run.stderr);
        assert.strictEqual(run.stdout, `wrote 2 warmup records to ${warmupFile()}\n`);
        assert.strictEqual(readWarmupFile(warmupFile()).records.length, 2);
        const report = preflight(model);
        assert.strictEqual(report.ok, true, JSON.stringify(report.errors));
        assert.strictEqual(report.versions[0].warmupRecords, 2);
    });

    it("refuses requests the signature would refuse, one line each, and writes nothing (exit 1)", async () => {
        const run = await tfsWarmup(model, "--input", body("a.json", { instances: [["one"]] }), body("b.json", { signature_name: "nope", instances: [[1.0]] }));
        assert.strictEqual(run.code, 1);
        const lines = run.stderr.trim().split("\n");
        assert.match(lines[0], /^tfs: nothing written: 2 requests TF Serving would refuse at load \(version 123, see docs\/guides\/model-contract\.md#warmup-records\):$/);
        assert.match(lines[1], /^ {2}.*a\.json: input "x" of signature "serving_default": "one" is not a DT_FLOAT value$/);
        assert.match(lines[2], /^ {2}.*b\.json: signature "nope" is not in the model/);
        assert.strictEqual(fs.existsSync(warmupFile()), false);
    });

    it("keeps an existing warmup file unless --force, and replaces a corrupt one with it", async () => {
        fs.mkdirSync(path.dirname(warmupFile()));
        fs.writeFileSync(warmupFile(), "not a TFRecord");
        const input = body("a.json", { instances: [[1.0]] });
        const kept = await tfsWarmup(model, "--input", input);
        assert.strictEqual(kept.code, 1);
        assert.match(kept.stderr, /exists already \(0 records\): pass --force to replace it/);
        assert.strictEqual((await tfsWarmup(model, "--input", input, "--force")).code, 0);
        assert.strictEqual(preflight(model).ok, true);
    });

    it("needs --input, and a readable JSON body (exit 2)", async () => {
        assert.match((await tfsWarmup(model)).stderr, /give the requests to record with either --golden FILE or --input BODY\.json/);
        const bad = await tfsWarmup(model, "--input", body("bad.json", "[1]"));
        assert.strictEqual(bad.code, 2);
        assert.match(bad.stderr, /bad\.json must hold a JSON object with "instances" or "inputs"/);
        assert.strictEqual((await tfsWarmup(model, "--version", "0", "--input", "x.json")).code, 2);
    });

    it("writes a golden file's cases with their expected outputs as the logged answers", async () => {
        const golden = path.join(work, "golden.jsonl");
        fs.writeFileSync(golden, [{ request: { instances: [[1.0]] }, expected: { y: [[2.5]] } }, { request: { instances: [[2.0]] } }].map((c) => JSON.stringify(c)).join("\n"));
        const run = await tfsWarmup(model, "--golden", golden);
        assert.strictEqual(run.code, 0, run.stderr);
        assert.deepStrictEqual(readWarmupFile(warmupFile()).records.map((r) => r.predict?.responseOutputs), [["y"], []]);
        assert.strictEqual((await tfsWarmup(model, "--golden", golden, "--input", golden)).code, 2, "one source or the other");
    });

    it("names a golden case the signature refuses by its file and line, and a golden file that does not parse", async () => {
        const golden = path.join(work, "golden.jsonl");
        fs.writeFileSync(golden, `${JSON.stringify({ request: { instances: [[1.0]] } })}\n${JSON.stringify({ request: { instances: [["one"]] } })}\n`);
        const refused = await tfsWarmup(model, "--golden", golden);
        assert.strictEqual(refused.code, 1);
        assert.match(refused.stderr, /golden\.jsonl:2: /);
        fs.writeFileSync(golden, "not json\n");
        const broken = await tfsWarmup(model, "--golden", golden);
        assert.strictEqual(broken.code, 2);
        assert.match(broken.stderr, /^tfs: --golden .*golden\.jsonl:1: /);
    });

    it("warns of a shape the signature does not say, and writes the record", async () => {
        const run = await tfsWarmup(model, "--input", body("rank1.json", { instances: [1.0, 2.0] }));
        assert.strictEqual(run.code, 0, run.stderr);
        assert.match(run.stderr, /^tfs: warning: .*rank1\.json: input "x" has shape \[2\] \(rank 1\), but the signature says rank 2/m);
        assert.strictEqual(readWarmupFile(warmupFile()).records.length, 1);
    });

    it("names a version the model lacks", async () => {
        const run = await tfsWarmup(model, "--version", "7", "--input", body("a.json", { instances: [[1.0]] }));
        assert.strictEqual(run.code, 1);
        assert.match(run.stderr, /Version 7 was requested but .* has no folder for it/);
    });
});
