import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { tfsInProcess } from "../../support/tfsInProcess";

const MODEL = path.resolve(__dirname, "../../../models/half_plus_two");

/** Runs `tfs build-context ARGS` in this process, capturing what it prints. */
const tfs = (...args: string[]) => tfsInProcess("build-context", ...args);

describe("tfs build-context", () => {
    let work: string;
    let out: string;

    beforeEach(() => {
        work = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-cli-context-"));
        out = path.join(work, "context");
    });

    afterEach(() => {
        fs.rmSync(work, { recursive: true, force: true });
    });

    it("stages a servable model and prints the files and the build commands (exit 0)", async () => {
        const run = await tfs(MODEL, "--name", "half-plus-two", "--out", out);
        assert.strictEqual(run.code, 0, run.stderr);
        assert.match(run.stdout, /^Staged model half-plus-two, version 123, on tensorflow\/serving:2\.21\.0$/m);
        assert.match(run.stdout, /^ {2}models\/half-plus-two\/123\/saved_model\.pb {2}\d+$/m);
        assert.ok(run.stdout.includes(`docker build --platform linux/amd64 -t REGISTRY/half-plus-two:TAG ${out}`));
        assert.ok(run.stdout.includes(`buildah bud --platform linux/amd64`));
        assert.match(fs.readFileSync(path.join(out, "Dockerfile"), "utf8"), /^FROM tensorflow\/serving:2\.21\.0$/m);
        assert.ok(fs.existsSync(path.join(out, "models", "half-plus-two", "123", "variables", "variables.index")));

        const again = await tfs(MODEL, "--name", "half-plus-two", "--out", out);
        assert.strictEqual(again.code, 0);
        assert.match(again.stdout, /unchanged: nothing rewritten/);
    });

    it("uses the -gpu base with --gpu, and --base-image over both", async () => {
        assert.strictEqual((await tfs(MODEL, "--name", "m", "--out", out, "--gpu")).code, 0);
        assert.match(fs.readFileSync(path.join(out, "Dockerfile"), "utf8"), /^FROM tensorflow\/serving:2\.21\.0-gpu$/m);
        assert.strictEqual((await tfs(MODEL, "--name", "m", "--out", out, "--gpu", "--base-image", "registry.example:5000/tfs:custom")).code, 0);
        assert.match(fs.readFileSync(path.join(out, "Dockerfile"), "utf8"), /^FROM registry\.example:5000\/tfs:custom$/m);
    });

    it("serves the listed versions with labels through a model config", async () => {
        const model = path.join(work, "model");
        fs.cpSync(path.join(MODEL, "00000123"), path.join(model, "1"), { recursive: true });
        fs.cpSync(path.join(MODEL, "00000123"), path.join(model, "2"), { recursive: true });
        const run = await tfs(model, "--name", "m", "--out", out, "--version", "1", "2", "--label", "stable=2");
        assert.strictEqual(run.code, 0, run.stderr);
        assert.match(fs.readFileSync(path.join(out, "models", "models.config"), "utf8"), /key: 'stable'\n {6}value: 2/);
    });

    it("refuses a broken model with the preflight's errors and stages nothing (exit 1)", async () => {
        // The classic mistake: the export copied straight into the base folder, no version folder.
        const model = path.join(work, "model");
        fs.cpSync(path.join(MODEL, "00000123"), model, { recursive: true });
        const run = await tfs(model, "--name", "m", "--out", out);
        assert.strictEqual(run.code, 1);
        assert.match(run.stderr, /^error [A-Z_]+: /m);
        assert.match(run.stderr, /not staged: fix the model above/);
        assert.ok(!fs.existsSync(out));
    });

    it("refuses a bad name, base image or label with one line and no stack trace (exit 1)", async () => {
        const cases: [string[], RegExp][] = [
            [["--name", "Half_Plus_Two"], /^tfs: --name: model name "Half_Plus_Two" must be a DNS label/],
            [["--name", "m", "--base-image", "tensorflow/serving:-gpu"], /^tfs: --base-image: .*invalid tag "-gpu"/],
            [["--name", "m", "--version", "123", "--label", "stable=5"], /^tfs: model "m": label "stable" points at version 5, which is not served/],
            [["--name", "m", "--label", "stable=123"], /^tfs: --label needs --version/],
        ];
        for (const [flags, expected] of cases) {
            const run = await tfs(MODEL, "--out", out, ...flags);
            assert.strictEqual(run.code, 1, flags.join(" "));
            assert.match(run.stderr, expected);
            assert.ok(!/^\s+at /m.test(run.stderr), `stack trace in:\n${run.stderr}`);
        }
        assert.ok(!fs.existsSync(out));
    });

    it("refuses to overwrite a folder it did not write (exit 1)", async () => {
        fs.mkdirSync(out);
        fs.writeFileSync(path.join(out, "precious.txt"), "keep");
        const run = await tfs(MODEL, "--name", "m", "--out", out);
        assert.strictEqual(run.code, 1);
        assert.match(run.stderr, /is not empty and was not written by tfs build-context/);
        assert.strictEqual(fs.readFileSync(path.join(out, "precious.txt"), "utf8"), "keep");
    });

    it("answers bad flags with a usage error (exit 2)", async () => {
        assert.strictEqual((await tfs(MODEL, "--name", "m")).code, 2, "--out is required");
        assert.strictEqual((await tfs(MODEL, "--out", out)).code, 2, "--name is required");
        assert.strictEqual((await tfs(MODEL, "--name", "m", "--out", out, "--version", "latest")).code, 2);
        assert.strictEqual((await tfs(MODEL, "--name", "m", "--out", out, "--version", "1", "--label", "stable")).code, 2);
    });
});
