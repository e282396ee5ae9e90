/**
 * The canary's runner as the dynamic provider loads it: Pulumi serializes the provider's functions
 * into the state and runs them in the `pulumi-resource-pulumi-nodejs` plugin, a plain Node.js
 * process in the project's folder, which loads them from that text (`require-from-string`). Here the
 * provider, serialized as `pulumi.dynamic.Resource` does, runs that way in a new process:
 *
 * - from sources, the runner registers ts-node, whatever tsconfig the project folder holds (CI saw
 *   `Cannot specify both 'swc' and 'transpiler' options` when it merged with this repository's own);
 * - the runner is found from the folder the process runs in, so another checkout than the one that
 *   serialized the provider retires what a release left (a delete runs the state's provider, written
 *   by whichever checkout updated it last, maybe deleted since);
 * - a delete that cannot retire the canary fails with one line saying what to do (before, it passed
 *   with "nothing retired", leaving the canary Deployment running, forgotten by the state).
 */
import * as assert from "assert";
import { execFile } from "child_process";
import * as fs from "fs";
import * as net from "net";
import * as os from "os";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { canaryProvider } from "../../../components/canary/canaryRelease";
import { FakeApiServer, fakeKubeconfig } from "../../support/fakeApiServer";
import { ownChild } from "../../support/children";

const REPO = path.resolve(__dirname, "../../..");
const NS = "tf-serving";
const CANARY = "half-plus-two-canary";

/** What one call of the serialized provider did in a new process: its printed lines, and its result or error. */
interface Called { code: number; lines: string[]; result?: unknown; error?: { message: string; printed: string }; stderr: string }

/** Runs `method(...args)` of the serialized provider in `file`, in a new Node.js process in `cwd` (no ts-node loaded). */
function callProvider(file: string, cwd: string, method: string, args: unknown[], env: Record<string, string> = {}): Promise<Called> {
    const script = `
        const fs = require("fs");
        const provider = require("require-from-string")(fs.readFileSync(${JSON.stringify(file)}, "utf8")).handler();
        const done = (outcome) => console.log("\\n@@" + JSON.stringify(outcome));
        Promise.resolve().then(() => provider[${JSON.stringify(method)}](...${JSON.stringify(args)})).then(
            (result) => done({ result: result === undefined ? null : Object.fromEntries(Object.entries(result).map(([k, v]) => [k, typeof v === "function" ? "function" : v])) }),
            (err) => done({ error: { message: err.message, printed: \`\${err}: \${err.stack}\` } }));`;
    return new Promise((resolve) => {
        ownChild(execFile(process.execPath, ["-e", script], { cwd, env: { ...process.env, ...env, NODE_PATH: path.join(REPO, "node_modules") }, timeout: 60_000 },
            (err, stdout, stderr) => {
                const [out, outcome] = stdout.split("\n@@");
                resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, lines: out.split("\n").filter(Boolean), ...(outcome ? JSON.parse(outcome) : {}), stderr });
            }));
    });
}

/** What a delete receives: the canary's inputs as the state holds them. */
function canaryProps(kubeconfig: string): Record<string, unknown> {
    return {
        phase: "finish", kubeconfig, namespace: NS, model: "half-plus-two", image: "registry/half-plus-two@sha256:1", serving: "half-plus-two", canary: CANARY,
        canaryDeployment: { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: CANARY, namespace: NS }, spec: { selector: { matchLabels: { app: CANARY } } } },
        routes: [], steps: [10, 50], holdSeconds: 5, gates: { maxErrorRatio: 0.01, maxP99Ms: 1000, minRequests: 1 }, readySeconds: 60, settleSeconds: 5,
    };
}

/** A port on loopback that nothing listens on. */
async function closedPort(): Promise<number> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise((resolve) => server.close(resolve));
    return port;
}

describe("the canary's dynamic provider in the plugin's process", function () {
    this.timeout(90_000);
    let dir: string;
    let serialized: string;
    /** A project folder with the library linked in (as `npm install ../tf-serving` leaves it) and `tsconfig` as its own. */
    const linkedProject = (tsconfig?: Record<string, unknown>) => {
        const project = fs.mkdtempSync(path.join(dir, "project-"));
        fs.mkdirSync(path.join(project, "node_modules"));
        fs.symlinkSync(REPO, path.join(project, "node_modules", "tf-serving"));
        if (tsconfig !== undefined) {
            fs.writeFileSync(path.join(project, "tsconfig.json"), JSON.stringify(tsconfig));
        }
        return project;
    };
    before(async () => {
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-canary-runner-"));
        const provider = canaryProvider;
        serialized = path.join(dir, "provider.js");
        fs.writeFileSync(serialized, (await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true })).text);
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    describe("loads the runner", () => {
        // The project folders the provider may run in: this repository (its tsconfig names the cached
        // transpiler), projects with the library linked in: of ts-node's swc mode, a transpiler of their own, none.
        const projects: Array<[string, Record<string, unknown> | undefined]> = [
            ["swc mode", { compilerOptions: { module: "commonjs" }, "ts-node": { swc: true } }],
            ["a transpiler of its own", { compilerOptions: { module: "commonjs" }, "ts-node": { transpiler: "ts-node/transpilers/swc" } }],
            ["no tsconfig", undefined],
        ];
        it("in this repository's folder (a transpiler): its diff reads the cluster, finds nothing left, and reports no change", async () => {
            const api = new FakeApiServer();
            const kubeconfig = fakeKubeconfig(fs.mkdtempSync(path.join(dir, "kube-")), await api.start());
            try {
                const props = canaryProps(kubeconfig);
                const r = await callProvider(serialized, REPO, "diff", ["id", props, props]);
                assert.deepStrictEqual(r.result, { changes: false }, `${r.error?.printed ?? ""}\n${r.stderr}`);
                assert.ok(api.requests.includes(`/apis/apps/v1/namespaces/${NS}/deployments/${CANARY}`), api.requests.join("\n"));
            } finally {
                await api.stop();
            }
        });
        for (const [name, tsconfig] of projects) {
            it(`in a project folder with ${name}`, async () => {
                // Nothing answers on the kubeconfig's port: the diff's read fails and only the inputs decide, once the runner loaded.
                const props = canaryProps(fakeKubeconfig(fs.mkdtempSync(path.join(dir, "kube-")), `http://127.0.0.1:${await closedPort()}`));
                const r = await callProvider(serialized, linkedProject(tsconfig), "diff", ["id", props, props]);
                assert.deepStrictEqual(r.result, { changes: false }, `the runner did not load:\n${r.error?.printed ?? ""}\n${r.stderr}`);
            });
        }
    });

    describe("retires the canary from another checkout than the one that serialized it", () => {
        let checkout: string;
        before(() => {
            // A second checkout of the program's sources at another path, with the packages installed (linked here).
            checkout = path.join(dir, "ci", "_work", "tf-serving");
            for (const part of ["package.json", "tsconfig.json", "bin", "components", "config", "contract", "model", "observability", "serving", "lib"]) {
                fs.cpSync(path.join(REPO, part), path.join(checkout, part), { recursive: true });
            }
            fs.symlinkSync(path.join(REPO, "node_modules"), path.join(checkout, "node_modules"));
        });

        it("a leftover canary Deployment is deleted, and the delete passes", async () => {
            const api = new FakeApiServer();
            api.namespaces = [NS];
            api.deployments = [{ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: CANARY, namespace: NS }, spec: { replicas: 1 } }];
            const kubeconfig = fakeKubeconfig(fs.mkdtempSync(path.join(dir, "kube-")), await api.start());
            try {
                const r = await callProvider(serialized, checkout, "delete", ["id", canaryProps(kubeconfig)]);
                assert.strictEqual(r.error, undefined, `${r.error?.printed}\n${r.stderr}`);
                assert.deepStrictEqual(api.deleted, [CANARY]);
                assert.ok(r.lines.some((l) => /^canary of half-plus-two: .* routes back to it alone, the canary retired$/.test(l)), r.lines.join("\n"));
                assert.ok(!r.lines.some((l) => l.includes("nothing retired")), r.lines.join("\n"));
            } finally {
                await api.stop();
            }
        });
    });

    describe("a delete that retires nothing fails, with one line saying what to do", () => {
        it("no runner where the provider runs (the checkout that released the canary is gone; this folder has none)", async () => {
            const nowhere = fs.mkdtempSync(path.join(dir, "elsewhere-"));
            const props = canaryProps(fakeKubeconfig(nowhere, "http://127.0.0.1:1"));
            const r = await callProvider(serialized, nowhere, "delete", ["id", props]);
            assert.ok(r.error, `the delete passed: ${r.lines.join("\n")}`);
            assert.strictEqual(r.error.message, `canary of half-plus-two: no tf-serving checkout (components/canary/release.ts) or installed library ` +
                `(node_modules/tf-serving/dist/components/canary/release.js) in ${fs.realpathSync(nowhere)} or a folder above it, where the canary's runner would be: ` +
                "run pulumi in the project's folder, inside a checkout of tf-serving or with tf-serving installed there (docs/guides/canary.md#where-the-release-runs)");
            assert.strictEqual(r.error.printed, `error: ${r.error.message}`, "the plugin's own print of it: the line, no trace");
            // The preview says it first: the diff fails the same way.
            const diff = await callProvider(serialized, nowhere, "diff", ["id", props, props]);
            assert.strictEqual(diff.error?.message, r.error.message);
        });

        it("a cluster that does not answer: fails, unless PULUMI_K8S_DELETE_UNREACHABLE=true", async () => {
            const props = canaryProps(fakeKubeconfig(fs.mkdtempSync(path.join(dir, "kube-")), `http://127.0.0.1:${await closedPort()}`));
            const r = await callProvider(serialized, REPO, "delete", ["id", props]);
            assert.ok(r.error, `the delete passed: ${r.lines.join("\n")}`);
            assert.match(r.error.message, /^canary of half-plus-two: not retired \(.*ECONNREFUSED.*\): the canary Deployment half-plus-two-canary in tf-serving may still run, .*PULUMI_K8S_DELETE_UNREACHABLE=true/);
            assert.ok(!r.error.message.includes("\n"));
            const unreachable = await callProvider(serialized, REPO, "delete", ["id", props], { PULUMI_K8S_DELETE_UNREACHABLE: "true" });
            assert.strictEqual(unreachable.error, undefined);
            assert.ok(unreachable.lines.some((l) => /^canary of half-plus-two: nothing retired, the cluster did not answer \(.*\); PULUMI_K8S_DELETE_UNREACHABLE=true/.test(l)), unreachable.lines.join("\n"));
        });
    });
});
