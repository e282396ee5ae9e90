/**
 * A library user's mistake through a real `pulumi preview`: a TypeScript program that constructs a
 * `ModelServer` with a bad argument, run by the Pulumi CLI and its Node.js language host with a
 * local file backend (no cluster, no cloud, no resource plugin: nothing gets as far as one). The
 * preview fails with the component's one line, no JavaScript stack trace, and nothing but the stack
 * in its plan. A program that throws a plain Error shows what the language host prints otherwise.
 *
 * The CLI is `PULUMI`, else `pulumi` on PATH, else the one `scripts/e2e-env prepare` builds into
 * the environment's cache (CI runs that step before `npm test`); a machine with none fails here.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { runCli } from "../../support/cli";

const ROOT = path.resolve(__dirname, "../../..");

/** The Pulumi CLI binary (see the module comment). */
function pulumiBinary(): string {
    const cache = process.env.TFS_E2E_CACHE ?? path.join(os.homedir(), ".cache", "tf-serving-e2e");
    const built = fs.existsSync(path.join(cache, "bin"))
        ? fs.readdirSync(path.join(cache, "bin")).filter((d) => /^pulumi-\d/.test(d)).sort().reverse().map((d) => path.join(cache, "bin", d, "pulumi"))
        : [];
    const onPath = (process.env.PATH ?? "").split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, "pulumi"));
    const found = [...(process.env.PULUMI ? [process.env.PULUMI] : []), ...onPath, ...built].find((c) => fs.existsSync(c));
    assert.ok(found, "no Pulumi CLI: put pulumi on PATH, set PULUMI, or build the environment's (scripts/e2e-env prepare)");
    return found;
}

describe("a refusal through a real pulumi preview", function () {
    this.timeout(180_000);
    let work: string;
    let pulumi: string;

    before(() => {
        pulumi = pulumiBinary();
        work = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-preview-refusal-"));
        fs.mkdirSync(path.join(work, "state"));
        fs.mkdirSync(path.join(work, "home"));
    });
    after(() => fs.rmSync(work, { recursive: true, force: true }));

    /** Previews `program` (index.ts) as the project `name`; its exit code and everything it printed. */
    async function preview(name: string, program: string): Promise<{ code: number; output: string }> {
        const dir = path.join(work, name);
        fs.mkdirSync(dir);
        fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
        fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `name: ${name}\nruntime: nodejs\n`);
        // Only the SDK: the language host then asks for no resource plugin.
        fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name, main: "index.ts", dependencies: { "@pulumi/pulumi": "*" } }));
        fs.writeFileSync(path.join(dir, "index.ts"), program);
        const env = {
            PATH: `${path.dirname(pulumi)}${path.delimiter}${process.env.PATH ?? ""}`,
            PULUMI_HOME: path.join(work, "home"), PULUMI_BACKEND_URL: `file://${path.join(work, "state")}`,
            PULUMI_CONFIG_PASSPHRASE: "refusal", PULUMI_SKIP_UPDATE_CHECK: "true", NO_COLOR: "1",
        };
        const init = await runCli(pulumi, ["stack", "init", "dev", "--non-interactive"], { cwd: dir, env, timeoutMs: 60_000 });
        assert.strictEqual(init.code, 0, init.stderr);
        const run = await runCli(pulumi, ["preview", "--non-interactive", "--stack", "dev", "--color", "never"], { cwd: dir, env, timeoutMs: 150_000 });
        return { code: run.code, output: `${run.stdout}\n${run.stderr}` };
    }

    it("a bad ModelServer argument: one line naming the component and the field, no stack trace, nothing registered", async () => {
        const { code, output } = await preview("refusal", [
            `import { ModelServer } from ${JSON.stringify(path.join(ROOT, "lib", "modelServer"))};`,
            `new ModelServer("bad", { model: { name: "half-plus-two", versionBytes: [300 * 2 ** 20] }, namespace: "serving", image: "r/m@sha256:0123", resources: { cpu: "100m" } });`,
        ].join("\n"));
        assert.strictEqual(code, 1, output);
        const line = output.split("\n").find((l) => l.includes("ModelServer bad:"));
        assert.match(line ?? "", /error: ModelServer bad: resources\.cpu \(cpu 100m is below the 250m TF Serving needs/, output);
        assert.ok(!/^\s+at /m.test(output), `no stack trace:\n${output}`);
        assert.ok(!output.includes("unhandled exception"), output);
        assert.ok(!output.includes("tf-serving:index:ModelServer"), `nothing registered:\n${output}`);
    });

    it("a plain Error, for contrast, comes with the language host's stack trace", async () => {
        const { code, output } = await preview("plain", `throw new Error("plain mistake");\n`);
        assert.strictEqual(code, 1, output);
        assert.match(output, /failed with an unhandled exception:/);
        assert.match(output, /^\s+at /m);
    });
});
