/**
 * `tfs doctor` against the real kube-apiserver of the end-to-end environment (`scripts/e2e-env
 * start`; the test reads KUBECONFIG, else the environment's env file).
 *
 * Real wherever the failure can happen for real: pods on the environment's real node, with images
 * built by hand, fail as they would in a cluster (a model copied without its version folder, a
 * server that exits at once, an image the registry lacks) and the doctor reads the kubelet's
 * container states, events and logs through the API server. Pending pods and the healthy case are
 * real too: the scheduler writes the FailedScheduling events, kwok runs and readies the healthy pods
 * (on the simulated GPU node), the loopback load-balancer controller gives the Service its address.
 * The OOMKilled and permission-denied cases run for real in failures.test.ts.
 *
 * Written by hand, and named so: failures this machine cannot produce on demand (a startup probe
 * outrun by a slow model load, a readiness probe failing while the server runs, a cloud load
 * balancer that never gets an address). For those the test writes into a fresh namespace the
 * objects the failure leaves behind: a Pod bound to a node that does not exist (so no kubelet,
 * kwok or controller touches it), its `status` through the status subresource, and the Events a
 * kubelet or cloud controller would have written. Such pods have no log.
 *
 * Set TFS_DOCTOR_REPORT_DIR to keep each report as text (docs/reference/cli.md's examples come from there).
 */
import * as assert from "assert";
import { execFile } from "child_process";
import * as fs from "fs";
import * as path from "path";
import type * as K8s from "@kubernetes/client-node";
import { DoctorResult, Finding, formatReport, runDoctor } from "../../ops/doctor";
import { Event, Pod, Service } from "../../ops/doctor/snapshot";
import { MODEL, PodOptions, ago, event, labels, pod, podSpec, service } from "../support/doctorFixtures";
import { env } from "../support/e2eProject";
import { fixtureModelDir } from "../support/fixtures";
import { buildHandImage, servingTail } from "../support/handBuiltImage";

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

    /** Creates a pod the real node runs (the scheduler places it): the product's pod spec with `image` and `args`, small requests. */
    async function realPod(image: string, args?: string[]): Promise<Pod> {
        const spec = podSpec();
        const container = spec.containers![0];
        container.image = image;
        if (args) {
            container.args = args;
        }
        container.resources = { requests: { cpu: "100m", memory: "128Mi" }, limits: { cpu: "100m", memory: "256Mi" } };
        const created = await core.createNamespacedPod({
            namespace: ns,
            body: { metadata: { name: `${MODEL}-7d9f8c6b5-real1`, labels: labels() }, spec: spec as K8s.V1PodSpec },
        });
        return toJson(created);
    }

    /** Polls the pod until `match` holds for its first container status. */
    async function untilContainer(p: Pod, what: string, seconds: number, match: (cs: K8s.V1ContainerStatus) => boolean): Promise<K8s.V1ContainerStatus> {
        return waitFor(what, seconds, async () => {
            const read = await core.readNamespacedPod({ name: p.metadata!.name!, namespace: ns });
            const cs = read.status?.containerStatuses?.[0];
            return cs && match(cs) ? cs : undefined;
        });
    }

    /** Runs the doctor on the test's namespace; logs come from the kubelet through the API server. */
    async function doctor(kind: string, lbGraceSeconds?: number): Promise<DoctorResult> {
        const result = await runDoctor({ kubeconfigFile: kubeconfig, namespace: ns }, { loadBalancerGraceSeconds: lbGraceSeconds });
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

    it("names a model path without version folders from the real pod's log", async () => {
        // The classic CI mistake: the model copied without its version folder.
        const model = path.join(fixtureModelDir("half_plus_two_cpu"), "00000123");
        const image = buildHandImage("no-version-folder", `FROM ${env("TFS_E2E_BASE_IMAGE")}\nCOPY --chmod=0755 model/ /models/${MODEL}/\n${servingTail(MODEL)}`, { model });
        const p = await realPod(image);
        await modelService();
        await untilContainer(p, "the server to run", 120, (cs) => cs.state?.running !== undefined || (cs.restartCount ?? 0) > 0);
        const result = await waitFor("the doctor to read the warning", 60, async () => {
            const r = await doctor("model-not-found");
            return r.diagnosis.findings.some((f) => f.kind === "model-not-found") ? r : undefined;
        });
        const f = result.diagnosis.findings.find((x) => x.kind === "model-not-found")!;
        hasEvidence(f, /^log half-plus-two-7d9f8c6b5-real1\/tf-serving: ".*W tensorflow_serving\/sources\/storage_path\/file_system_storage_path_source\.cc\] No versions of servable half-plus-two found under base path \/models\/half-plus-two\. Did you forget/);
        hasEvidence(f, /pod phase Running, Ready False/);
        assert.match(f.fix, /tfs preflight/);
    });

    it("names a real CrashLoopBackOff with its last termination and log lines", async () => {
        const model = path.join(fixtureModelDir("half_plus_two_cpu"), "00000123");
        const image = buildHandImage("good", `FROM ${env("TFS_E2E_BASE_IMAGE")}\nCOPY --chmod=0755 model/ /models/${MODEL}/123/\n${servingTail(MODEL)}`, { model });
        // A flag value the server cannot read: it prints its usage and exits 255, at every start.
        const p = await realPod(image, ["--rest_api_num_threads=four"]);
        await modelService();
        await untilContainer(p, "CrashLoopBackOff", 180, (cs) => cs.state?.waiting?.reason === "CrashLoopBackOff" && (cs.restartCount ?? 0) >= 2);
        const result = await doctor("crash-loop");
        const f = only(result, "crash-loop");
        hasEvidence(f, /container tf-serving restarted \d+ times; now waiting: CrashLoopBackOff/);
        hasEvidence(f, /lastState\.terminated: Error, exit code 255/);
        hasEvidence(f, /E command_line_flags.cc\] Couldn't interpret value four for flag rest_api_num_threads\./);
    });

    it("names a pod killed by its startup probe before the model loaded (written by hand)", async () => {
        const p = await ghostPod({
            ready: false,
            annotations: { "tf-serving.dev/model-bytes": String(3 * 2 ** 30) },
            containerStatus: { restartCount: 2, lastState: { terminated: { exitCode: 137, reason: "Error", finishedAt: ago(20, Date.now()) } } },
        });
        await modelService();
        await writeEvent(p, { reason: "Unhealthy", message: `Startup probe failed: Get "http://10.244.1.7:8501/v1/models/${MODEL}": dial tcp 10.244.1.7:8501: connect: connection refused`, count: 28, last: 21 });
        await writeEvent(p, { reason: "Killing", type: "Normal", message: "Container tf-serving failed startup probe, will be restarted", count: 2, last: 20 });
        const result = await doctor("startup-probe-killed");
        const f = only(result, "startup-probe-killed");
        hasEvidence(f, /Killing x2 .*failed startup probe, will be restarted/);
        hasEvidence(f, /budget 70s to load the model/);
        hasEvidence(f, /model size 3\.0 GiB on disk/);
    });

    it("names a readiness probe that fails (written by hand)", async () => {
        const p = await ghostPod({ ready: false });
        await modelService();
        await writeEvent(p, { reason: "Unhealthy", message: "Readiness probe failed: HTTP probe failed with statuscode: 404", count: 40 });
        const result = await doctor("probe-failed");
        const f = only(result, "probe-failed");
        hasEvidence(f, /Unhealthy x40 .*Readiness probe failed: HTTP probe failed with statuscode: 404/);
        assert.match(f.fix, /modelName/);
    });

    it("names an image the registry does not have (the real pull error)", async () => {
        const image = `${env("TFS_E2E_REGISTRY")}/e2e-hand/nowhere:missing`;
        const p = await realPod(image);
        await modelService();
        await untilContainer(p, "ImagePullBackOff", 120, (cs) => cs.state?.waiting?.reason === "ImagePullBackOff" || cs.state?.waiting?.reason === "ErrImagePull");
        const f = only(await doctor("image-pull"), "image-pull");
        assert.match(f.summary, /(ImagePullBackOff|ErrImagePull): not found/);
        hasEvidence(f, /Failed to pull image .*nowhere:missing.*not found/);
    });

    it("names a GPU pod that does not tolerate the GPU node's taint (the real scheduler's event)", async () => {
        const p = await pendingPod(podSpec({ gpu: 1 }));
        await modelService();
        await waitFor("the scheduler's FailedScheduling event", 60, async () => {
            const events = await core.listNamespacedEvent({ namespace: ns });
            return events.items.find((e) => e.reason === "FailedScheduling" && e.involvedObject.name === p.metadata!.name);
        });
        const f = only(await doctor("untolerated-taint"), "untolerated-taint");
        // From Kubernetes 1.35 the event no longer names the taint (taint_toleration.go): the fix names it from the node.
        hasEvidence(f, /FailedScheduling.*untolerated taint/);
        assert.match(f.fix, /taint \{nvidia.com\/gpu: present\}/);
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

    it("names a LoadBalancer that never got an address, with the controller's event (written by hand)", async () => {
        await ghostPodReady();
        const svc = await modelService({ loadBalancerClass: "tf-serving.dev/no-such-controller" });
        const created = await core.readNamespacedService({ name: MODEL, namespace: ns });
        await writeEvent({ metadata: { name: svc.metadata?.name, uid: created.metadata?.uid } }, {
            kind: "Service", reason: "SyncLoadBalancerFailed", component: "service-controller", count: 4, last: 1,
            message: "Error syncing load balancer: failed to ensure load balancer: googleapi: Error 403: QUOTA_EXCEEDED - Quota 'IN_USE_ADDRESSES' exceeded. Limit: 8.0 in region europe-west4.",
        });
        const f = only(await doctor("load-balancer-pending", 0), "load-balancer-pending");
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
