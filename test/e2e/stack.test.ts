/**
 * The real thing: the Pulumi engine (CLI, language host, Kubernetes and Docker providers) runs the
 * program against a real Kubernetes API server, whose admission enforces Pod Security, whose
 * controllers roll the Deployment out over kwok's simulated nodes, and a real registry. Six
 * scenarios, in order, on one stack.
 */
import * as assert from "assert";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { LocalWorkspace, Stack } from "@pulumi/pulumi/automation";
import * as YAML from "yaml";

/* eslint-disable @typescript-eslint/no-explicit-any */
const ROOT = path.resolve(__dirname, "../..");
const FIXTURES = path.resolve(ROOT, "../shared/fixtures/saved_models");
const MODEL = "half-plus-two";
const RUN = `${Date.now().toString(36)}`;
const NAMESPACE = `tfs-e2e-${RUN}`;
const STACK = `e2e-${RUN}`;

function kubectl(...args: string[]): any {
    return JSON.parse(execFileSync("kubectl", [...args, "-o", "json"], { encoding: "utf8", timeout: 30_000, stdio: ["ignore", "pipe", "pipe"] }));
}

function env(name: string): string {
    const v = process.env[name];
    assert.ok(v, `${name} is not set: the e2e environment's env file was not loaded (test/e2e/env.ts)`);
    return v;
}

/** A registry API call on loopback. */
async function registry(pathname: string, accept?: string): Promise<{ status: number; body: any; headers: Headers }> {
    const res = await fetch(`http://${env("TFS_E2E_REGISTRY")}${pathname}`, { headers: accept ? { Accept: accept } : {} });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

const MANIFEST = "application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json";

async function manifestOf(imageRef: string): Promise<{ layers: { digest: string; size: number }[] }> {
    const [, repoAndRest] = imageRef.split(`${env("TFS_E2E_REGISTRY")}/`);
    const [repo, digest] = repoAndRest.split("@");
    const m = await registry(`/v2/${repo}/manifests/${digest}`, MANIFEST);
    assert.strictEqual(m.status, 200, `manifest of ${imageRef}`);
    return m.body;
}

describe("the local stack, end to end (Pulumi engine, real API server, real registry)", function () {
    this.timeout(15 * 60 * 1000);
    let projectDir: string;
    let modelDir: string;
    let stack: Stack;
    const output: string[] = [];
    const onOutput = (line: string) => { output.push(line); };
    /** Writes the stack's config file as a user would: typed YAML values, structured keys as mappings. */
    const setConfig = (extra: Record<string, unknown> = {}) => {
        const values: Record<string, unknown> = {
            cloud: "local",
            modelPath: modelDir,
            modelName: MODEL,
            replicas: 2,
            namespace: NAMESPACE,
            baseImage: env("TFS_E2E_BASE_IMAGE"),
            registry: { server: env("TFS_E2E_REGISTRY"), repositoryPrefix: `e2e-${RUN}` },
            loadBalancerSourceRanges: ["127.0.0.0/8"],
            ...extra,
        };
        const config = Object.fromEntries(Object.entries(values).map(([k, v]) => [`tf-serving:${k}`, v]));
        fs.writeFileSync(path.join(projectDir, `Pulumi.${STACK}.yaml`), YAML.stringify({ config }));
    };
    const deployment = () => kubectl("get", "deployment", MODEL, "-n", NAMESPACE);
    const pods = () => kubectl("get", "pods", "-n", NAMESPACE, "-l", `app.kubernetes.io/instance=${MODEL}`).items as any[];

    before(async () => {
        // A project folder inside the repository (so Node finds node_modules) whose program is the repository's.
        fs.mkdirSync(path.join(ROOT, ".tfs"), { recursive: true });
        projectDir = fs.mkdtempSync(path.join(ROOT, ".tfs", "e2e-project-"));
        fs.copyFileSync(path.join(ROOT, "Pulumi.yaml"), path.join(projectDir, "Pulumi.yaml"));
        fs.writeFileSync(path.join(projectDir, "index.ts"), `export * from ${JSON.stringify(path.join(ROOT, "index"))};\n`);
        modelDir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-e2e-model-"));
        fs.cpSync(path.join(FIXTURES, "half_plus_two_cpu", "00000123"), path.join(modelDir, "123"), { recursive: true });
        stack = await LocalWorkspace.createOrSelectStack({ stackName: STACK, workDir: projectDir });
        setConfig();
    });

    after(async () => {
        if (process.env.TFS_E2E_KEEP !== "1") {
            await stack?.destroy({ onOutput }).catch(() => undefined);
            await stack?.workspace.removeStack(STACK).catch(() => undefined);
            fs.rmSync(projectDir, { recursive: true, force: true });
            fs.rmSync(modelDir, { recursive: true, force: true });
        }
    });

    afterEach(function () {
        if (this.currentTest?.state === "failed") {
            console.error(output.slice(-60).join(""));
        }
        output.length = 0;
    });

    let firstImage = "";

    it("1. first up: image pushed, Deployment ready under the restricted Pod Security Standard, address in the outputs", async () => {
        const up = await stack.up({ onOutput });
        assert.strictEqual(up.summary.result, "succeeded");
        const outputs = Object.fromEntries(Object.entries(up.outputs).map(([k, v]) => [k, v.value]));
        firstImage = outputs.imageRef as string;
        assert.match(firstImage, new RegExp(`^${env("TFS_E2E_REGISTRY").replace(/\./g, "\\.")}/e2e-${RUN}/${MODEL}@sha256:[0-9a-f]{64}$`));
        assert.ok(outputs.externalAddress, "the load balancer controller gave the Service an address");
        assert.strictEqual(outputs.restUrl, `http://${outputs.externalAddress}:8501`);
        assert.strictEqual(outputs.modelStatusUrl, `http://${outputs.externalAddress}:8501/v1/models/${MODEL}`);
        assert.strictEqual(outputs.namespace, NAMESPACE);

        const ns = kubectl("get", "namespace", NAMESPACE);
        assert.strictEqual(ns.metadata.labels["pod-security.kubernetes.io/enforce"], "restricted");
        const d = deployment();
        assert.strictEqual(d.status.readyReplicas, 2);
        assert.strictEqual(d.spec.template.spec.containers[0].image, firstImage, "pods run the pushed digest");
        const running = pods();
        assert.strictEqual(running.length, 2, "the restricted namespace admitted both pods");
        assert.ok(running.every((p) => p.spec.nodeName === env("TFS_E2E_CPU_NODE")), "CPU pods stay off the GPU node");

        const tags = await registry(`/v2/e2e-${RUN}/${MODEL}/tags/list`);
        assert.strictEqual(tags.status, 200);
        assert.strictEqual(tags.body.tags.length, 1, "one image pushed");
    });

    it("2. a second up with nothing changed changes nothing and rebuilds no image (preview with the policy pack)", async () => {
        const preview = await stack.preview({ expectNoChanges: true, policyPacks: [path.join(ROOT, "policy")], onOutput });
        assert.deepStrictEqual(Object.keys(preview.changeSummary).filter((op) => op !== "same"), []);
        const generation = deployment().metadata.generation;
        const up = await stack.up({ onOutput });
        assert.deepStrictEqual(Object.keys(up.summary.resourceChanges ?? {}).filter((op) => op !== "same"), []);
        assert.strictEqual(deployment().metadata.generation, generation, "the Deployment was not touched");
        assert.strictEqual((await registry(`/v2/e2e-${RUN}/${MODEL}/tags/list`)).body.tags.length, 1, "no image rebuilt or pushed");
    });

    it("3. a new model version: only the model layer is new, pods roll without losing availability, outputs follow", async () => {
        fs.cpSync(path.join(modelDir, "123"), path.join(modelDir, "124"), { recursive: true });
        // Watch the rollout from the side: available replicas must never drop below the desired 2.
        let watching = true;
        let lowest = Infinity;
        let samples = 0;
        const watch = (async () => {
            for (let i = 0; watching && i < 3000; i++) {
                try {
                    const d = deployment();
                    lowest = Math.min(lowest, d.status.availableReplicas ?? 0);
                    samples++;
                } catch {
                    // the API server may be busy for a moment; the next sample counts
                }
                await new Promise((r) => setTimeout(r, 100));
            }
        })();
        const up = await stack.up({ onOutput });
        watching = false;
        await watch;
        assert.strictEqual(up.summary.result, "succeeded");
        const newImage = up.outputs.imageRef.value as string;
        assert.notStrictEqual(newImage, firstImage, "a new image digest");
        assert.ok(samples > 5, `watched the rollout (${samples} samples)`);
        assert.ok(lowest >= 2, `available replicas dropped to ${lowest} during the rollout`);
        const d = deployment();
        assert.strictEqual(d.spec.template.spec.containers[0].image, newImage);
        assert.strictEqual(d.status.updatedReplicas, 2);

        const before = await manifestOf(firstImage);
        const after = await manifestOf(newImage);
        const shared = after.layers.filter((l) => before.layers.some((b) => b.digest === l.digest));
        const fresh = after.layers.filter((l) => !before.layers.some((b) => b.digest === l.digest));
        assert.strictEqual(fresh.length, 1, "exactly one new layer: the new version's model files");
        assert.strictEqual(shared.length, after.layers.length - 1, "every base layer is reused");
    });

    it("4. a broken model or invalid config stops at preview with the clear message, leaving the deployment untouched", async () => {
        const untouched = deployment();
        const flat = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-e2e-flat-"));
        fs.cpSync(path.join(modelDir, "124"), flat, { recursive: true });
        setConfig({ modelPath: flat });
        await assert.rejects(stack.preview({ onOutput }), (err: Error) => {
            assert.match(err.message, /tf-serving:modelPath/);
            assert.match(err.message, /move them into|version folder/i);
            assert.doesNotMatch(err.message, /at Object\.<anonymous>|\.ts:\d+:\d+/, "no stack trace for a user mistake");
            return true;
        });
        setConfig({ replicas: 0 });
        await assert.rejects(stack.preview({ onOutput }), /tf-serving:replicas = "0": must be a whole number from 1/);
        setConfig();
        const now = deployment();
        assert.strictEqual(now.metadata.generation, untouched.metadata.generation);
        assert.strictEqual(now.spec.template.spec.containers[0].image, untouched.spec.template.spec.containers[0].image);
        fs.rmSync(flat, { recursive: true, force: true });
    });

    it("5. a GPU model lands on the GPU node; back on CPU it leaves it", async () => {
        setConfig({ gpu: true, replicas: 1 });
        await stack.up({ onOutput });
        const gpuPods = pods().filter((p) => !p.metadata.deletionTimestamp);
        assert.strictEqual(gpuPods.length, 1);
        assert.strictEqual(gpuPods[0].spec.nodeName, env("TFS_E2E_GPU_NODE"));
        assert.strictEqual(gpuPods[0].spec.containers[0].resources.limits["nvidia.com/gpu"], "1");
        setConfig({ replicas: 1 });
        await stack.up({ onOutput });
        const cpuPods = pods().filter((p) => !p.metadata.deletionTimestamp);
        assert.ok(cpuPods.length >= 1);
        assert.ok(cpuPods.every((p) => p.spec.nodeName === env("TFS_E2E_CPU_NODE")), "CPU pods never take the GPU node");
    });

    it("6. destroy leaves nothing behind in the cluster", async () => {
        const result = await stack.destroy({ onOutput });
        assert.strictEqual(result.summary.result, "succeeded");
        let gone = false;
        for (let i = 0; i < 120 && !gone; i++) {
            const all = kubectl("get", "namespaces").items as any[]; // lists, so a missing namespace is no error
            gone = !all.some((n) => n.metadata.name === NAMESPACE);
            if (!gone) {
                await new Promise((r) => setTimeout(r, 500));
            }
        }
        assert.ok(gone, `namespace ${NAMESPACE} still exists`);
        const leftovers = kubectl("get", "deployments,services,configmaps,serviceaccounts,poddisruptionbudgets", "-A", "-l", `app.kubernetes.io/instance=${MODEL},app.kubernetes.io/name=tf-serving`).items as any[];
        assert.deepStrictEqual(leftovers.filter((o) => o.metadata.namespace === NAMESPACE).map((o) => `${o.kind}/${o.metadata.name}`), []);
    });
});
