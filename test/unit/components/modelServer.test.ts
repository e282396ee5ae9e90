import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { ModelServer, ModelServerArgs, modelServerSizing, modelServerTiming } from "../../../components/modelServer";
import { ModelGateway } from "../../../components/modelGateway";
import { resolveModelServerSettings } from "../../../components/modelServerArgs";
import { batchingParametersProblem } from "../../../serving/batchingParameters";
import { defaultBatchingConfig } from "../../../serving/flags";
import { PUBLIC_ANNOTATION } from "../../../contract/labels";
import { CANARY_DEFAULTS, CanarySettings } from "../../../serving/canary";
import { SERVING_GID, SERVING_UID } from "../../../serving/images";
import { deploymentTimeouts } from "../../../serving/rollout";
import { EPHEMERAL_STORAGE, sizeServer } from "../../../serving/sizing";
import { parseQuantity } from "../../../contract/quantity";
import { MockOptions } from "../../../ops/planRuntime";
import { servedRelease } from "../../../serving/modelDelivery";
import { MockRun, settleOutput, startMockRuntime } from "../../support/mockRuntime";

/* eslint-disable @typescript-eslint/no-explicit-any */
const MODEL = { name: "half-plus-two", versionBytes: [300 * 2 ** 20] };
/** What the stack's preflight derives for MODEL with `cpu: "2"`: the server must derive the same. */
const SIZING = sizeServer({ servedVersionBytes: MODEL.versionBytes, gpu: false, batching: false, overrides: { cpu: "2" } });

/** `args` may be made under the runtime, with the test's provider (a canary's ModelGateway). */
type ServeArgs = Partial<ModelServerArgs> | ((provider: k8s.Provider) => Partial<ModelServerArgs>);

async function serve(args: ServeArgs = {}, mock: MockOptions = {}): Promise<{ rec: MockRun; server: ModelServer; provider: k8s.Provider }> {
    const rec = await startMockRuntime(mock);
    const provider = new k8s.Provider("test", {});
    const server = new ModelServer("half-plus-two", {
        model: MODEL,
        namespace: "serving",
        image: "registry.test/tf-serving/half-plus-two@sha256:0123",
        resources: { cpu: "2" },
        loadBalancerSourceRanges: ["203.0.113.0/24"],
        ...(typeof args === "function" ? args(provider) : args),
    }, { provider });
    await rec.settle();
    return { rec, server, provider };
}

/** The model's gateway, routing to the canary's Service as well (what `ModelServer`'s canary shifts). */
function canaryGateway(provider: k8s.Provider, args: { model?: string; canary?: boolean } = {}): ModelGateway {
    const model = args.model ?? "half-plus-two";
    return new ModelGateway(model, { model, namespace: "serving", className: "traefik", tlsSecretName: "tfs-tls", canary: args.canary ?? true }, { provider });
}

function podSpec(rec: MockRun): any {
    return (rec.one("kubernetes:apps/v1:Deployment").inputs as any).spec.template.spec;
}

describe("ModelServer", () => {
    it("registers its objects as children of the component", async () => {
        const { rec } = await serve();
        const children = rec.resources.filter((r) => r.parent === "tf-serving:index:ModelServer::half-plus-two").map((r) => r.type).sort();
        assert.deepStrictEqual(children, [
            "kubernetes:apps/v1:Deployment", "kubernetes:core/v1:ConfigMap", "kubernetes:core/v1:Service",
            "kubernetes:core/v1:ServiceAccount", "kubernetes:networking.k8s.io/v1:NetworkPolicy", "kubernetes:policy/v1:PodDisruptionBudget",
        ]);
    });

    it("gives every child the cluster's provider from its resource options", async () => {
        const { server, provider } = await serve({ autoscaling: { minReplicas: 2, maxReplicas: 4, targetCpuUtilization: 60 } });
        assert.strictEqual(server.deployment.getProvider("kubernetes:apps/v1:Deployment"), provider);
        assert.strictEqual(server.service.getProvider("kubernetes:core/v1:Service"), provider);
    });

    it("sizes the pod from the model and the resources, as the stack's preflight does", async () => {
        const { server } = await serve();
        assert.deepStrictEqual(server.sizing, SIZING);
        assert.deepStrictEqual(modelServerSizing({ model: MODEL, resources: { gpuCount: 1 }, batching: { enabled: true } }),
            sizeServer({ servedVersionBytes: MODEL.versionBytes, gpu: true, batching: true, overrides: {} }));
    });

    it("gives the startup probe room for the warmup records times --num_request_iterations_for_warmup", async () => {
        const model = { ...MODEL, warmupRecords: 100 };
        const plain = modelServerSizing({ model: MODEL });
        const warm = modelServerSizing({ model, extraServerArgs: ["--num_request_iterations_for_warmup=4"] });
        assert.strictEqual(warm.startupBudgetSeconds - plain.startupBudgetSeconds, 100);
        assert.deepStrictEqual(modelServerSizing({ model, enableWarmup: false }), plain, "no replay without warmup");
        const { rec, server } = await serve({ model, extraServerArgs: ["--num_request_iterations_for_warmup=4"] });
        assert.strictEqual(server.sizing.startupBudgetSeconds, warm.startupBudgetSeconds);
        const { startupProbe } = podSpec(rec).containers[0];
        assert.ok(startupProbe.periodSeconds * startupProbe.failureThreshold >= warm.startupBudgetSeconds);
        assert.ok(startupProbe.periodSeconds * (startupProbe.failureThreshold - 1) < warm.startupBudgetSeconds);
    });

    it("refuses resources the model cannot run with, and a model name that is no DNS label", async () => {
        await startMockRuntime();
        const args: ModelServerArgs = { model: MODEL, namespace: "serving", image: "registry.test/m@sha256:0123", resources: { memoryLimit: "256Mi" } };
        // The sizing's refusal as the component's one line, naming the field (a RunError: no stack trace in a preview).
        assert.throws(() => new ModelServer("low", args), (err: unknown) => err instanceof pulumi.RunError && /^ModelServer low: resources\.memoryLimit \(memoryLimit 256Mi/.test(err.message));
        assert.throws(() => new ModelServer("bad", { ...args, model: { ...MODEL, name: "Half_Plus_Two" }, resources: {} }), /must be a DNS label/);
    });

    it("checks its golden cases against the served versions' signatures before it registers anything", async () => {
        await startMockRuntime();
        const signatures = [{ serving_default: { method: "tensorflow/serving/predict", inputs: { x: { dtype: "DT_FLOAT", shape: [-1, 1] } }, outputs: { y: { dtype: "DT_FLOAT", shape: [-1, 1] } } } }];
        const args: ModelServerArgs = { model: { ...MODEL, signatures }, namespace: "serving", image: "registry.test/m@sha256:0123" };
        const golden = (line: unknown) => ({ file: "golden.jsonl", text: JSON.stringify(line) });
        assert.throws(() => new ModelServer("g1", { ...args, golden: golden({ request: { instances: ["a"] } }) }),
            /^Error: ModelServer g1: golden \(golden\.jsonl:1: instance 0, input "x" is "a", but the tensor is DT_FLOAT: write a number/);
        assert.throws(() => new ModelServer("g2", { ...args, golden: { file: "golden.jsonl", text: "{" } }), /ModelServer g2: golden \(golden\.jsonl:1: not JSON/);
        assert.doesNotThrow(() => new ModelServer("g3", { ...args, golden: golden({ request: { instances: [1] }, expected: { y: [2.5] } }) }));
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
        assert.strictEqual(c.resources.limits.cpu, "2");
        assert.strictEqual(c.resources.limits.memory, SIZING.memoryLimit);
        assert.strictEqual(c.resources.requests.cpu, "2");
        assert.strictEqual(c.resources.requests.memory, SIZING.memoryRequest);
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
        // Pulumi's wait on the rollout: past the Deployment's own deadline (so the failure names it), and
        // long enough for a healthy rollout of 3 pods, one at a time.
        const timeouts = rec.one("kubernetes:apps/v1:Deployment").customTimeouts;
        const seconds = (t?: string) => Number(/^(\d+)m$/.exec(t ?? "")?.[1]) * 60;
        assert.ok(seconds(timeouts?.update) > spec.progressDeadlineSeconds, `update timeout ${timeouts?.update}`);
        assert.ok(seconds(timeouts?.update) >= 3 * (SIZING.startupBudgetSeconds + spec.minReadySeconds));
        assert.ok(seconds(timeouts?.create) >= spec.progressDeadlineSeconds - 30, `create timeout ${timeouts?.create}`);
        const pod = spec.template.spec;
        const sleep = pod.containers[0].lifecycle.preStop.sleep.seconds;
        assert.ok(pod.terminationGracePeriodSeconds > sleep, "the grace period covers the preStop pause and the shutdown");
        assert.strictEqual(pod.shareProcessNamespace, true, "the server (no SIGTERM handler) is not PID 1, so SIGTERM ends it");
    });

    it("rolls GPU pods one at a time when the stack says the GPU pool has no GPU to spare", async () => {
        const { rec } = await serve({ resources: { gpuCount: 1 }, replicas: 2, rollout: "oneAtATime" });
        const spec = (rec.one("kubernetes:apps/v1:Deployment").inputs as any).spec;
        assert.deepStrictEqual(spec.strategy, { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
    });

    it("gives a first GPU rollout more than the provider's 10 minutes, and reports no stall while a pod waits for its node", async () => {
        const gpuSizing = sizeServer({ servedVersionBytes: [2 * 2 ** 30], gpu: true, batching: false, overrides: {} });
        const args = { model: { name: "half-plus-two", versionBytes: [2 * 2 ** 30] }, resources: { gpuCount: 1 }, replicas: 2 };
        const timing = modelServerTiming({ ...args, namespace: "serving", image: "registry.test/m@sha256:0123" });
        const minutes = (t: string) => Number(t.replace(/m$/, ""));
        assert.ok(minutes(deploymentTimeouts(timing).create) > 10, JSON.stringify(deploymentTimeouts(timing)));
        assert.ok(minutes(deploymentTimeouts(timing).update) > minutes(deploymentTimeouts(timing).create));
        const { rec } = await serve(args);
        const spec = (rec.one("kubernetes:apps/v1:Deployment").inputs as any).spec;
        assert.strictEqual(spec.progressDeadlineSeconds, timing.progressDeadlineSeconds);
        assert.ok(spec.progressDeadlineSeconds > gpuSizing.startupBudgetSeconds + 600, "a GPU node from zero fits in one step's deadline");
    });

    it("bounds its local disk: /tmp has a size limit, and the container's ephemeral-storage limit covers it and the logs", async () => {
        const { rec } = await serve();
        const pod = podSpec(rec);
        const c = pod.containers[0];
        const tmp = pod.volumes.find((v: any) => v.name === "tmp");
        assert.strictEqual(tmp.emptyDir.sizeLimit, EPHEMERAL_STORAGE.tmpSizeLimit);
        assert.strictEqual(c.resources.requests["ephemeral-storage"], EPHEMERAL_STORAGE.request);
        assert.strictEqual(c.resources.limits["ephemeral-storage"], EPHEMERAL_STORAGE.limit);
        const bytes = (q: string) => parseQuantity(q)!;
        assert.ok(bytes(c.resources.limits["ephemeral-storage"]) > bytes(tmp.emptyDir.sizeLimit),
            "the pod-level limit (the container's) must leave room for the logs beside a full /tmp");
        assert.ok(bytes(c.resources.requests["ephemeral-storage"]) <= bytes(c.resources.limits["ephemeral-storage"]));
    });

    it("pulls with a login: a dockerconfigjson Secret whose content is a secret output, referenced by the pods", async () => {
        const login = { server: "registry.test", username: "puller", password: "s3cret-pass" };
        const { rec } = await serve({ imagePullCredentials: login });
        const secret = rec.one("kubernetes:core/v1:Secret");
        assert.strictEqual(secret.parent, "tf-serving:index:ModelServer::half-plus-two");
        const inputs = secret.inputs as any;
        assert.strictEqual(inputs.type, "kubernetes.io/dockerconfigjson");
        assert.strictEqual(inputs.metadata.namespace, "serving");
        assert.strictEqual(inputs.metadata.name, "half-plus-two-registry");
        assert.ok(secret.secretPaths.includes("stringData"), `secret paths: ${secret.secretPaths}`);
        assert.ok(!JSON.stringify(inputs).includes(login.password), "the password is redacted from the recorded inputs");
        assert.ok(!JSON.stringify(inputs).includes(Buffer.from(`${login.username}:${login.password}`).toString("base64")));
        const config = JSON.parse((secret.rawInputs as any).stringData[".dockerconfigjson"]);
        assert.deepStrictEqual(config, {
            auths: { "registry.test": { username: "puller", password: "s3cret-pass", auth: Buffer.from("puller:s3cret-pass").toString("base64") } },
        });
        assert.deepStrictEqual(podSpec(rec).imagePullSecrets, [{ name: "half-plus-two-registry" }]);
    });

    it("makes no pull Secret and references none without a login", async () => {
        const { rec } = await serve();
        assert.strictEqual(rec.ofType("kubernetes:core/v1:Secret").length, 0);
        assert.strictEqual(podSpec(rec).imagePullSecrets, undefined);
    });

    it("lets a drain evict pods that are not Ready (PodDisruptionBudget AlwaysAllow)", async () => {
        const { rec } = await serve();
        const pdb = rec.one("kubernetes:policy/v1:PodDisruptionBudget").inputs as any;
        assert.strictEqual(pdb.spec.maxUnavailable, 1);
        assert.strictEqual(pdb.spec.unhealthyPodEvictionPolicy, "AlwaysAllow");
    });

    it("admits traffic on the gRPC and REST ports only, from any address, and allows no egress", async () => {
        const { rec } = await serve();
        const np = rec.one("kubernetes:networking.k8s.io/v1:NetworkPolicy").inputs as any;
        assert.strictEqual(np.metadata.namespace, "serving");
        assert.strictEqual(np.spec.podSelector.matchLabels["app.kubernetes.io/instance"], "half-plus-two");
        assert.deepStrictEqual(np.spec.policyTypes, ["Ingress", "Egress"]);
        assert.strictEqual(np.spec.ingress.length, 1);
        assert.strictEqual(np.spec.ingress[0].from, undefined, "from anywhere: the load balancer brings external clients");
        assert.deepStrictEqual(np.spec.ingress[0].ports, [{ protocol: "TCP", port: 8500 }, { protocol: "TCP", port: 8501 }]);
        assert.ok(np.spec.egress === undefined || np.spec.egress.length === 0, "no egress rule: nothing leaves the pod");
    });

    it("meets the restricted Pod Security Standard", async () => {
        const { rec } = await serve();
        const pod = podSpec(rec);
        const c = pod.containers[0];
        assert.strictEqual(pod.securityContext.runAsNonRoot, true);
        assert.ok(pod.securityContext.runAsUser > 0);
        // Above 10000 (checkov CKV_K8S_40, kube-score), on the pod and on the container, as the image's USER line.
        for (const ctx of [pod.securityContext, c.securityContext]) {
            assert.ok(ctx.runAsUser > 10000 && ctx.runAsGroup > 10000, `high UID/GID: ${JSON.stringify(ctx)}`);
        }
        assert.deepStrictEqual([pod.securityContext.runAsUser, pod.securityContext.runAsGroup], [SERVING_UID, SERVING_GID]);
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
        const { rec } = await serve({ model: { name: "half-plus-two", versionBytes: [100 * 2 ** 20, 200 * 2 ** 20] } });
        const annotations = (rec.one("kubernetes:apps/v1:Deployment").inputs as any).spec.template.metadata.annotations;
        assert.strictEqual(annotations["tf-serving.dev/model-bytes"], String(300 * 2 ** 20));
        const twoVersions = sizeServer({ servedVersionBytes: [100 * 2 ** 20, 200 * 2 ** 20], gpu: false, batching: false, overrides: { cpu: "2" } });
        assert.strictEqual(annotations["tf-serving.dev/memory-peak-bytes"], String(Math.round(twoVersions.peakBytes)));
    });

    it("requests GPUs with the GPU toleration and memory growth on GPU nodes", async () => {
        const toleration = { key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" };
        const { rec } = await serve({ resources: { gpuCount: 1 }, placement: { nodeSelector: { "cloud.google.com/gke-accelerator": "nvidia-l4" }, tolerations: [toleration] } });
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
        const deployment = rec.one("kubernetes:apps/v1:Deployment");
        assert.strictEqual((deployment.inputs as any).spec.replicas, 2, "a new Deployment starts at the HPA's minimum");
        assert.deepStrictEqual(deployment.ignoreChanges, ["spec.replicas"], "then the HPA's count stands");
        assert.strictEqual((deployment.inputs as any).metadata.annotations, undefined);
        assert.deepStrictEqual(hpa.spec.behavior, { scaleDown: { stabilizationWindowSeconds: 300 } });
    });

    it("takes the replica count back by force without autoscaling (an HPA may have written it)", async () => {
        const { rec } = await serve({ replicas: 3 });
        const deployment = rec.one("kubernetes:apps/v1:Deployment");
        assert.deepStrictEqual((deployment.inputs as any).metadata.annotations, { "pulumi.com/patchForce": "true" });
        assert.strictEqual(deployment.ignoreChanges, undefined);
    });

    it("scales on the inference request rate with the window it is given", async () => {
        const { rec } = await serve({ autoscaling: { minReplicas: 1, maxReplicas: 3, targetRequestsPerSecond: 15, scaleDownStabilizationSeconds: 20 } });
        const hpa = rec.one("kubernetes:autoscaling/v2:HorizontalPodAutoscaler").inputs as any;
        assert.deepStrictEqual(hpa.spec.metrics, [{ type: "Pods", pods: { metric: { name: "tfserving_inference_requests_per_second" }, target: { type: "AverageValue", averageValue: "15" } } }]);
        assert.deepStrictEqual(hpa.spec.behavior, { scaleDown: { stabilizationWindowSeconds: 20 } });
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

    it("a canary shifts its own model's gateway, made with canary: true; another is refused, naming the fix", async () => {
        for (const [gateway, said] of [
            [{ model: "half-plus-two", canary: false }, /canary\.gateway is the ModelGateway of model "half-plus-two", made without canary: true/],
            [{ model: "other", canary: true }, /canary\.gateway is the ModelGateway of model "other"; .*must carry half-plus-two-canary: new ModelGateway\(name, \{ model: "half-plus-two", canary: true/],
        ] as const) {
            await assert.rejects(serve((provider) => ({ serviceType: "ClusterIP", canary: { settings: CANARY_DEFAULTS, gateway: canaryGateway(provider, gateway) } })), said);
        }
    });

    it("with a canary: its Service and NetworkPolicy, a release before the serving Deployment and a finish after it", async () => {
        const { rec } = await serve((provider) => ({
            serviceType: "ClusterIP",
            canary: { settings: CANARY_DEFAULTS, gateway: canaryGateway(provider), kubeconfig: "/k/config" },
        }));
        const service = rec.one("kubernetes:core/v1:Service", "canary").inputs as any;
        assert.strictEqual(service.metadata.name, "half-plus-two-canary");
        assert.strictEqual(service.spec.selector["app.kubernetes.io/instance"], "half-plus-two-canary");
        const serving = rec.ofType("kubernetes:core/v1:Service").find((r) => r.name === "half-plus-two");
        assert.strictEqual((serving?.inputs as any).spec.selector["app.kubernetes.io/instance"], "half-plus-two",
            "the serving Service never selects the canary's pods");
        const [release, finish] = ["release", "finish"].map((phase) => rec.one("pulumi-nodejs:dynamic:Resource", `canary-${phase}`));
        const deployment = rec.one("kubernetes:apps/v1:Deployment");
        assert.ok(deployment.dependsOn.includes("pulumi-nodejs:dynamic:Resource::half-plus-two-canary-release"), "the serving Deployment waits for the gates");
        assert.ok(finish.dependsOn.includes("kubernetes:apps/v1:Deployment::half-plus-two"), "the finish waits for the serving Deployment");
        const inputs = release.inputs as any;
        assert.strictEqual(inputs.phase, "release");
        assert.strictEqual(inputs.image, "registry.test/tf-serving/half-plus-two@sha256:0123");
        assert.deepStrictEqual(inputs.steps, [10, 50]);
        assert.strictEqual(inputs.canaryDeployment.metadata.name, "half-plus-two-canary");
        assert.strictEqual(inputs.canaryDeployment.spec.replicas, 1);
        assert.strictEqual(inputs.canaryDeployment.spec.template.spec.containers[0].image, inputs.image);
        assert.deepStrictEqual(inputs.canaryDeployment.spec.selector.matchLabels, service.spec.selector);
        assert.deepStrictEqual(release.secretPaths.filter((p) => p.startsWith("kubeconfig")), ["kubeconfig"], "the kubeconfig is a secret in the state");
        assert.strictEqual((finish.inputs as any).phase, "finish");
    });

    it("without a canary: none of its objects", async () => {
        const { rec } = await serve();
        assert.deepStrictEqual(rec.ofType("pulumi-nodejs:dynamic:Resource"), []);
        assert.strictEqual(rec.ofType("kubernetes:core/v1:Service").length, 1);
        assert.deepStrictEqual(rec.one("kubernetes:apps/v1:Deployment").dependsOn, []);
    });
});

describe("ModelServer with modelDelivery: imageVolume (the model mounted beside the base)", () => {
    const BASE = `tensorflow/serving:2.21.0@sha256:${"b".repeat(64)}`;
    const ARTIFACT = `registry.test/tf-serving/half-plus-two@sha256:${"a".repeat(64)}`;
    const volume = (extra: Partial<ModelServerArgs> = {}) => serve({ image: BASE, modelDelivery: "imageVolume", modelArtifact: ARTIFACT, ...extra });

    it("runs the pinned base with the artifact as an image volume (IfNotPresent), mounted read-only at the model's base path, its root", async () => {
        const { rec } = await volume();
        const spec = podSpec(rec);
        const [c] = spec.containers;
        assert.strictEqual(c.image, BASE);
        assert.deepStrictEqual(spec.volumes.find((v: any) => v.name === "model"), { name: "model", image: { reference: ARTIFACT, pullPolicy: "IfNotPresent" } });
        const mount = c.volumeMounts.find((m: any) => m.name === "model");
        assert.deepStrictEqual(mount, { name: "model", mountPath: "/models/half-plus-two", readOnly: true }, "no subPath: containerd 2.1 ignores it silently");
        assert.deepStrictEqual(c.volumeMounts.map((m: any) => m.name), ["tmp", "server-config", "model"]);
    });

    it("runs tensorflow_model_server itself with the flags the embedded image's ENTRYPOINT carries, then the pod's own", async () => {
        const embedded = podSpec((await serve()).rec).containers[0];
        const { rec } = await volume();
        const [c] = podSpec(rec).containers;
        assert.deepStrictEqual(c.command, ["/usr/bin/tensorflow_model_server"], "the base's ENTRYPOINT is TF Serving's bash wrapper");
        assert.deepStrictEqual(c.args.slice(0, 4), ["--port=8500", "--rest_api_port=8501", "--model_config_file=/models/half-plus-two/models.config", "--file_system_poll_wait_seconds=0"]);
        assert.deepStrictEqual(c.args.slice(4), embedded.args, "the pod's flags are the embedded pod's");
    });

    it("keeps the probes, sizing, reload-peak memory, security and rollout of the embedded pod: only the image, command, args and model volume differ", async () => {
        const embedded = rec(await serve());
        const mounted = rec(await volume());
        const strip = (d: any) => JSON.stringify(d, (k, v) => (["image", "command", "args"].includes(k) ? undefined : k === "volumes" || k === "volumeMounts" ? v.filter((x: any) => x.name !== "model") : v));
        assert.strictEqual(strip(mounted), strip(embedded));
        function rec(run: { rec: MockRun }): any {
            return run.rec.one("kubernetes:apps/v1:Deployment").inputs;
        }
    });

    it("pulls the artifact with the pods' pull secret, as it pulls the image", async () => {
        const { rec } = await volume({ imagePullCredentials: { server: "registry.test", username: "puller", password: "p" } });
        assert.deepStrictEqual(podSpec(rec).imagePullSecrets, [{ name: "half-plus-two-registry" }]);
    });

    it("reports the artifact as the model's reference (what a model change moves), and the canary compares the base with the artifact", async () => {
        const { server } = await volume();
        assert.strictEqual(await settleOutput(server.imageRef), ARTIFACT);
        const canaried = await serve((provider) => ({
            image: BASE, modelDelivery: "imageVolume", modelArtifact: ARTIFACT, serviceType: "ClusterIP",
            canary: { settings: CANARY_DEFAULTS, gateway: canaryGateway(provider) },
        }));
        const inputs = canaried.rec.one("pulumi-nodejs:dynamic:Resource", "canary-release").inputs as any;
        assert.strictEqual(inputs.image, `${BASE} with model ${ARTIFACT}`);
        assert.strictEqual(servedRelease(inputs.canaryDeployment.spec.template.spec), inputs.image, "the release reads the serving Deployment the same way");
        assert.strictEqual(await settleOutput(canaried.server.imageRef), ARTIFACT);
    });

    it("embedded, said or left out, renders the same Deployment, with no command and no model volume", async () => {
        const said = (await serve({ modelDelivery: "embedded" })).rec.one("kubernetes:apps/v1:Deployment").inputs;
        const left = (await serve()).rec.one("kubernetes:apps/v1:Deployment").inputs as any;
        assert.deepStrictEqual(said, left);
        assert.strictEqual(left.spec.template.spec.containers[0].command, undefined);
        assert.deepStrictEqual(left.spec.template.spec.volumes.map((v: any) => v.name), ["tmp", "server-config"]);
    });
});

describe("ModelServer: the arguments it refuses, in one line naming the field, before it registers anything", () => {
    /** The model's gateway as the resolver reads it: a canary's checks need nothing else of it. */
    const GATEWAY = { model: MODEL.name, canaryService: "half-plus-two-canary" } as unknown as ModelGateway;
    const canary = (settings: Partial<CanarySettings>) => ({ settings: { ...CANARY_DEFAULTS, ...settings }, gateway: GATEWAY });
    const BASE_ARGS: ModelServerArgs = { model: MODEL, namespace: "serving", image: "registry.test/m@sha256:0123", loadBalancerSourceRanges: ["203.0.113.0/24"] };

    /** Constructs the server under mocks; its one-line error, having checked that nothing was registered. */
    async function refusal(args: Partial<ModelServerArgs>): Promise<string> {
        const rec = await startMockRuntime();
        const provider = new k8s.Provider("test", {});
        let message = "";
        assert.throws(() => new ModelServer("half-plus-two", { ...BASE_ARGS, ...args }, { provider }), (err: Error) => {
            message = err.message;
            return true;
        });
        await rec.settle();
        assert.deepStrictEqual(rec.resources.filter((r) => r.type !== "pulumi:providers:kubernetes").map((r) => r.type), [], "nothing registered");
        assert.ok(!message.includes("\n"), `one line: ${message}`);
        return message;
    }

    async function refused(args: Partial<ModelServerArgs>, field: string, said: RegExp): Promise<void> {
        const message = await refusal(args);
        assert.ok(message.startsWith(`ModelServer half-plus-two: ${field} `), message);
        assert.match(message, said);
    }

    it("replicas below 1, or not a whole number", async () => {
        await refused({ replicas: 0 }, "replicas", /must be a whole number from 1 to 1000/);
        await refused({ replicas: 1.5 }, "replicas", /must be a whole number from 1 to 1000/);
    });

    it("maxReplicas of 1e9: the update timeout it yields is past what Go's time.ParseDuration reads", async () => {
        // Pulumi's engine parses customTimeouts with time.ParseDuration (pulumi/pulumi pkg/resource/deploy/source_eval.go,
        // generateTimeoutInSeconds); a Duration is an int64 of nanoseconds (Go src/time/time.go, maxDuration = 1<<63 - 1).
        const goMaxMinutes = Number(2n ** 63n - 1n) / 1e9 / 60;
        const autoscaling = { minReplicas: 2, maxReplicas: 1e9, targetCpuUtilization: 60 };
        const minutes = Number(deploymentTimeouts(modelServerTiming({ ...BASE_ARGS, autoscaling })).update.replace(/m$/, ""));
        assert.ok(minutes > goMaxMinutes, `${minutes}m would be an update timeout the engine cannot parse`);
        await refused({ autoscaling }, "autoscaling.maxReplicas", /from 1 to 1000: .*time\.ParseDuration/);
        const most = Number(deploymentTimeouts(modelServerTiming({ ...BASE_ARGS, autoscaling: { ...autoscaling, maxReplicas: 1000 } })).update.replace(/m$/, ""));
        assert.ok(most < goMaxMinutes, "the most pods allowed give a timeout the engine reads");
        await refused({ autoscaling: { ...autoscaling, minReplicas: 4, maxReplicas: 3 } }, "autoscaling.maxReplicas", /must be >= autoscaling\.minReplicas \(4\)/);
    });

    it("a targetCpuUtilization a pod whose limit is its request never reaches, and an HPA with no target", async () => {
        // Utilization is of the request, and the limit equals it: at most 100 %. The HPA controller changes the count only when
        // utilization / target is outside 1 +- its tolerance, 0.1 by default (kubernetes/kubernetes
        // pkg/controller/podautoscaler/replica_calculator.go, GetResourceReplicas: `math.Abs(1.0-usageRatio) <= c.tolerance`).
        const tolerance = 0.1;
        const reachable = (target: number) => 100 / target > 1 + tolerance;
        assert.ok(reachable(90) && !reachable(91));
        await refused({ autoscaling: { minReplicas: 2, maxReplicas: 4, targetCpuUtilization: 95 } }, "autoscaling.targetCpuUtilization", /from 10 to 90: .*never scale up/);
        await refused({ autoscaling: { minReplicas: 2, maxReplicas: 4, targetCpuUtilization: 150 } }, "autoscaling.targetCpuUtilization", /from 10 to 90/);
        assert.deepStrictEqual(resolveModelServerSettings({ model: MODEL, autoscaling: { minReplicas: 2, maxReplicas: 4, targetCpuUtilization: 90 } }).issues, []);
        await refused({ autoscaling: { minReplicas: 2, maxReplicas: 4 } }, "autoscaling", /needs autoscaling\.targetCpuUtilization .*, autoscaling\.targetRequestsPerSecond or both/);
    });

    it("managed flags and flags TF Serving does not have in extraServerArgs", async () => {
        await refused({ extraServerArgs: ["--port=9000"] }, "extraServerArgs[0]", /--port is set by this program/);
        await refused({ extraServerArgs: ["--rest_api_timeout_in_ms=5000", "--enable_batchin=true"] }, "extraServerArgs[1]",
            /--enable_batchin is not a tensorflow_model_server flag \(did you mean --enable_batching\?\)/);
        await refused({ extraServerArgs: ["--rest_api_num_threads=many"] }, "extraServerArgs[0]", /is set by this program/);
        await refused({ extraServerArgs: ["--rest_api_timeout_in_ms=soon"] }, "extraServerArgs[0]", /takes a whole number .* every pod would crash-loop/);
    });

    it("canary steps that do not rise, maxErrorRatio 1 (the gate off), holdSeconds 0", async () => {
        await refused({ canary: canary({ steps: [50, 10] }) }, "canary.settings.steps", /ascending, each from 1 to 99/);
        await refused({ canary: canary({ steps: [10, 10] }) }, "canary.settings.steps", /ascending/);
        await refused({ canary: canary({ gates: { ...CANARY_DEFAULTS.gates, maxErrorRatio: 1 } }) }, "canary.settings.gates.maxErrorRatio", /not a percent \(0\.01 = 1 %\).*every call fails/);
        await refused({ canary: canary({ holdSeconds: 0 }) }, "canary.settings.holdSeconds", /from 5 to 3600/);
        await refused({ canary: canary({ replicas: 0 }) }, "canary.settings.replicas", /from 1 to 100/);
    });

    it("canary holds that the HPA's scale-down window undercuts", async () => {
        const autoscaling = { minReplicas: 2, maxReplicas: 4, targetCpuUtilization: 60, scaleDownStabilizationSeconds: 60 };
        await refused({ autoscaling, canary: canary({ holdSeconds: 30 }) }, "canary.settings.holdSeconds",
            /up to 90 s .*longer than autoscaling\.scaleDownStabilizationSeconds \(60\)/);
        const defaults = resolveModelServerSettings({ model: MODEL, autoscaling: { ...autoscaling, scaleDownStabilizationSeconds: undefined }, canary: { settings: CANARY_DEFAULTS } });
        assert.deepStrictEqual(defaults.issues, [], "the default window (300 s) outlasts the default holds (2 x 60 s + 30 s)");
    });

    it("a batching parameters text TF Serving cannot parse", async () => {
        await refused({ batching: { enabled: true, parametersText: "max_batch_size { value: 32" } }, "batching.parametersText", /does not parse as a BatchingParameters text proto/);
        await refused({ batching: { enabled: true, parametersText: "max_batch_size { value: 32 }\nbatch_size: 3\n" } }, "batching.parametersText", /unknown field 'batch_size'/);
        assert.strictEqual(batchingParametersProblem(defaultBatchingConfig(4)), undefined, "the derived parameters parse");
        assert.strictEqual(batchingParametersProblem(fs.readFileSync(path.resolve(__dirname, "../../fixtures/batching_config.txt"), "utf8")), undefined);
    });

    it("a delivery it does not know, imageVolume without its artifact or with one not pinned by digest, and an artifact beside an embedded image", async () => {
        const artifact = `registry.test/m@sha256:${"a".repeat(64)}`;
        await refused({ modelDelivery: "volume" as never }, "modelDelivery", /must be one of "embedded", "imageVolume" \(see docs\/concepts\/model-image\.md#two-ways-to-deliver-the-model\)$/);
        await refused({ modelDelivery: "imageVolume" }, "modelArtifact", /is required with modelDelivery "imageVolume": the model artifact pinned by digest/);
        await refused({ modelDelivery: "imageVolume", modelArtifact: "registry.test/m:ctx-0123456789abcdef" }, "modelArtifact", /is not pinned by digest .*IfNotPresent/);
        await refused({ modelArtifact: artifact }, "modelArtifact", /applies only with modelDelivery "imageVolume": the embedded image holds the model/);
    });

    it("names every field in the one line", async () => {
        const message = await refusal({ replicas: 0, extraServerArgs: ["--port=9000"], canary: canary({ holdSeconds: 0 }) });
        assert.match(message, /^ModelServer half-plus-two: replicas must .*; extraServerArgs\[0\] --port is set .*; canary\.settings\.holdSeconds must /);
    });

    it("fills every default: the embedded model, 2 pods, no extra flags, no batching; an HPA's counts and window", () => {
        assert.deepStrictEqual(resolveModelServerSettings({ model: MODEL }), {
            settings: { modelDelivery: "embedded", replicas: 2, extraServerArgs: [], batching: { enabled: false, parametersText: undefined } }, issues: [],
        });
        assert.deepStrictEqual(resolveModelServerSettings({ model: MODEL, autoscaling: { targetRequestsPerSecond: 5 } }).settings.autoscaling,
            { minReplicas: 2, maxReplicas: 10, targetRequestsPerSecond: 5, scaleDownStabilizationSeconds: 300 });
    });
});
