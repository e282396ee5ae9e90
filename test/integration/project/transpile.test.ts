/**
 * bin/transpile.js, the ts-node transpiler every run of the sources goes through (tsconfig.json): the
 * same JavaScript as ts-node's swc transpiler, reused from its cache while nothing it depends on
 * changed, and stack traces that still name the .ts lines.
 */
import * as assert from "assert";
import { execFile } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { ownChild } from "../../support/children";

const REPO = path.resolve(__dirname, "../../..");
const TRANSPILER = path.join(REPO, "bin", "transpile.js");

type Output = { outputText: string; sourceMapText?: string };
type Transpiler = { transpile(input: string, options: { fileName: string }): Output };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { cached } = require(TRANSPILER) as {
    cached(options: { cacheDir: string; salt: string; inner: () => Transpiler }): Transpiler;
};

/** A stand-in for swc that counts its work: created (swc loaded) and files transpiled. */
function countingInner(): { inner: () => Transpiler; created: number; calls: number } {
    const counts = { created: 0, calls: 0 };
    return Object.assign(counts, {
        inner: () => {
            counts.created++;
            return { transpile: (input: string) => (counts.calls++, { outputText: `/*js*/${input}`, sourceMapText: `{"map":${JSON.stringify(input)}}` }) };
        },
    });
}

/** node with ts-node registered as the program runs it (transpile only, this tsconfig's transpiler). */
function runNode(script: string, env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
        ownChild(execFile(process.execPath, ["-e", script], { cwd: REPO, env: { ...process.env, ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
            if (err && !stderr) {
                reject(err);
            } else {
                resolve({ stdout, stderr });
            }
        }));
    });
}

describe("the cached transpiler (bin/transpile.js)", function () {
    this.timeout(90_000);
    let dir: string;
    beforeEach(() => {
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-transpile-"));
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    it("transpiles a file once; the next run reads it back without creating the transpiler", () => {
        const cacheDir = path.join(dir, "cache");
        const first = countingInner();
        const a = cached({ cacheDir, salt: "s", inner: first.inner });
        const out = a.transpile("const x: number = 1;", { fileName: "/p/a.ts" });
        assert.deepStrictEqual(out, { outputText: "/*js*/const x: number = 1;", sourceMapText: "{\"map\":\"const x: number = 1;\"}" });
        assert.deepStrictEqual(a.transpile("const x: number = 1;", { fileName: "/p/a.ts" }), out);
        assert.deepStrictEqual([first.created, first.calls], [1, 1], "the same input twice in one run: transpiled once");

        const second = countingInner();
        const b = cached({ cacheDir, salt: "s", inner: second.inner });
        assert.deepStrictEqual(b.transpile("const x: number = 1;", { fileName: "/p/a.ts" }), out);
        assert.deepStrictEqual([second.created, second.calls], [0, 0], "a new run with nothing changed never makes the transpiler");
    });

    it("a changed source, path or salt (options, versions) is transpiled again; one entry per file", () => {
        const cacheDir = path.join(dir, "cache");
        const counts = countingInner();
        const t = cached({ cacheDir, salt: "s", inner: counts.inner });
        t.transpile("let a = 1;", { fileName: "/p/a.ts" });
        assert.strictEqual(t.transpile("let a = 2;", { fileName: "/p/a.ts" }).outputText, "/*js*/let a = 2;");
        t.transpile("let a = 2;", { fileName: "/p/b.ts" });
        assert.strictEqual(counts.calls, 3);
        assert.strictEqual(fs.readdirSync(cacheDir).length, 2, "the newest output of each file only");

        const other = countingInner();
        cached({ cacheDir, salt: "other options", inner: other.inner }).transpile("let a = 2;", { fileName: "/p/a.ts" });
        assert.strictEqual(other.calls, 1);
    });

    it("a cache it cannot write leaves the run uncached, not broken", () => {
        const blocked = path.join(dir, "a-file");
        fs.writeFileSync(blocked, "");
        const counts = countingInner();
        const t = cached({ cacheDir: path.join(blocked, "cache"), salt: "s", inner: counts.inner });
        assert.strictEqual(t.transpile("let a = 1;", { fileName: "/p/a.ts" }).outputText, "/*js*/let a = 1;");
        assert.strictEqual(t.transpile("let a = 1;", { fileName: "/p/a.ts" }).outputText, "/*js*/let a = 1;");
        assert.strictEqual(counts.calls, 2);
        assert.deepStrictEqual(fs.readdirSync(dir), ["a-file"], "no temporary file left behind");
    });

    it("gives ts-node's own swc output for the program's files, from swc and from the cache", async () => {
        const files = ["index.ts", "stacks/program.ts", "components/modelServer.ts", "components/canary/release.ts"];
        const script = `
            const ts = require("ts-node");
            const fs = require("fs");
            const files = ${JSON.stringify(files)};
            const swc = ts.create({ project: "tsconfig.json", transpileOnly: true, transpiler: "ts-node/transpilers/swc" });
            const ours = ts.create({ project: "tsconfig.json", transpileOnly: true });
            const out = files.map((f) => { const p = require("path").resolve(f); const src = fs.readFileSync(p, "utf8"); return [swc.compile(src, p), ours.compile(src, p)]; });
            console.log(JSON.stringify(out));`;
        const cache = path.join(dir, "cache");
        for (const run of ["swc", "cache"]) {
            const { stdout, stderr } = await runNode(script, { TFS_TRANSPILE_CACHE: cache });
            assert.strictEqual(stderr, "", stderr);
            const pairs = JSON.parse(stdout) as [string, string][];
            pairs.forEach(([expected, actual], i) => {
                assert.ok(expected.length > 100, `${files[i]}: transpiled`);
                assert.strictEqual(actual, expected, `${files[i]} (${run}): the same JavaScript and inline source map as ts-node's swc transpiler`);
            });
            assert.strictEqual(fs.readdirSync(cache).length, files.length, run);
        }
    });

    it("a stack trace names the .ts line, transpiled and cached alike", async () => {
        const source = path.join(dir, "thrower.ts");
        // Type-only lines that swc drops, so an unmapped trace would name another line.
        fs.writeFileSync(source, [
            "interface Shape { a: number }",
            "type Other = Shape & { b: string };",
            "export function boom(_s?: Other): never {",
            "    throw new Error(\"boom\");",
            "}",
            "",
        ].join("\n"));
        const script = `
            require("ts-node").register({ project: "tsconfig.json", transpileOnly: true });
            try { require(${JSON.stringify(source)}).boom(); } catch (err) { console.log(err.stack.split("\\n")[1]); }`;
        const cache = path.join(dir, "cache");
        for (const run of ["transpiled", "cached"]) {
            const { stdout, stderr } = await runNode(script, { TFS_TRANSPILE_CACHE: cache });
            assert.strictEqual(stderr, "", stderr);
            assert.match(stdout, /thrower\.ts:4:\d+\)/, `${run}: ${stdout}`);
        }
        assert.strictEqual(fs.readdirSync(cache).length, 1);
    });
});
