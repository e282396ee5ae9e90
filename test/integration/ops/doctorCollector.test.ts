import * as assert from "assert";
import * as fs from "fs";
import * as http from "http";
import { AddressInfo } from "net";
import * as os from "os";
import * as path from "path";
import { execFile } from "child_process";
import { ClusterUnreachableError, TargetError } from "../../../ops/doctor";
import { collectSnapshot, findAmbientKubeconfig } from "../../../ops/doctor/collector";
import { targetFromStack } from "../../../ops/doctor/stackTarget";
import { FakeApiServer, fakeKubeconfig } from "../../support/fakeApiServer";
import { ARTIFACT, MODEL, NAMESPACE, TF_LOGS, ago, deployment, event, node, pod, podSpec, service } from "../../support/doctorFixtures";

const REPO = path.resolve(__dirname, "../../..");

interface Run { status: number | null; stdout: string; stderr: string }

function tfs(...args: string[]): Promise<Run> {
    return new Promise((resolve, reject) => {
        execFile(process.execPath, [path.join(REPO, "bin", "tfs.js"), "doctor", ...args], { cwd: REPO, encoding: "utf8", timeout: 60_000 },
            (err, stdout, stderr) => {
                if (err && typeof err.code !== "number") {
                    reject(err);
                } else {
                    resolve({ status: err ? Number(err.code) : 0, stdout, stderr });
                }
            });
    });
}

describe("the ambient kubeconfig", () => {
    const exists = (present: string[]) => (file: string) => present.includes(file);
    it("is KUBECONFIG's files, else ~/.kube/config, else a pod's service account, else none", () => {
        assert.deepStrictEqual(findAmbientKubeconfig({ KUBECONFIG: "/a:/b", HOME: "/h" }, exists([])), { kind: "env", files: ["/a", "/b"] });
        assert.deepStrictEqual(findAmbientKubeconfig({ KUBECONFIG: "", HOME: "/h" }, exists(["/h/.kube/config"])), { kind: "home", file: "/h/.kube/config" });
        assert.deepStrictEqual(findAmbientKubeconfig({ HOME: "/h" }, exists(["/var/run/secrets/kubernetes.io/serviceaccount/token"])), { kind: "in-cluster" });
        assert.deepStrictEqual(findAmbientKubeconfig({ HOME: "/h" }, exists([])), { kind: "none" });
    });
});

describe("tfs doctor against a fake API server", function () {
    this.timeout(120_000);
    let api: FakeApiServer;
    let dir: string;
    let config: string;

    beforeEach(async () => {
        api = new FakeApiServer();
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-doctor-"));
        config = fakeKubeconfig(dir, await api.start());
    });
    afterEach(async () => {
        await api.stop();
        fs.rmSync(dir, { recursive: true, force: true });
    });

    it("lists by the model-server labels and reads logs through the pod log endpoint, bounded", async () => {
        const crashed = pod({ ready: true, containerStatus: { restartCount: 1, lastState: { terminated: { exitCode: 137, reason: "OOMKilled", finishedAt: ago(100) } } } });
        api.pods = [crashed];
        api.logs = { [`${crashed.metadata!.name}/tf-serving`]: TF_LOGS.loaded, [`${crashed.metadata!.name}/tf-serving previous`]: TF_LOGS.noVersions };
        const { snapshot, cluster, unreadLogs } = await collectSnapshot({ kubeconfigFile: config, namespace: NAMESPACE }, { logLines: 7 });
        assert.strictEqual(cluster.context, "fake");
        assert.strictEqual(snapshot.pods[0].metadata?.creationTimestamp, crashed.metadata!.creationTimestamp, "times as the API wrote them");
        assert.deepStrictEqual(snapshot.logs, { [`${crashed.metadata!.name}/tf-serving`]: TF_LOGS.loaded });
        assert.deepStrictEqual(snapshot.previousLogs, { [`${crashed.metadata!.name}/tf-serving`]: TF_LOGS.noVersions });
        assert.deepStrictEqual(unreadLogs, []);
        const selector = encodeURIComponent("app.kubernetes.io/name=tf-serving,app.kubernetes.io/component=model-server");
        for (const list of ["pods", "services"]) {
            assert.ok(api.requests.includes(`/api/v1/namespaces/${NAMESPACE}/${list}?labelSelector=${selector}`), api.requests.join("\n"));
        }
        assert.ok(api.requests.some((r) => r.startsWith(`/api/v1/namespaces/${NAMESPACE}/events?limit=1000`)), api.requests.join("\n"));
        assert.ok(api.requests.some((r) => /\/log\?container=tf-serving&limitBytes=262144&previous=true&tailLines=7$/.test(r)), api.requests.join("\n"));
    });

    it("reads the models' autoscalers by the model-server labels, and does without them when that is forbidden", async () => {
        const hpa = { metadata: { name: "m", namespace: NAMESPACE, labels: { "app.kubernetes.io/instance": "m" } }, status: { conditions: [{ type: "ScalingActive", status: "False", reason: "FailedGetResourceMetric", lastTransitionTime: ago(600) }] } };
        api.hpas = [hpa];
        const { snapshot } = await collectSnapshot({ kubeconfigFile: config, namespace: NAMESPACE });
        assert.strictEqual(snapshot.hpas?.[0].status?.conditions?.[0].reason, "FailedGetResourceMetric");
        assert.strictEqual(snapshot.hpas?.[0].status?.conditions?.[0].lastTransitionTime, ago(600), "times as the API wrote them");
        const selector = encodeURIComponent("app.kubernetes.io/name=tf-serving,app.kubernetes.io/component=model-server");
        assert.ok(api.requests.includes(`/apis/autoscaling/v2/namespaces/${NAMESPACE}/horizontalpodautoscalers?labelSelector=${selector}`), api.requests.join("\n"));
        api.hpas = undefined;
        assert.strictEqual((await collectSnapshot({ kubeconfigFile: config, namespace: NAMESPACE })).snapshot.hpas, undefined);
    });

    it("notes logs it could not read, and reads none of containers that never ran", async () => {
        const waiting = pod({ name: "waiting", containerStatus: { state: { waiting: { reason: "ContainerCreating" } } } });
        api.pods = [pod({ ready: false }), waiting];
        const { snapshot, unreadLogs } = await collectSnapshot({ kubeconfigFile: config, namespace: NAMESPACE });
        assert.deepStrictEqual(snapshot.logs, {});
        assert.strictEqual(unreadLogs.length, 1);
        assert.match(unreadLogs[0], /^log of half-plus-two-6b7c9d8f5-x2kqp\/tf-serving: previous terminated container/);
        assert.ok(!api.requests.some((r) => r.includes("/pods/waiting/log")));
    });

    it("reads the nodes only for a pod not yet on one, and does without them when that is forbidden", async () => {
        const placed = pod({ ready: true });
        api.pods = [placed];
        assert.strictEqual((await collectSnapshot({ kubeconfigFile: config, namespace: NAMESPACE })).snapshot.nodes, undefined);
        assert.ok(!api.requests.includes("/api/v1/nodes"), "no pod waits for a node");
        api.pods = [pod({ nodeName: "", ready: false })];
        assert.strictEqual((await collectSnapshot({ kubeconfigFile: config, namespace: NAMESPACE })).snapshot.nodes, undefined, "forbidden");
        assert.ok(api.requests.includes("/api/v1/nodes"));
        api.nodes = [node("cpu-node", { cpu: "2", memory: "4Gi" })];
        const { snapshot } = await collectSnapshot({ kubeconfigFile: config, namespace: NAMESPACE });
        assert.deepStrictEqual(snapshot.nodes?.map((n) => [n.metadata?.name, n.status?.allocatable?.cpu]), [["cpu-node", "2"]]);
    });

    it("reads the nodes for an image volume's pod that is not Ready (their runtime may not mount it), not for one that is", async () => {
        const spec = podSpec({ artifact: ARTIFACT });
        api.nodes = [node("tfs-node-1", { cpu: "4", memory: "16Gi", runtime: "containerd://1.7.27" })];
        api.pods = [pod({ spec, ready: true })];
        const before = api.requests.filter((r) => r === "/api/v1/nodes").length;
        assert.strictEqual((await collectSnapshot({ kubeconfigFile: config, namespace: NAMESPACE })).snapshot.nodes, undefined);
        assert.strictEqual(api.requests.filter((r) => r === "/api/v1/nodes").length, before, "a Ready pod's artifact is mounted");
        api.pods = [pod({ spec, ready: false, phase: "Pending", containerStatus: { state: { waiting: { reason: "CreateContainerError", message: "failed to mkdir \"\"" } } } })];
        const { snapshot } = await collectSnapshot({ kubeconfigFile: config, namespace: NAMESPACE });
        assert.deepStrictEqual(snapshot.nodes?.map((n) => [n.metadata?.name, n.status?.nodeInfo?.containerRuntimeVersion]), [["tfs-node-1", "containerd://1.7.27"]]);
    });

    it("throws TargetError for a missing namespace or context, ClusterUnreachableError for a closed port", async () => {
        await assert.rejects(collectSnapshot({ kubeconfigFile: config, namespace: "nope" }),
            (err: Error) => err instanceof TargetError && /namespace "nope" does not exist on http:\/\/127\.0\.0\.1:\d+ \(context fake\)/.test(err.message));
        await assert.rejects(collectSnapshot({ kubeconfigFile: config, context: "prod", namespace: NAMESPACE }),
            (err: Error) => err instanceof TargetError && /has no context "prod" \(it has: fake\)/.test(err.message));
        await api.stop();
        await assert.rejects(collectSnapshot({ kubeconfigFile: config, namespace: NAMESPACE }),
            (err: Error) => err instanceof ClusterUnreachableError && /cannot reach the Kubernetes API at http:\/\/127\.0\.0\.1:\d+ \(context fake\) to .*: ECONNREFUSED/.test(err.message));
        api = new FakeApiServer(); // for afterEach
        await api.start();
    });

    it("gives up on an API server that does not answer in time", async () => {
        const silent = http.createServer(() => { /* never answers */ });
        await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
        const slowConfig = fakeKubeconfig(fs.mkdtempSync(path.join(dir, "slow-")), `http://127.0.0.1:${(silent.address() as AddressInfo).port}`);
        try {
            await assert.rejects(collectSnapshot({ kubeconfigFile: slowConfig, namespace: NAMESPACE }, { requestTimeoutMs: 300 }),
                (err: Error) => err instanceof ClusterUnreachableError && /no answer in time/.test(err.message));
        } finally {
            silent.closeAllConnections();
            silent.close();
        }
    });

    describe("the command (child processes)", () => {
        it("exits 0 and says healthy when every pod is Ready and the load balancer has an address", async () => {
            api.pods = [pod({ ready: true })];
            api.services = [service({ address: "127.0.0.1" })];
            api.deployments = [deployment({ replicas: 1 })];
            const run = await tfs("--kubeconfig", config, "--namespace", NAMESPACE);
            assert.strictEqual(run.status, 0, run.stderr);
            assert.match(run.stdout, /model half-plus-two: 1\/1 pods Ready, service half-plus-two \(LoadBalancer\) at 127\.0\.0\.1/);
            assert.match(run.stdout, /^healthy: every pod is Ready and every LoadBalancer has an address$/m);
        });

        it("exits 1 with the findings, as text and as one JSON object", async () => {
            const p = pod({ ready: false });
            api.pods = [p];
            api.services = [service({ address: "127.0.0.1" })];
            api.events = [event(p, { reason: "Unhealthy", message: "Readiness probe failed: HTTP probe failed with statuscode: 404", count: 9 })];
            const [text, json] = await Promise.all([
                tfs("--kubeconfig", config, "--namespace", NAMESPACE, "--model", MODEL),
                tfs("--kubeconfig", config, "--namespace", NAMESPACE, "--json"),
            ]);
            assert.strictEqual(text.status, 1, text.stderr);
            assert.match(text.stdout, /^ERROR probe-failed: pod\/half-plus-two-6b7c9d8f5-x2kqp \(model half-plus-two\)$/m);
            assert.match(text.stdout, /^1 problem found: 1 error, 0 warnings$/m);
            assert.strictEqual(json.status, 1, json.stderr);
            const body = JSON.parse(json.stdout);
            assert.strictEqual(body.healthy, false);
            assert.deepStrictEqual(Object.keys(body.findings[0]).sort(), ["evidence", "fix", "kind", "model", "object", "severity", "summary"]);
            assert.strictEqual(body.findings[0].kind, "probe-failed");
            assert.strictEqual(body.checked.namespace, NAMESPACE);
            assert.strictEqual(body.checked.cluster.context, "fake");
            assert.deepStrictEqual(body.checked.unreadLogs, ["log of half-plus-two-6b7c9d8f5-x2kqp/tf-serving: previous terminated container \"tf-serving\" in pod \"half-plus-two-6b7c9d8f5-x2kqp\" not found"]);
        });

        it("exits 2 for bad usage and 3 for an unreachable cluster, without a stack trace", async () => {
            const closed = fakeKubeconfig(fs.mkdtempSync(path.join(dir, "closed-")), "https://127.0.0.1:1");
            const [none, both, missingNs, badCount, unreachable, unreachableJson] = await Promise.all([
                tfs(),
                tfs("--stack", "dev", "--kubeconfig", config),
                tfs("--kubeconfig", config, "--namespace", "nope"),
                tfs("--namespace", NAMESPACE, "--log-lines", "many"),
                tfs("--kubeconfig", closed, "--namespace", NAMESPACE),
                tfs("--kubeconfig", closed, "--namespace", NAMESPACE, "--json"),
            ]);
            assert.strictEqual(none.status, 2);
            assert.match(none.stderr, /give --stack NAME, or --namespace NS/);
            assert.strictEqual(both.status, 2);
            assert.match(both.stderr, /drop --kubeconfig\/--context, or drop --stack/);
            assert.strictEqual(missingNs.status, 2);
            assert.match(missingNs.stderr, /namespace "nope" does not exist/);
            assert.strictEqual(badCount.status, 2);
            assert.match(badCount.stderr, /"many" is not a whole number/);
            assert.strictEqual(unreachable.status, 3);
            assert.match(unreachable.stderr, /^tfs: cannot reach the Kubernetes API at https:\/\/127\.0\.0\.1:1 \(context fake\) to .*ECONNREFUSED/m);
            assert.strictEqual(unreachableJson.status, 3);
            assert.deepStrictEqual(JSON.parse(unreachableJson.stdout).error.exitCode, 3);
            for (const run of [none, both, missingNs, unreachable]) {
                assert.ok(!/^\s+at .+:\d+:\d+\)?$/m.test(run.stderr), `stack trace in:\n${run.stderr}`);
            }
        });
    });
});

describe("tfs doctor --stack target", () => {
    const base = { project: "tf-serving", projectDir: "/proj" };

    it("uses a cloud stack's kubeconfig output, written as JSON when it is an object", () => {
        assert.deepStrictEqual(targetFromStack({ ...base, outputs: { kubeconfig: { value: "apiVersion: v1\n" } }, config: {} }),
            { kubeconfigText: "apiVersion: v1\n", namespace: "tf-serving" });
        assert.deepStrictEqual(targetFromStack({ ...base, outputs: { kubeconfig: { value: { apiVersion: "v1" } } }, config: { "tf-serving:namespace": { value: "serving" } } }),
            { kubeconfigText: "{\"apiVersion\":\"v1\"}", namespace: "serving" });
    });

    it("uses a local stack's kubeconfig and context config, relative to the project, else the ambient one", () => {
        assert.deepStrictEqual(targetFromStack({ ...base, outputs: {}, config: { "tf-serving:kubeconfig": { value: "kube/config" }, "tf-serving:kubeContext": { value: "kind-e2e" } } }),
            { kubeconfigFile: "/proj/kube/config", context: "kind-e2e", namespace: "tf-serving" });
        assert.deepStrictEqual(targetFromStack({ ...base, outputs: {}, config: {} }), { kubeconfigFile: undefined, context: undefined, namespace: "tf-serving" });
    });

    it("takes the namespace from --namespace, then a namespace output, then the config", () => {
        const config = { "tf-serving:namespace": { value: "from-config" } };
        assert.strictEqual(targetFromStack({ ...base, outputs: { namespace: { value: "from-output" } }, config, namespace: "from-flag" }).namespace, "from-flag");
        assert.strictEqual(targetFromStack({ ...base, outputs: { namespace: { value: "from-output" } }, config }).namespace, "from-output");
        assert.strictEqual(targetFromStack({ ...base, outputs: {}, config }).namespace, "from-config");
    });
});
