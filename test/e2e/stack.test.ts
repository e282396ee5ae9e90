/**
 * The real thing: the Pulumi engine (CLI, language host, Kubernetes and Docker providers) runs the
 * program against a real Kubernetes API server, whose admission enforces Pod Security, whose
 * controllers roll the Deployment out onto a real node (kubelet, containerd, runc: the probes run,
 * the server answers on a real pod IP, the load balancer forwards to it), with a simulated GPU
 * node (kwok) for placement, and a real registry. Seven scenarios, in order, on one stack.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { execFileSync } from "child_process";
import { E2eProject, MODEL, ROOT, createProject, env, kubectl, kubectlAsync, manifestOf, tagsOf } from "../support/e2eProject";
import { availableVersion, predict, request, underTraffic } from "../support/traffic";
import { PRESTOP_SLEEP_SECONDS, SHUTDOWN_SECONDS } from "../../components/modelServer";
import { changingOps } from "../support/cli";
import { grpcBalance } from "../support/grpcTraffic";

/* eslint-disable @typescript-eslint/no-explicit-any */

describe("the local stack, end to end (Pulumi engine, real API server, real registry)", function () {
    this.timeout(15 * 60 * 1000);
    let project: E2eProject;
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
        ({ modelDir, namespace: NAMESPACE } = project);
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
    let restUrl = "";
    /** half_plus_two: y = x/2 + 2. */
    const INSTANCES = [1, 2, 5];
    const EXPECTED = [2.5, 3, 4.5];

    const inPodSubnet = (ip: string) => {
        const [base, bits] = env("TFS_E2E_POD_SUBNET").split("/");
        const n = (a: string) => a.split(".").reduce((acc, o) => acc * 256 + Number(o), 0);
        const mask = Number(bits) === 0 ? 0 : 2 ** 32 - 2 ** (32 - Number(bits));
        return (n(ip) & mask) >>> 0 === (n(base) & mask) >>> 0;
    };

    it("1. first up: image pushed, pods Ready on the real node through the real probes, predict through the load balancer", async () => {
        const up = await project.pulumi.up();
        assert.strictEqual(up.summary.result, "succeeded");
        const outputs = up.outputs;
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
        for (const p of running) {
            const c = p.status.containerStatuses[0];
            assert.ok(c.ready && c.started && c.state.running, `${p.metadata.name}: ${JSON.stringify(c.state)}`);
            assert.strictEqual(c.restartCount, 0, `${p.metadata.name} restarted: the probes killed it`);
            assert.ok(inPodSubnet(p.status.podIP), `${p.metadata.name} has a real pod IP on the bridge, got ${p.status.podIP}`);
            // The server really runs there: its status answers on the pod IP from the host.
            assert.strictEqual(await availableVersion(`http://${p.status.podIP}:8501`, MODEL), "123");
        }

        restUrl = outputs.restUrl as string;
        assert.deepStrictEqual(await predict(restUrl, MODEL, INSTANCES), EXPECTED, "y = x/2 + 2 through the load balancer");
        assert.strictEqual((await tagsOf(repo)).length, 1, "one image pushed");
    });

    it("1b. gRPC through the LoadBalancer: 300 Predicts on one channel all land on one pod (L4 balances connections)", async () => {
        // TF Serving's `:tensorflow:serving:request_latency_count{entrypoint="GRPC"}` on each pod's
        // metrics path counts its share. A channel is one HTTP/2 connection and an L4 load balancer
        // balances connections, so every call lands on one pod however many replicas run
        // (gateway.test.ts shows the Gateway spreading each request).
        const requests = 300;
        const { grpcEndpoint } = await project.pulumi.outputs();
        assert.match(grpcEndpoint as string, /:8500$/);
        const podIps = pods().map((p) => p.status.podIP as string);
        assert.strictEqual(podIps.length, 2, "two replicas");
        const report = await grpcBalance(grpcEndpoint as string, { tls: false }, MODEL, podIps, requests);
        console.log(JSON.stringify({ grpc: { loadBalancer: report } }));
        assert.strictEqual(report.failed, 0);
        assert.strictEqual(report.podCounts.reduce((a, b) => a + b, 0), requests, `every Predict counted once: ${report.podCounts}`);
        assert.strictEqual(Math.max(...report.podCounts), requests, `one channel, one connection, one pod: ${report.podCounts}`);
    });

    it("2. a second up with nothing changed changes nothing and rebuilds no image (preview with the policy pack)", async () => {
        assert.deepStrictEqual(await project.pulumi.preview({ expectNoChanges: true, policyPacks: [path.join(ROOT, "policy")] }), []);
        const generation = deployment().metadata.generation;
        const up = await project.pulumi.up();
        assert.deepStrictEqual(changingOps(up.summary.resourceChanges ?? {}), []);
        assert.strictEqual(deployment().metadata.generation, generation, "the Deployment was not touched");
        assert.strictEqual((await tagsOf(repo)).length, 1, "no image rebuilt or pushed");
    });

    /** Waits (bounded: 180 s) until the Deployment's rollout is over: every replica updated and available, no old pod left. */
    const rolledOut = async (replicas: number) => {
        for (let i = 0; i < 360; i++) {
            const d = await kubectlAsync("get", "deployment", MODEL, "-n", NAMESPACE);
            const s = d.status;
            if (s.observedGeneration >= d.metadata.generation && s.updatedReplicas === replicas && s.availableReplicas === replicas && s.replicas === replicas) {
                return;
            }
            await new Promise((r) => setTimeout(r, 500));
        }
        assert.fail("the rollout did not finish within 180 s");
    };

    it("3. a new model version under traffic: no failed request, answers switch to it, only the model layer is new", async () => {
        fs.cpSync(path.join(modelDir, "123"), path.join(modelDir, "124"), { recursive: true });
        // Watch the rollout from the side: available replicas must never drop below the desired 2.
        let watching = true;
        let lowest = Infinity;
        let samples = 0;
        const watch = (async () => {
            for (let i = 0; watching && i < 3000; i++) {
                try {
                    const d = await kubectlAsync("get", "deployment", MODEL, "-n", NAMESPACE);
                    lowest = Math.min(lowest, d.status.availableReplicas ?? 0);
                    samples++;
                } catch {
                    // the API server may be busy for a moment; the next sample counts
                }
                await new Promise((r) => setTimeout(r, 100));
            }
        })();
        const t0 = Date.now();
        let upSeconds = 0;
        // The traffic runs through the whole update: `pulumi up`, then (should the provider's await
        // return before the rollout is over, as seen here now and then) until the old pods are gone.
        const updating = project.pulumi.up().then(async (result) => {
            upSeconds = (Date.now() - t0) / 1000;
            await rolledOut(2);
            return result;
        });
        const traffic = await underTraffic(restUrl, MODEL, updating, { rps: 20, expected: EXPECTED });
        const up = await updating;
        watching = false;
        await watch;
        console.log(`      update under traffic (pulumi up ${upSeconds.toFixed(1)} s, rollout done after ${((Date.now() - t0) / 1000).toFixed(1)} s): ${traffic.requests} requests, `
            + `${traffic.failures.length} failed, p50 ${traffic.p50.toFixed(1)} ms, p99 ${traffic.p99.toFixed(1)} ms; `
            + `versions answering: ${traffic.versions[0]?.version} first, ${traffic.versions[traffic.versions.length - 1]?.version} last, `
            + `${Math.max(0, traffic.versions.length - 2)} alternations between them while both served`);
        assert.strictEqual(up.summary.result, "succeeded");
        assert.deepStrictEqual(traffic.failures.slice(0, 5), [], `${traffic.failures.length} of ${traffic.requests} requests failed`);
        assert.ok(traffic.requests > 100, `the loop ran through the update (${traffic.requests} requests)`);
        assert.strictEqual(traffic.versions[0]?.version, "123", "version 123 answered first");
        assert.strictEqual(await availableVersion(restUrl, MODEL), "124", "version 124 answers after the update");
        const newImage = up.outputs.imageRef as string;
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
        // What the user reads: `pulumi preview`'s own output, not its JSON.
        const refused = async (pattern: RegExp) => {
            const r = await project.pulumi.run("preview");
            const out = r.stdout + r.stderr;
            assert.notStrictEqual(r.code, 0, `the preview must fail:\n${out.slice(-3000)}`);
            assert.match(out, pattern, out.slice(-3000));
            assert.doesNotMatch(out, /at Object\.<anonymous>|\.ts:\d+:\d+/, "no stack trace for a user mistake");
        };
        await refused(/tf-serving:modelPath[^]*(move them into|version folder)/i);
        setConfig({ replicas: 0 });
        await refused(/tf-serving:replicas = "0": must be a whole number from 1/);
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

    /**
     * Deletes a pod and watches it (every 250 ms, bounded: 90 s) until its container has exited or
     * the pod is gone; meanwhile asks the server on the pod's own IP, which must keep answering
     * through the preStop pause (in-flight and late requests still complete).
     */
    const terminate = async (name: string) => {
        const ip = kubectl("get", "pod", name, "-n", NAMESPACE).status.podIP as string;
        const t0 = Date.now();
        execFileSync("kubectl", ["delete", "pod", name, "-n", NAMESPACE, "--wait=false"], { stdio: "ignore", timeout: 30_000 });
        let served = 0;
        let failedDuringPause = 0;
        for (let i = 0; i < 360; i++) {
            let exited = false;
            try {
                exited = Boolean((await kubectlAsync("get", "pod", name, "-n", NAMESPACE)).status.containerStatuses?.[0]?.state?.terminated);
            } catch {
                exited = true; // the pod is gone
            }
            if (exited) {
                return { seconds: (Date.now() - t0) / 1000, served, failedDuringPause };
            }
            const inPause = (Date.now() - t0) / 1000 < PRESTOP_SLEEP_SECONDS - 1;
            await request(`http://${ip}:8501/v1/models/${MODEL}`, { timeoutMs: 1000 }).then(
                (a) => { served += a.status === 200 ? 1 : 0; failedDuringPause += a.status !== 200 && inPause ? 1 : 0; },
                () => { failedDuringPause += inPause ? 1 : 0; });
            await new Promise((r) => setTimeout(r, 250));
        }
        assert.fail(`pod ${name} still running 90 s after its deletion`);
    };

    it("5. termination: the pod exits when the preStop pause ends, not at the end of the grace period, serving until then", async () => {
        const grace = PRESTOP_SLEEP_SECONDS + SHUTDOWN_SECONDS;
        // Before: the same pod with the server as PID 1 (no shared process namespace), outside the Service.
        const template = deployment().spec.template;
        const pid1 = `${MODEL}-pid1`;
        const body = { apiVersion: "v1", kind: "Pod", metadata: { name: pid1, namespace: NAMESPACE, labels: { "tfs-e2e/case": "pid1" } }, spec: { ...template.spec, shareProcessNamespace: false } };
        execFileSync("kubectl", ["apply", "-f", "-"], { input: JSON.stringify(body), stdio: ["pipe", "ignore", "inherit"], timeout: 30_000 });
        let ready = false;
        for (let i = 0; i < 240 && !ready; i++) {
            const p = kubectl("get", "pod", pid1, "-n", NAMESPACE);
            ready = p.status.conditions?.some((c: any) => c.type === "Ready" && c.status === "True") ?? false;
            if (!ready) {
                await new Promise((r) => setTimeout(r, 500));
            }
        }
        assert.ok(ready, `${pid1} never became Ready`);
        const before = await terminate(pid1);

        // After: a pod of the Deployment (shareProcessNamespace), under traffic through the load balancer.
        const [victim] = await currentPods(2);
        const done = terminate(victim.metadata.name);
        const traffic = await underTraffic(restUrl, MODEL, done, { rps: 20, expected: EXPECTED });
        const after = await done;
        console.log(`      termination, deletion to container exit: server as PID 1 ${before.seconds.toFixed(1)} s `
            + `(grace period ${grace} s); pause process as PID 1 ${after.seconds.toFixed(1)} s (preStop ${PRESTOP_SLEEP_SECONDS} s); `
            + `${after.served} requests answered on the pod's IP while it terminated; through the load balancer `
            + `${traffic.requests} requests, ${traffic.failures.length} failed`);
        assert.ok(before.seconds >= grace - 3, `with the server as PID 1 the pod should sit out the grace period, took ${before.seconds} s`);
        assert.ok(after.seconds >= PRESTOP_SLEEP_SECONDS - 1 && after.seconds <= PRESTOP_SLEEP_SECONDS + 5, `took ${after.seconds} s`);
        assert.strictEqual(after.failedDuringPause, 0, "the server stops answering only after the preStop pause");
        assert.ok(after.served > 0);
        assert.deepStrictEqual(traffic.failures.slice(0, 5), [], `${traffic.failures.length} of ${traffic.requests} requests failed`);
        await currentPods(2);
    });

    it("6. a GPU model lands on the GPU node; back on CPU it leaves it", async () => {
        setConfig({ gpu: true, replicas: 1 });
        await project.pulumi.up();
        const [gpuPod] = await currentPods(1);
        assert.strictEqual(gpuPod.spec.nodeName, env("TFS_E2E_GPU_NODE"));
        assert.strictEqual(gpuPod.spec.containers[0].resources.limits["nvidia.com/gpu"], "1");
        setConfig({ replicas: 1 });
        await project.pulumi.up();
        const [cpuPod] = await currentPods(1);
        assert.strictEqual(cpuPod.spec.nodeName, env("TFS_E2E_CPU_NODE"), "CPU pods never take the GPU node");
        assert.strictEqual(cpuPod.spec.containers[0].resources.limits["nvidia.com/gpu"], undefined);
    });

    it("7. destroy leaves nothing behind in the cluster", async () => {
        const result = await project.pulumi.run("destroy", "--yes");
        assert.strictEqual(result.code, 0, `pulumi destroy: ${(result.stdout + result.stderr).slice(-3000)}`);
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
