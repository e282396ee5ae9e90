/**
 * The canary's runner as the dynamic provider loads it: Pulumi serializes the provider's functions
 * and runs them in the `pulumi-resource-pulumi-nodejs` plugin, a plain Node.js process in the
 * project's folder. From sources, `runner()` registers ts-node there; that registration must work
 * whatever tsconfig the project folder holds (CI saw `Cannot specify both 'swc' and 'transpiler'
 * options` when it merged with this repository's own).
 */
import * as assert from "assert";
import { execFile } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { runner } from "../../../components/canary/canaryRelease";
import { ownChild } from "../../support/children";

const REPO = path.resolve(__dirname, "../../..");

/** Runs the serialized function in a new Node.js process in `cwd` (no ts-node loaded); its stdout. */
function callSerialized(file: string, cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
    const script = `
        const m = require(${JSON.stringify(file)});
        const release = m.handler();
        console.log(JSON.stringify({ release: typeof release.release, finish: typeof release.finish, leftovers: typeof release.leftovers }));`;
    return new Promise((resolve) => {
        ownChild(execFile(process.execPath, ["-e", script], { cwd, env: { ...process.env, NODE_PATH: path.join(REPO, "node_modules") }, timeout: 60_000 },
            (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr })));
    });
}

describe("the canary's runner in the dynamic provider's process", function () {
    this.timeout(90_000);
    let dir: string;
    let serialized: string;
    before(async () => {
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-canary-runner-"));
        const closure = await pulumi.runtime.serializeFunction(runner, { exportName: "handler" });
        serialized = path.join(dir, "provider.js");
        fs.writeFileSync(serialized, closure.text);
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    // The project folders the provider may run in: this repository (its tsconfig names the cached
    // transpiler), a project of ts-node's swc mode, one with none.
    const projects: Array<[string, Record<string, unknown> | undefined]> = [
        ["this repository's (a transpiler)", undefined],
        ["swc mode", { compilerOptions: { module: "commonjs" }, "ts-node": { swc: true } }],
        ["a transpiler of its own", { compilerOptions: { module: "commonjs" }, "ts-node": { transpiler: "ts-node/transpilers/swc" } }],
        ["no tsconfig", {}],
    ];
    for (const [name, tsconfig] of projects) {
        it(`loads release.ts in a project folder with ${name}`, async () => {
            let cwd = REPO;
            if (tsconfig !== undefined) {
                cwd = fs.mkdtempSync(path.join(dir, "project-"));
                if (Object.keys(tsconfig).length > 0) {
                    fs.writeFileSync(path.join(cwd, "tsconfig.json"), JSON.stringify(tsconfig));
                }
            }
            const r = await callSerialized(serialized, cwd);
            assert.strictEqual(r.code, 0, `the runner did not load:\n${r.stderr}`);
            assert.deepStrictEqual(JSON.parse(r.stdout.trim().split("\n").pop() ?? "{}"), { release: "function", finish: "function", leftovers: "function" });
        });
    }
});
