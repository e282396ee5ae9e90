/**
 * The real thing: the Pulumi engine (CLI, language host, Kubernetes and Docker providers) runs the
 * program against a real Kubernetes API server, whose admission enforces Pod Security, whose
 * controllers roll the Deployment out over kwok's simulated nodes, and a real registry. Six
 * scenarios, in order, on one stack.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { Stack } from "@pulumi/pulumi/automation";
import { E2eProject, MODEL, ROOT, createProject, env, kubectl, manifestOf, tagsOf } from "../support/e2eProject";

/* eslint-disable @typescript-eslint/no-explicit-any */

describe("the local stack, end to end (Pulumi engine, real API server, real registry)", function () {
    this.timeout(15 * 60 * 1000);
    let project: E2eProject;
    let stack: Stack;
    let modelDir: string;
    let NAMESPACE: string;
    let repo: string;
    const output: string[] = [];
    const onOutput = (line: string) => { output.push(line); };
    const setConfig = (extra: Record<string, unknown> = {}) => project.setConfig(extra);
    const deployment = () => kubectl("get", "deployment", MODEL, "-n", NAMESPACE);
    const pods = () => kubectl("get", "pods", "-n", NAMESPACE, "-l", `app.kubernetes.io/instance=${MODEL}`).items as any[];

    before(async () => {
        project = await createProject();
        ({ stack, modelDir, namespace: NAMESPACE } = project);
        repo = `e2e-${project.run}/${MODEL}`;
    });

    after(async () => {
        if (process.env.TFS_E2E_KEEP !== "1") {
            await project?.dispose(onOutput);
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
        assert.ok(firstImage.startsWith(`${env("TFS_E2E_REGISTRY")}/${repo}@sha256:`), firstImage);
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

        assert.strictEqual((await tagsOf(repo)).length, 1, "one image pushed");
    });

    it("2. a second up with nothing changed changes nothing and rebuilds no image (preview with the policy pack)", async () => {
        const preview = await stack.preview({ expectNoChanges: true, policyPacks: [path.join(ROOT, "policy")], onOutput });
        assert.deepStrictEqual(Object.keys(preview.changeSummary).filter((op) => op !== "same"), []);
        const generation = deployment().metadata.generation;
        const up = await stack.up({ onOutput });
        assert.deepStrictEqual(Object.keys(up.summary.resourceChanges ?? {}).filter((op) => op !== "same"), []);
        assert.strictEqual(deployment().metadata.generation, generation, "the Deployment was not touched");
        assert.strictEqual((await tagsOf(repo)).length, 1, "no image rebuilt or pushed");
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

    /**
     * The pods of the Deployment's current template, once the old ReplicaSet's pods are gone: a
     * rollout is complete (and `up` returns) when the new pods are available, a moment before the
     * controller has removed the old ones. Bounded: 60 s.
     */
    const currentPods = async (replicas: number) => {
        for (let i = 0; i < 120; i++) {
            const live = pods().filter((p) => !p.metadata.deletionTimestamp);
            if (live.length === replicas) {
                return live;
            }
            await new Promise((r) => setTimeout(r, 500));
        }
        assert.fail(`the Deployment did not settle on ${replicas} pod(s) within 60 s`);
    };

    it("5. a GPU model lands on the GPU node; back on CPU it leaves it", async () => {
        setConfig({ gpu: true, replicas: 1 });
        await stack.up({ onOutput });
        const [gpuPod] = await currentPods(1);
        assert.strictEqual(gpuPod.spec.nodeName, env("TFS_E2E_GPU_NODE"));
        assert.strictEqual(gpuPod.spec.containers[0].resources.limits["nvidia.com/gpu"], "1");
        setConfig({ replicas: 1 });
        await stack.up({ onOutput });
        const [cpuPod] = await currentPods(1);
        assert.strictEqual(cpuPod.spec.nodeName, env("TFS_E2E_CPU_NODE"), "CPU pods never take the GPU node");
        assert.strictEqual(cpuPod.spec.containers[0].resources.limits["nvidia.com/gpu"], undefined);
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
        const leftovers = kubectl("get", "deployments,services,configmaps,serviceaccounts,poddisruptionbudgets,networkpolicies", "-A", "-l", `app.kubernetes.io/instance=${MODEL},app.kubernetes.io/name=tf-serving`).items as any[];
        assert.deepStrictEqual(leftovers.filter((o) => o.metadata.namespace === NAMESPACE).map((o) => `${o.kind}/${o.metadata.name}`), []);
    });
});
