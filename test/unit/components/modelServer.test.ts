import * as assert from "assert";
import * as k8s from "@pulumi/kubernetes";
import { ModelServer, ModelServerArgs, PUBLIC_ANNOTATION } from "../../../components/modelServer";
import { sizeServer } from "../../../model/sizing";
import { MockOptions, Recorder, settleOutput, startMockRuntime } from "../../../ops/mockRuntime";

/* eslint-disable @typescript-eslint/no-explicit-any */
const SIZING = sizeServer({ servedVersionBytes: [300 * 2 ** 20], gpu: false, batching: false, overrides: { cpu: "2" } });

async function serve(args: Partial<ModelServerArgs> = {}, mock: MockOptions = {}): Promise<{ rec: Recorder; server: ModelServer }> {
    const rec = await startMockRuntime(mock);
    const provider = new k8s.Provider("test", {});
    const server = new ModelServer("half-plus-two", {
        provider,
        modelName: "half-plus-two",
        namespace: "serving",
        image: "registry.test/tf-serving/half-plus-two@sha256:0123",
        sizing: SIZING,
        loadBalancerSourceRanges: ["203.0.113.0/24"],
        ...args,
    });
    await rec.settle();
    return { rec, server };
}

function podSpec(rec: Recorder): any {
    return (rec.one("kubernetes:apps/v1:Deployment").inputs as any).spec.template.spec;
}

describe("ModelServer", () => {
    it("registers its objects as children of the component", async () => {
        const { rec } = await serve();
        const children = rec.resources.filter((r) => r.parent === "tf-serving:index:ModelServer::half-plus-two").map((r) => r.type).sort();
        assert.deepStrictEqual(children, [
            "kubernetes:apps/v1:Deployment", "kubernetes:core/v1:ConfigMap", "kubernetes:core/v1:Service",
            "kubernetes:core/v1:ServiceAccount", "kubernetes:policy/v1:PodDisruptionBudget",
        ]);
    });

    it("runs the digest-pinned image with ports grpc 8500 and http 8501", async () => {
        const { rec } = await serve();
        const [c] = podSpec(rec).containers;
        assert.strictEqual(c.image, "registry.test/tf-serving/half-plus-two@sha256:0123");
        assert.deepStrictEqual(c.ports.map((p: any) => [p.name, p.containerPort]), [["grpc", 8500], ["http", 8501]]);
        assert.strictEqual(c.command, undefined, "the image's ENTRYPOINT runs tensorflow_model_server directly");
    });

    it("passes thread flags matched to the CPU limit and the monitoring config", async () => {
        const { rec } = await serve();
        const [c] = podSpec(rec).containers;
        assert.deepStrictEqual(c.args.slice(0, 4), [
            "--tensorflow_intra_op_parallelism=2", "--tensorflow_inter_op_parallelism=2", "--rest_api_num_threads=8", "--grpc_max_threads=8",
        ]);
        assert.ok(c.args.includes("--monitoring_config_file=/etc/tf-serving/monitoring.config"));
        assert.deepStrictEqual(c.resources.limits, { cpu: "2", memory: SIZING.memoryLimit });
        assert.deepStrictEqual(c.resources.requests, { cpu: "2", memory: SIZING.memoryRequest });
    });

    it("probes the model's status URL: startup within the model's budget, then readiness and liveness", async () => {
        const { rec } = await serve();
        const [c] = podSpec(rec).containers;
        for (const probe of [c.startupProbe, c.readinessProbe, c.livenessProbe]) {
            assert.deepStrictEqual(probe.httpGet, { path: "/v1/models/half-plus-two", port: "http" });
        }
        assert.ok(c.startupProbe.periodSeconds * c.startupProbe.failureThreshold >= SIZING.startupBudgetSeconds);
        assert.ok(c.livenessProbe.failureThreshold * c.livenessProbe.periodSeconds >= 60, "liveness must be patient under load");
    });

    it("rolls out without losing capacity and drains before exit", async () => {
        const { rec } = await serve({ replicas: 3 });
        const spec = (rec.one("kubernetes:apps/v1:Deployment").inputs as any).spec;
        assert.strictEqual(spec.replicas, 3);
        assert.deepStrictEqual(spec.strategy.rollingUpdate, { maxUnavailable: 0, maxSurge: 1 });
        assert.ok(spec.minReadySeconds > 0);
        assert.ok(spec.progressDeadlineSeconds > SIZING.startupBudgetSeconds);
        const timeout = Number((rec.one("kubernetes:apps/v1:Deployment").inputs as any).metadata.annotations["pulumi.com/timeoutSeconds"]);
        assert.ok(timeout > spec.progressDeadlineSeconds, "pulumi up fails after the Deployment's own deadline, naming it");
        assert.ok(timeout >= 3 * (SIZING.startupBudgetSeconds + spec.minReadySeconds), "a healthy rollout of 3 pods, one at a time, fits");
        assert.ok(timeout < 600, "sooner than the provider's 10-minute default");
        const pod = spec.template.spec;
        const sleep = pod.containers[0].lifecycle.preStop.sleep.seconds;
        assert.ok(pod.terminationGracePeriodSeconds > sleep, "the grace period covers the preStop pause and the shutdown");
        assert.strictEqual(pod.shareProcessNamespace, true, "the server (no SIGTERM handler) is not PID 1, so SIGTERM ends it");
    });

    it("meets the restricted Pod Security Standard", async () => {
        const { rec } = await serve();
        const pod = podSpec(rec);
        const c = pod.containers[0];
        assert.strictEqual(pod.securityContext.runAsNonRoot, true);
        assert.ok(pod.securityContext.runAsUser > 0);
        assert.deepStrictEqual(pod.securityContext.seccompProfile, { type: "RuntimeDefault" });
        assert.strictEqual(c.securityContext.allowPrivilegeEscalation, false);
        assert.deepStrictEqual(c.securityContext.capabilities, { drop: ["ALL"] });
        assert.strictEqual(c.securityContext.readOnlyRootFilesystem, true);
        assert.ok(c.volumeMounts.some((m: any) => m.mountPath === "/tmp"), "a writable /tmp beside the read-only root");
        assert.strictEqual(pod.automountServiceAccountToken, false);
        assert.strictEqual((rec.one("kubernetes:core/v1:ServiceAccount").inputs as any).automountServiceAccountToken, false);
    });

    it("spreads pods across nodes, stays on amd64 and is scraped by Prometheus", async () => {
        const { rec } = await serve();
        const tpl = (rec.one("kubernetes:apps/v1:Deployment").inputs as any).spec.template;
        assert.deepStrictEqual(tpl.spec.topologySpreadConstraints.map((t: any) => t.topologyKey), ["kubernetes.io/hostname", "topology.kubernetes.io/zone"]);
        assert.strictEqual(tpl.spec.nodeSelector["kubernetes.io/arch"], "amd64");
        assert.strictEqual(tpl.metadata.annotations["prometheus.io/path"], "/monitoring/prometheus/metrics");
        assert.strictEqual(tpl.metadata.annotations["prometheus.io/port"], "8501");
    });

    it("records the model's size and the reload peak on the pods, for diagnosis", async () => {
        const { rec } = await serve({ modelBytes: 300 * 2 ** 20 });
        const annotations = (rec.one("kubernetes:apps/v1:Deployment").inputs as any).spec.template.metadata.annotations;
        assert.strictEqual(annotations["tf-serving.dev/model-bytes"], String(300 * 2 ** 20));
        assert.strictEqual(annotations["tf-serving.dev/memory-peak-bytes"], String(Math.round(SIZING.peakBytes)));
    });

    it("requests GPUs with the GPU toleration and memory growth on GPU nodes", async () => {
        const toleration = { key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" };
        const { rec } = await serve({ gpuCount: 1, placement: { nodeSelector: { "cloud.google.com/gke-accelerator": "nvidia-l4" }, tolerations: [toleration] } });
        const pod = podSpec(rec);
        const c = pod.containers[0];
        assert.strictEqual(c.resources.limits["nvidia.com/gpu"], "1");
        assert.deepStrictEqual(pod.tolerations, [toleration]);
        assert.strictEqual(pod.nodeSelector["cloud.google.com/gke-accelerator"], "nvidia-l4");
        assert.deepStrictEqual(c.env, [{ name: "TF_FORCE_GPU_ALLOW_GROWTH", value: "true" }]);
    });

    it("asks for no GPU and tolerates no taint when serving on CPU", async () => {
        const { rec } = await serve();
        const pod = podSpec(rec);
        assert.strictEqual(pod.containers[0].resources.limits["nvidia.com/gpu"], undefined);
        assert.strictEqual(pod.tolerations, undefined);
    });

    it("exposes both ports through a LoadBalancer restricted to the configured ranges", async () => {
        const { rec } = await serve();
        const svc = rec.one("kubernetes:core/v1:Service").inputs as any;
        assert.strictEqual(svc.spec.type, "LoadBalancer");
        assert.deepStrictEqual(svc.spec.ports.map((p: any) => [p.name, p.port, p.targetPort]), [["grpc", 8500, "grpc"], ["http", 8501, "http"]]);
        assert.deepStrictEqual(svc.spec.loadBalancerSourceRanges, ["203.0.113.0/24"]);
        assert.strictEqual(svc.metadata.annotations[PUBLIC_ANNOTATION], undefined);
        const open = await serve({ loadBalancerSourceRanges: [], publicEndpoint: true });
        assert.strictEqual((open.rec.one("kubernetes:core/v1:Service").inputs as any).metadata.annotations[PUBLIC_ANNOTATION], "true");
    });

    it("adds batching config and flags only when batching is on", async () => {
        const off = await serve();
        assert.deepStrictEqual(Object.keys((off.rec.one("kubernetes:core/v1:ConfigMap").inputs as any).data), ["monitoring.config"]);
        const on = await serve({ batching: { enabled: true } });
        const data = (on.rec.one("kubernetes:core/v1:ConfigMap").inputs as any).data;
        assert.match(data["batching.config"], /num_batch_threads \{ value: 2 \}/);
        assert.ok(podSpec(on.rec).containers[0].args.includes("--batching_parameters_file=/etc/tf-serving/batching.config"));
    });

    it("lets an HPA own the replica count when autoscaling", async () => {
        const { rec } = await serve({ autoscaling: { minReplicas: 2, maxReplicas: 6, targetCpuUtilization: 60 } });
        const hpa = rec.one("kubernetes:autoscaling/v2:HorizontalPodAutoscaler").inputs as any;
        assert.deepStrictEqual([hpa.spec.minReplicas, hpa.spec.maxReplicas], [2, 6]);
        assert.strictEqual(hpa.spec.metrics[0].resource.target.averageUtilization, 60);
        assert.strictEqual((rec.one("kubernetes:apps/v1:Deployment").inputs as any).spec.replicas, undefined);
    });

    it("reports the address from an ip (GKE, kind)", async () => {
        const { server } = await serve({}, { loadBalancer: { ip: "198.51.100.7" } });
        assert.strictEqual(await settleOutput(server.externalIp), "198.51.100.7");
        assert.strictEqual(await settleOutput(server.restUrl), "http://198.51.100.7:8501");
        assert.strictEqual(await settleOutput(server.grpcEndpoint), "198.51.100.7:8500");
        assert.strictEqual(await settleOutput(server.modelStatusUrl), "http://198.51.100.7:8501/v1/models/half-plus-two");
    });

    it("reports the address from a hostname (AWS), leaving externalIp empty", async () => {
        const { server } = await serve({}, { loadBalancer: { hostname: "a1b2.elb.us-west-2.amazonaws.com" } });
        assert.strictEqual(await settleOutput(server.externalIp), "");
        assert.strictEqual(await settleOutput(server.externalAddress), "a1b2.elb.us-west-2.amazonaws.com");
        assert.strictEqual(await settleOutput(server.restUrl), "http://a1b2.elb.us-west-2.amazonaws.com:8501");
    });
});
