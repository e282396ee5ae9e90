/**
 * `tfs doctor` against the real kube-apiserver of the end-to-end environment (`scripts/e2e-env
 * start`; the test reads KUBECONFIG, else the environment's env file).
 *
 * For each failure kind the test writes into a fresh namespace the objects that failure leaves
 * behind: a Pod bound to a node that does not exist (so no kubelet, kwok or controller touches
 * it), its `status` written through the status subresource (container states, conditions), the
 * Events the kubelet or a cloud controller would have written, and a Service. Pending pods and
 * the healthy case are real: the scheduler writes the FailedScheduling events against the nodes
 * (the real CPU node, the kwok GPU node tainted nvidia.com/gpu), kwok runs and readies the healthy
 * pods (on the GPU node, tolerating its taint), and the loopback load-balancer controller gives the
 * Service its address.
 *
 * Logs cannot come from a kubelet here (kwok has none): the test gives the doctor TF Serving's log
 * lines through the collector's `logSource` seam; everything else goes through the API server.
 *
 * Set TFS_DOCTOR_REPORT_DIR to keep each report as text (the README's examples come from there).
 */
import * as assert from "assert";
import { execFile } from "child_process";
import * as fs from "fs";
import * as path from "path";
import type * as K8s from "@kubernetes/client-node";
import { DoctorResult, Finding, formatReport, runDoctor } from "../../ops/doctor";
import { Event, Pod, Service } from "../../ops/doctor/snapshot";
import { IMAGE, MODEL, PodOptions, TF_LOGS, ago, event, labels, pod, podSpec, service } from "../support/doctorFixtures";

const REPO = path.resolve(__dirname, "../..");
/** A node name no node has: pods bound to it are left exactly as the test writes them. */
const GHOST_NODE = "tfs-doctor-no-such-node";
const POLL_MS = 500;

function kubeconfigPath(): string {
    if (process.env.KUBECONFIG) {
        return process.env.KUBECONFIG;
    }
    const state = process.env.TFS_E2E_STATE ?? path.join(process.env.HOME ?? "/root", ".cache/tf-serving-e2e/state");
    const envFile = path.join(state, "env.sh");
    const line = fs.existsSync(envFile) ? /^export KUBECONFIG="?([^"\n]+)"?$/m.exec(fs.readFileSync(envFile, "utf8")) : null;
    if (!line) {
        throw new Error("the end-to-end environment is not running: run scripts/e2e-env start, then eval \"$(scripts/e2e-env env)\"");
    }
    return line[1];
}

/** Polls `check` until it returns a value, at most `seconds` (bounded in count and time). */
async function waitFor<T>(what: string, seconds: number, check: () => Promise<T | undefined>): Promise<T> {
    const deadline = Date.now() + seconds * 1000;
    for (let i = 0; i < (seconds * 1000) / POLL_MS + 1; i++) {
        const value = await check();
        if (value !== undefined) {
            return value;
        }
        if (Date.now() > deadline) {
            break;
        }
        await new Promise((r) => setTimeout(r, POLL_MS));
    }
    throw new Error(`timed out after ${seconds}s waiting for ${what}`);
}

describe("tfs doctor against the end-to-end API server", function () {
    this.timeout(180_000);
    let k8s: typeof K8s;
    let kubeconfig: string;
    let core: K8s.CoreV1Api;
    let apps: K8s.AppsV1Api;
    let ns: string;
    let reports: string | undefined;

    before(async () => {
        kubeconfig = kubeconfigPath();
        k8s = await import("@kubernetes/client-node");
        const kc = new k8s.KubeConfig();
        kc.loadFromFile(kubeconfig);
        core = kc.makeApiClient(k8s.CoreV1Api);
        apps = kc.makeApiClient(k8s.AppsV1Api);
        await core.listNode().catch((err) => {
            throw new Error(`the end-to-end API server does not answer (${err.message}): run scripts/e2e-env start`);
        });
        reports = process.env.TFS_DOCTOR_REPORT_DIR;
        if (reports) {
            fs.mkdirSync(reports, { recursive: true });
        }
    });

    beforeEach(async function () {
        const slug = (this.currentTest?.title ?? "t").toLowerCase().replace(/[^a-z0-9]+/g, "-").slice(0, 30).replace(/-+$/, "");
        ns = `tfs-doctor-${slug}-${Math.random().toString(36).slice(2, 7)}`;
        await core.createNamespace({ body: { metadata: { name: ns } } });
        // The pods name the ServiceAccount ModelServer creates; admission refuses a pod whose account does not exist.
        await core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: MODEL }, automountServiceAccountToken: false } });
    });

    afterEach(async () => {
        // Pods on the node that does not exist have no kubelet to confirm a graceful stop: delete them at once.
        await core.deleteCollectionNamespacedPod({ namespace: ns, gracePeriodSeconds: 0 }).catch(() => undefined);
        await core.deleteNamespace({ name: ns }).catch(() => undefined);
    });

    /** Creates the pod on a node that does not exist, then writes the status the failure leaves, as a kubelet would. */
    async function ghostPod(options: PodOptions): Promise<Pod> {
        const wanted = pod({ ...options, nodeName: GHOST_NODE, now: Date.now() });
        const body = { ...wanted, metadata: { name: wanted.metadata!.name, labels: wanted.metadata!.labels, annotations: wanted.metadata!.annotations } };
        delete (body as { status?: unknown }).status;
        const created = await core.createNamespacedPod({ namespace: ns, body: body as K8s.V1Pod });
        const written = await core.replaceNamespacedPodStatus({
            name: wanted.metadata!.name!,
            namespace: ns,
            body: fromJson<K8s.V1Pod>({ ...toJson<Pod>(created), status: wanted.status }),
        });
        return toJson(written);
    }

    /** Creates a pod the scheduler will place (or fail to): no node name. */
    async function pendingPod(spec = podSpec()): Promise<Pod> {
        const created = await core.createNamespacedPod({
            namespace: ns,
            body: { metadata: { name: `${MODEL}-6b7c9d8f5-pend1`, labels: labels() }, spec: spec as K8s.V1PodSpec },
        });
        return toJson(created);
    }

    async function writeEvent(about: { metadata?: { name?: string; uid?: string } }, options: Parameters<typeof event>[1]): Promise<void> {
        const e = event(about, { ...options, now: Date.now() });
        e.metadata = { generateName: `${about.metadata?.name}.`, namespace: ns } as Event["metadata"];
        e.involvedObject = { ...e.involvedObject, namespace: ns };
        await core.createNamespacedEvent({ namespace: ns, body: fromJson<K8s.CoreV1Event>(e) });
    }

    /** The model's Service; without a class the loopback controller gives it an address, which the test waits for. */
    async function modelService(options: { loadBalancerClass?: string } = {}): Promise<Service> {
        const s = service({ loadBalancerClass: options.loadBalancerClass });
        await core.createNamespacedService({
            namespace: ns,
            body: { metadata: { name: MODEL, labels: labels() }, spec: s.spec as K8s.V1ServiceSpec },
        });
        if (options.loadBalancerClass) {
            return s;
        }
        return waitFor("the Service's load balancer address", 30, async () => {
            const read = await core.readNamespacedService({ name: MODEL, namespace: ns });
            return read.status?.loadBalancer?.ingress?.length ? toJson<Service>(read) : undefined;
        });
    }

    /** Runs the doctor on the test's namespace; container logs come from `logs` (keyed POD/CONTAINER, " previous" for the last run). */
    async function doctor(kind: string, logs: Record<string, string> = {}, lbGraceSeconds?: number): Promise<DoctorResult> {
        const result = await runDoctor({ kubeconfigFile: kubeconfig, namespace: ns }, {
            loadBalancerGraceSeconds: lbGraceSeconds,
            logSource: async ({ pod: podName, container, previous }) => {
                const text = logs[`${podName}/${container}${previous ? " previous" : ""}`];
                if (text === undefined) {
                    throw new Error("no kubelet in the end-to-end environment");
                }
                return text;
            },
        });
        if (reports) {
            fs.writeFileSync(path.join(reports, `${kind}.txt`), `${formatReport(result)}\n`);
        }
        return result;
    }

    function only(result: DoctorResult, kind: Finding["kind"]): Finding {
        const found = result.diagnosis.findings;
        assert.deepStrictEqual(found.map((f) => f.kind), [kind], formatReport(result));
        assert.strictEqual(result.diagnosis.healthy, false);
        return found[0];
    }

    function hasEvidence(f: Finding, pattern: RegExp): void {
        assert.ok(f.evidence.some((e) => pattern.test(e)), `no evidence matching ${pattern} in:\n${f.evidence.join("\n")}`);
    }

    it("says healthy for pods kwok runs and readies behind a load balancer with an address", async () => {
        // The CPU node is real now (and this fixture's image exists nowhere): the simulated pods go
        // to the kwok node, the GPU one, whose taint they tolerate.
        const template = {
            ...podSpec(),
            nodeSelector: { "kubernetes.io/hostname": process.env.TFS_E2E_GPU_NODE ?? "tfs-e2e-gpu" },
            tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }],
        };
        await apps.createNamespacedDeployment({
            namespace: ns,
            body: {
                metadata: { name: MODEL, labels: labels() },
                spec: { replicas: 2, selector: { matchLabels: labels() }, template: { metadata: { labels: labels() }, spec: template as K8s.V1PodSpec } },
            },
        });
        await modelService();
        await waitFor("2 available replicas", 90, async () => {
            const d = await apps.readNamespacedDeployment({ name: MODEL, namespace: ns });
            return (d.status?.availableReplicas ?? 0) >= 2 ? d : undefined;
        });
        const result = await doctor("healthy");
        assert.deepStrictEqual(result.diagnosis.findings, [], formatReport(result));
        assert.strictEqual(result.diagnosis.healthy, true);
        assert.strictEqual(result.diagnosis.checked.models[0].readyPods, 2);
        assert.ok(result.diagnosis.checked.models[0].service?.address, "the Service has an address");

        // The command itself, as a user runs it: exit 0.
        const run = await new Promise<{ code: number; stdout: string }>((resolve) => {
            execFile(process.execPath, [path.join(REPO, "bin", "tfs.js"), "doctor", "--kubeconfig", kubeconfig, "--namespace", ns],
                { cwd: REPO, encoding: "utf8", timeout: 60_000 }, (err, stdout) => resolve({ code: err ? Number(err.code) : 0, stdout }));
        });
        assert.strictEqual(run.code, 0, run.stdout);
        assert.match(run.stdout, /^healthy: /m);
    });

    it("names a model path without version folders from TF Serving's log", async () => {
        const p = await ghostPod({ ready: false, age: 900 });
        await modelService();
        const result = await doctor("model-not-found", { [`${p.metadata!.name}/tf-serving`]: [...TF_LOGS.start, TF_LOGS.noVersions].join("\n") });
        const f = only(result, "model-not-found");
        hasEvidence(f, /No versions of servable half-plus-two found under base path \/models\/half-plus-two/);
        hasEvidence(f, /pod phase Running, Ready False for 1[45]m/);
        assert.match(f.fix, /tfs preflight/);
    });

    it("names a CrashLoopBackOff with its last termination and log lines", async () => {
        const p = await ghostPod({
            ready: false,
            containerStatus: {
                restartCount: 6,
                state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 5m0s restarting failed container=tf-serving" } },
                lastState: { terminated: { exitCode: 1, reason: "Error", startedAt: ago(40, Date.now()), finishedAt: ago(35, Date.now()) } },
            },
        });
        await modelService();
        await writeEvent(p, { reason: "BackOff", message: `Back-off restarting failed container tf-serving in pod ${p.metadata!.name}_${ns}(${p.metadata!.uid})`, count: 25 });
        const result = await doctor("crash-loop", { [`${p.metadata!.name}/tf-serving`]: [...TF_LOGS.start, "2025-06-01 11:50:02.2: E tensorflow_serving/model_servers/server.cc:101] Invalid argument: --rest_api_port cannot be the same as --port. Please use a different port for HTTP/REST API. Skipped exporting HTTP/REST API."].join("\n") });
        const f = only(result, "crash-loop");
        hasEvidence(f, /container tf-serving restarted 6 times; now waiting: CrashLoopBackOff/);
        hasEvidence(f, /lastState\.terminated: Error, exit code 1/);
        hasEvidence(f, /--rest_api_port cannot be the same as --port/);
    });

    it("names a pod killed by its startup probe before the model loaded", async () => {
        const p = await ghostPod({
            ready: false,
            annotations: { "tf-serving.dev/model-bytes": String(3 * 2 ** 30) },
            containerStatus: { restartCount: 2, lastState: { terminated: { exitCode: 137, reason: "Error", finishedAt: ago(20, Date.now()) } } },
        });
        await modelService();
        await writeEvent(p, { reason: "Unhealthy", message: `Startup probe failed: Get "http://10.244.1.7:8501/v1/models/${MODEL}": dial tcp 10.244.1.7:8501: connect: connection refused`, count: 28, last: 21 });
        await writeEvent(p, { reason: "Killing", type: "Normal", message: "Container tf-serving failed startup probe, will be restarted", count: 2, last: 20 });
        const result = await doctor("startup-probe-killed", { [`${p.metadata!.name}/tf-serving`]: TF_LOGS.start.join("\n") });
        const f = only(result, "startup-probe-killed");
        hasEvidence(f, /Killing x2 .*failed startup probe, will be restarted/);
        hasEvidence(f, /budget 70s to load the model/);
        hasEvidence(f, /model size 3\.0 GiB on disk/);
    });

    it("names a readiness probe that fails", async () => {
        const p = await ghostPod({ ready: false });
        await modelService();
        await writeEvent(p, { reason: "Unhealthy", message: "Readiness probe failed: HTTP probe failed with statuscode: 404", count: 40 });
        const result = await doctor("probe-failed", { [`${p.metadata!.name}/tf-serving`]: [...TF_LOGS.start, TF_LOGS.loaded].join("\n") });
        const f = only(result, "probe-failed");
        hasEvidence(f, /Unhealthy x40 .*Readiness probe failed: HTTP probe failed with statuscode: 404/);
        assert.match(f.fix, /modelName/);
    });

    it("names an OOMKilled container with its limit and the model size beside it", async () => {
        await ghostPod({
            ready: false,
            annotations: { "tf-serving.dev/model-bytes": String(300 * 2 ** 20), "tf-serving.dev/memory-peak-bytes": String(976 * 2 ** 20) },
            containerStatus: {
                restartCount: 4,
                state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 1m20s restarting failed container=tf-serving" } },
                lastState: { terminated: { exitCode: 137, reason: "OOMKilled", startedAt: ago(70, Date.now()), finishedAt: ago(61, Date.now()) } },
            },
        });
        await modelService();
        const result = await doctor("oom-killed");
        const f = only(result, "oom-killed");
        hasEvidence(f, /lastState\.terminated: OOMKilled, exit code 137/);
        hasEvidence(f, /^memory limit 512Mi \(512 MiB\)$/);
        hasEvidence(f, /model size 300 MiB on disk/);
        hasEvidence(f, /reload peak 976 MiB .*: the limit is 464 MiB below it/);
        assert.deepStrictEqual(result.unreadLogs.length, 1, "the log read failed: no kubelet, and no log given");
    });

    it("names an image the registry does not have", async () => {
        const image = IMAGE;
        const p = await ghostPod({ ready: false, containerStatus: { started: false, state: { waiting: { reason: "ImagePullBackOff", message: `Back-off pulling image "${image}"` } } } });
        await modelService();
        await writeEvent(p, { reason: "Failed", message: `Failed to pull image "${image}": rpc error: code = NotFound desc = failed to pull and unpack image "${image}": failed to resolve reference "${image}": ${image}: not found`, count: 3 });
        await writeEvent(p, { reason: "Failed", message: "Error: ErrImagePull", count: 3 });
        const f = only(await doctor("image-pull"), "image-pull");
        assert.match(f.summary, /ImagePullBackOff: not found/);
        hasEvidence(f, /Failed to pull image .*: not found/);
    });

    it("names permission denied executing the server", async () => {
        const message = "failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: \"/usr/bin/tensorflow_model_server\": permission denied: unknown";
        const p = await ghostPod({
            ready: false,
            containerStatus: {
                restartCount: 3,
                state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 40s restarting failed container=tf-serving" } },
                lastState: { terminated: { exitCode: 128, reason: "StartError", message, finishedAt: ago(30, Date.now()) } },
            },
        });
        await modelService();
        await writeEvent(p, { reason: "Failed", message: `Error: ${message}`, count: 4 });
        const f = only(await doctor("permission-denied"), "permission-denied");
        hasEvidence(f, /lastState\.terminated: StartError, exit code 128, .*"\/usr\/bin\/tensorflow_model_server": permission denied/);
        hasEvidence(f, /pod runs as user 1000/);
    });

    it("names a GPU pod that does not tolerate the GPU node's taint (the real scheduler's event)", async () => {
        const p = await pendingPod(podSpec({ gpu: 1 }));
        await modelService();
        await waitFor("the scheduler's FailedScheduling event", 60, async () => {
            const events = await core.listNamespacedEvent({ namespace: ns });
            return events.items.find((e) => e.reason === "FailedScheduling" && e.involvedObject.name === p.metadata!.name);
        });
        const f = only(await doctor("untolerated-taint"), "untolerated-taint");
        hasEvidence(f, /FailedScheduling.*untolerated taint \{nvidia.com\/gpu: present\}/);
        assert.match(f.fix, /operator: Exists, effect: NoSchedule/);
    });

    it("names a GPU pod for which no node has enough GPUs (the real scheduler's event)", async () => {
        const p = await pendingPod(podSpec({ gpu: 4, tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }] }));
        await modelService();
        await waitFor("the scheduler's FailedScheduling event", 60, async () => {
            const events = await core.listNamespacedEvent({ namespace: ns });
            return events.items.find((e) => e.reason === "FailedScheduling" && e.involvedObject.name === p.metadata!.name);
        });
        const f = only(await doctor("gpu-unavailable"), "gpu-unavailable");
        hasEvidence(f, /FailedScheduling.*Insufficient nvidia.com\/gpu/);
        hasEvidence(f, /pod requests .*nvidia.com\/gpu 4/);
    });

    it("names a LoadBalancer that never got an address, with the controller's event", async () => {
        await ghostPodReady();
        const svc = await modelService({ loadBalancerClass: "tf-serving.dev/no-such-controller" });
        const created = await core.readNamespacedService({ name: MODEL, namespace: ns });
        await writeEvent({ metadata: { name: svc.metadata?.name, uid: created.metadata?.uid } }, {
            kind: "Service", reason: "SyncLoadBalancerFailed", component: "service-controller", count: 4, last: 1,
            message: "Error syncing load balancer: failed to ensure load balancer: googleapi: Error 403: QUOTA_EXCEEDED - Quota 'IN_USE_ADDRESSES' exceeded. Limit: 8.0 in region europe-west4.",
        });
        const f = only(await doctor("load-balancer-pending", {}, 0), "load-balancer-pending");
        assert.strictEqual(f.object, `service/${MODEL}`);
        hasEvidence(f, /status\.loadBalancer\.ingress is empty/);
        hasEvidence(f, /SyncLoadBalancerFailed x4 .*QUOTA_EXCEEDED/);
        hasEvidence(f, /spec.loadBalancerClass tf-serving.dev\/no-such-controller/);
    });

    /** A Ready pod, so that the Service is the only thing wrong. */
    async function ghostPodReady(): Promise<Pod> {
        return ghostPod({ ready: true });
    }

});

function toJson<T>(object: unknown): T {
    return JSON.parse(JSON.stringify(object)) as T;
}

const TIME_KEYS = /Time(stamp)?$|At$/;

/** The API's JSON (times as RFC 3339 strings) in the form client-node serializes: times as Date objects. */
function fromJson<T>(json: unknown): T {
    const revive = (value: unknown, key: string): unknown => {
        if (typeof value === "string" && TIME_KEYS.test(key) && !Number.isNaN(Date.parse(value))) {
            return new Date(value);
        }
        if (Array.isArray(value)) {
            return value.map((v) => revive(v, ""));
        }
        if (value !== null && typeof value === "object") {
            return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, revive(v, k)]));
        }
        return value;
    };
    return revive(json, "") as T;
}
