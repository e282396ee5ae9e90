/**
 * One stack, two checkouts: a workstation runs `pulumi up`, CI (another clone, at another path)
 * previews. Every resource input must be the same from both, so the second preview reports no
 * change: no image rebuilt or re-pushed, no provider replaced. And the pods run the digest the
 * registry holds for the pushed tag, not the local store's (podman's push reports none).
 *
 * Then a canary: the workstation turns it on and releases a version that answers wrong (rolled back
 * by its golden check), an interrupted release's canary Deployment is left running, the
 * workstation's checkout is deleted, and CI turns the canary off. The engine runs that delete with
 * the provider the state holds, written by the workstation's checkout: it must find its runner in
 * CI's and retire the leftover. The Gateway names a class no controller serves, and the test writes
 * the status a controller would: the release needs the routes, not Traefik's one address, which the
 * Gateway files of the other lane hold (lanes.ts).
 */
import * as assert from "assert";
import { execFile, execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { LocalWorkspace, Stack } from "@pulumi/pulumi/automation";
import * as YAML from "yaml";
import { MODEL, ROOT, env, kubectl, manifestOf, tagsOf } from "../support/e2eProject";
import { fixtureModelDir } from "../support/fixtures";
import { PulumiCli, PulumiCommandError, changingOps, pulumiCli } from "../support/cli";

/* eslint-disable @typescript-eslint/no-explicit-any */
const MANIFEST_TYPES = "application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json";

function tfs(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
        execFile(process.execPath, [path.join(ROOT, "bin", "tfs.js"), ...args], { cwd, timeout: 10 * 60 * 1000, maxBuffer: 64 * 2 ** 20 },
            (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }));
    });
}

/** What a checkout holds of the repository: the program, with everything it loads (the canary's runner among it). */
const PROGRAM = ["package.json", "tsconfig.json", "Pulumi.yaml", "index.ts", "bin", "stacks", "components", "config", "contract", "model", "serving", "observability", "lib"];
/** The golden file the checkouts' canary checks a new version with: half_plus_two's answers. */
const GOLDEN = `${JSON.stringify({ name: "three rows", request: { instances: [1, 2, 5] }, expected: { y: [2.5, 3, 4.5] } })}\n`;

/**
 * A clone of the repository at `dir`, as a user's: the program's files, its own copy of the model,
 * the golden file and the shared stack file. Its packages are the repository's (Node finds them in a
 * folder above), as `npm ci` would install the same.
 */
function checkout(dir: string, stackFile: string, stackName: string): string {
    fs.mkdirSync(dir, { recursive: true });
    for (const part of PROGRAM) {
        fs.cpSync(path.join(ROOT, part), path.join(dir, part), { recursive: true });
    }
    fs.cpSync(path.join(fixtureModelDir("half_plus_two_cpu"), "00000123"), path.join(dir, "models", "half_plus_two", "123"), { recursive: true });
    fs.writeFileSync(path.join(dir, "golden.jsonl"), GOLDEN);
    fs.writeFileSync(path.join(dir, `Pulumi.${stackName}.yaml`), stackFile);
    return dir;
}

/**
 * Writes the status a Gateway controller writes once it has programmed Gateway `name` (Accepted,
 * Programmed, an address), as soon as the Gateway exists while `running` runs: the program waits for
 * it (serving/gateway.ts, GATEWAY_WAIT_FOR), and the checkouts' Gateway names a class no controller serves.
 */
async function programGateway<T>(namespace: string, name: string, running: Promise<T>): Promise<T> {
    let settled = false;
    running.then(() => { settled = true; }, () => { settled = true; });
    for (let i = 0; i < 1200 && !settled; i++) {
        const gateway = (kubectl("get", "gateways.gateway.networking.k8s.io", "-n", namespace).items as any[]).find((g) => g.metadata.name === name);
        if (gateway !== undefined) {
            const condition = (type: string) => ({
                type, status: "True", reason: type, message: "written by the test, standing in for a controller",
                lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, "Z"), observedGeneration: gateway.metadata.generation,
            });
            const status = { addresses: [{ type: "IPAddress", value: "127.0.0.1" }], conditions: [condition("Accepted"), condition("Programmed")] };
            kubectl("patch", "gateways.gateway.networking.k8s.io", name, "-n", namespace, "--subresource=status", "--type=merge", "-p", JSON.stringify({ status }));
            break;
        }
        await new Promise((r) => setTimeout(r, 500));
    }
    return running;
}

describe("one stack from two checkouts at different paths (workstation and CI)", function () {
    this.timeout(15 * 60 * 1000);
    const run = Date.now().toString(36);
    const stackName = `e2e-clones-${run}`;
    const namespace = `tfs-e2e-clones-${run}`;
    const repo = `e2e-clones-${run}/${MODEL}`;
    // Inside the repository, so Node finds node_modules; different depths, so no path lines up by chance.
    const base = path.join(ROOT, ".tfs", `e2e-clones-${run}`);
    const workstationDir = path.join(base, "home", "alice", "tf-serving");
    const ciDir = path.join(base, "runner", "_work", "tf-serving", "tf-serving");
    /** The stack, from the CI checkout: the one that lives to the end. */
    let stack: Stack;
    let workstationCli: PulumiCli;
    let ciCli: PulumiCli;
    const output: string[] = [];
    const onOutput = (line: string) => { output.push(line); };
    const settings: Record<string, unknown> = {
        cloud: "local",
        modelPath: "models/half_plus_two",
        modelName: MODEL,
        replicas: 1,
        cpu: "250m", // beside the other lane's pods (test/e2e/lanes.ts)
        namespace,
        baseImage: env("TFS_E2E_BASE_IMAGE"),
        registry: { server: env("TFS_E2E_REGISTRY"), repositoryPrefix: `e2e-clones-${run}` },
        loadBalancerSourceRanges: ["127.0.0.0/8"],
    };
    /** The stack file both checkouts share: `settings` overridden by `extra` (an undefined value removes the key). */
    const stackFile = (extra: Record<string, unknown> = {}) => YAML.stringify({
        config: Object.fromEntries(Object.entries({ ...settings, ...extra }).filter(([, v]) => v !== undefined).map(([k, v]) => [`tf-serving:${k}`, v])),
    });
    /** Behind a Gateway of a class no controller serves (`programGateway`), with the golden file: what a canary needs, and no traffic. */
    const GATEWAY = {
        endpoint: "gateway", gateway: { className: "tfs-e2e-unserved" }, loadBalancerSourceRanges: undefined, publicEndpoint: true, golden: "golden.jsonl",
    };
    const CANARY = { canary: { steps: [50], holdSeconds: 5, replicas: 1, gates: { maxErrorRatio: 0.01, maxP99Ms: 1000, minRequests: 1 } } };
    /** `command`, whose whole output goes to the failure's log when it fails (its error keeps the end only, the stack's outputs). */
    const logged = <T>(command: Promise<T>): Promise<T> => command.catch((err: unknown) => {
        if (err instanceof PulumiCommandError) {
            output.push(err.result.stdout, err.result.stderr);
        }
        throw err;
    });
    const deployments = () => (kubectl("get", "deployments", "-n", namespace).items as any[]).map((d) => d.metadata.name as string);

    before(async () => {
        checkout(workstationDir, stackFile(), stackName);
        checkout(ciDir, stackFile(), stackName);
        stack = await LocalWorkspace.createOrSelectStack({ stackName, workDir: ciDir });
        workstationCli = pulumiCli(workstationDir, stackName);
        ciCli = pulumiCli(ciDir, stackName);
    });

    after(async () => {
        if (process.env.TFS_E2E_KEEP !== "1") {
            await stack?.destroy({ onOutput }).catch(() => undefined);
            await stack?.workspace.removeStack(stackName).catch(() => undefined);
            fs.rmSync(base, { recursive: true, force: true });
        }
    });

    afterEach(function () {
        if (this.currentTest?.state === "failed") {
            console.error(output.slice(-60).join(""));
        }
        output.length = 0;
    });

    let imageRef = "";

    it("up from the workstation: pods run the digest the registry holds for the pushed tag", async () => {
        const up = await workstationCli.up();
        assert.strictEqual(up.summary.result, "succeeded");
        // Whether or not the push reported a digest (the Docker provider falls back to the local store's
        // digest when it does not), the pod must run the digest the registry holds for the pushed tag.
        imageRef = up.outputs.imageRef as string;
        const [tag] = await tagsOf(repo);
        assert.match(tag, /^ctx-[0-9a-f]{16}$/);
        const res = await fetch(`http://${env("TFS_E2E_REGISTRY")}/v2/${repo}/manifests/${tag}`, { method: "HEAD", headers: { Accept: MANIFEST_TYPES } });
        assert.strictEqual(imageRef, `${env("TFS_E2E_REGISTRY")}/${repo}@${res.headers.get("docker-content-digest")}`);
        await manifestOf(imageRef);
        assert.strictEqual(kubectl("get", "deployment", MODEL, "-n", namespace).spec.template.spec.containers[0].image, imageRef);
    });

    it("preview --expect-no-changes from the CI checkout passes", async () => {
        assert.deepStrictEqual(await ciCli.preview({ expectNoChanges: true }), []);
        assert.strictEqual((await tagsOf(repo)).length, 1, "nothing pushed");
    });

    it("tfs deploy --preview-only from the CI checkout passes and plans no change", async () => {
        const result = await tfs(["deploy", "--stack", stackName, "--preview-only"], ciDir);
        assert.strictEqual(result.code, 0, result.stderr.slice(-3000));
        const summary = JSON.parse(result.stdout);
        assert.deepStrictEqual(summary.steps.map((s: any) => [s.step, s.ok]), [["preflight", true], ["preview", true]]);
        assert.deepStrictEqual(changingOps(summary.changes), [], JSON.stringify(summary.changes));
    });

    it("an up from the CI checkout changes nothing and keeps the pods on the same digest", async () => {
        const up = await ciCli.up();
        assert.deepStrictEqual(changingOps(up.summary.resourceChanges ?? {}), []);
        assert.strictEqual(up.outputs.imageRef, imageRef);
        assert.strictEqual((await tagsOf(repo)).length, 1);
    });

    it("the workstation turns a canary on, and a release of a version that answers wrong rolls back", async () => {
        fs.writeFileSync(path.join(workstationDir, `Pulumi.${stackName}.yaml`), stackFile({ ...GATEWAY, ...CANARY }));
        const on = await logged(programGateway(namespace, MODEL, workstationCli.up()));
        output.push(on.stdout);
        assert.strictEqual(on.summary.result, "succeeded");
        assert.strictEqual(on.outputs.imageRef, imageRef, "nothing to prove yet: the image did not change");
        // half_plus_three answers the golden case otherwise; it also drops half_plus_two's other signatures (allowed here).
        const versions = path.join(workstationDir, "models", "half_plus_two");
        fs.rmSync(path.join(versions, "123"), { recursive: true });
        fs.cpSync(path.join(fixtureModelDir("half_plus_three"), "00000123"), path.join(versions, "124"), { recursive: true });
        fs.writeFileSync(path.join(workstationDir, `Pulumi.${stackName}.yaml`), stackFile({ ...GATEWAY, ...CANARY, allowSignatureChange: true }));
        const release = await workstationCli.run("up", "--yes");
        output.push(release.stdout, release.stderr);
        assert.notStrictEqual(release.code, 0, "pulumi up fails");
        assert.match(release.stdout + release.stderr, /canary of half-plus-two failed: golden check: 1 of 1 cases of .*golden\.jsonl answered otherwise on the canary, before any traffic moved/);
        assert.strictEqual(kubectl("get", "deployment", MODEL, "-n", namespace).spec.template.spec.containers[0].image, imageRef, "the serving version serves");
        assert.deepStrictEqual(deployments(), [MODEL], "the rollback deleted the canary");
    });

    it("the workstation's checkout deleted, the CI checkout turns the canary off and retires what a release left", async () => {
        // What an interrupted release leaves (a cancelled job): the canary Deployment, as the release creates it.
        const state = JSON.parse((await ciCli.run("stack", "export")).stdout) as { deployment: { resources: { urn: string; outputs?: any }[] } };
        const releases = state.deployment.resources.filter((r) => r.urn.startsWith(`urn:pulumi:${stackName}::`) && r.urn.includes("pulumi-nodejs:dynamic:Resource::"));
        assert.deepStrictEqual(releases.map((r) => r.urn.split("::").pop()).sort(), [`${MODEL}-canary-finish`, `${MODEL}-canary-release`]);
        for (const r of releases) {
            assert.ok(!String(r.outputs.__provider).includes(workstationDir), `the state's provider of ${r.urn} names the workstation's checkout`);
        }
        const leftover = releases.find((r) => r.urn.endsWith("-canary-release"))!.outputs.canaryDeployment;
        execFileSync("kubectl", ["create", "-f", "-"], { input: JSON.stringify(leftover), stdio: ["pipe", "ignore", "pipe"], timeout: 30_000 });
        assert.deepStrictEqual(deployments().sort(), [MODEL, `${MODEL}-canary`]);

        fs.rmSync(workstationDir, { recursive: true });
        // CI's stack file: the canary removed, the serving version's files (as CI's checkout has them).
        fs.writeFileSync(path.join(ciDir, `Pulumi.${stackName}.yaml`), stackFile(GATEWAY));
        const off = await logged(ciCli.up());
        const printed = off.stdout + off.stderr;
        output.push(printed);
        assert.strictEqual(off.summary.result, "succeeded");
        assert.ok(!/nothing retired|TS5083/.test(printed), printed.slice(-3000));
        assert.match(printed, /canary of half-plus-two: half-plus-two serves .*; routes back to it alone, the canary retired/);
        assert.deepStrictEqual(deployments(), [MODEL], "no canary Deployment left");
        assert.strictEqual(off.outputs.imageRef, imageRef);
        assert.deepStrictEqual(await logged(ciCli.preview({ expectNoChanges: true })), []);
    });
});
