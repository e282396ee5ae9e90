import * as assert from "assert";
import { parse } from "yaml";
import { REDACTED, fakeDigest } from "../../../ops/planRuntime";
import { GATEWAY_WAIT_FOR } from "../../../serving/gateway";
import { exampleConfig, runCloudStack } from "../../support/cloudMocks";
import { checkImageDigests } from "../../../policy/checks";

/* eslint-disable @typescript-eslint/no-explicit-any */

const GPU_POOL = { acceleratorType: "nvidia-l4", minNodes: 0, maxNodes: 2 };

describe("GKE stack (composed under mocks)", () => {
    it("the example stack: cluster, CPU pool, registry, model; nothing GPU", async () => {
        const { recorder } = await runCloudStack(exampleConfig("gcp-example"), { ip: "203.0.113.10" });
        const counts = recorder.countsByType();
        assert.strictEqual(counts["gcp:container/cluster:Cluster"], 1);
        assert.strictEqual(counts["gcp:container/nodePool:NodePool"], 1);
        assert.strictEqual(counts["gcp:artifactregistry/repository:Repository"], 1);
        assert.strictEqual(counts["docker:index/image:Image"], 1);
        assert.strictEqual(counts["kubernetes:apps/v1:Deployment"], 1);
        assert.strictEqual(counts["kubernetes:apps/v1:DaemonSet"], undefined);
        assert.strictEqual(counts["pulumi:providers:gcp"], 1);
    });

    it("the example stack is monitored by managed Prometheus: managed collection, PodMonitoring, Rules and a Cloud Monitoring dashboard", async () => {
        const { recorder } = await runCloudStack(exampleConfig("gcp-example"), { ip: "203.0.113.10" });
        const cluster = recorder.one("gcp:container/cluster:Cluster").inputs as any;
        assert.deepStrictEqual(cluster.monitoringConfig.managedPrometheus, { enabled: true });
        assert.ok(cluster.monitoringConfig.enableComponents.includes("CADVISOR"));
        const scrape = recorder.one("kubernetes:monitoring.googleapis.com/v1:PodMonitoring").inputs as any;
        assert.strictEqual(scrape.metadata.namespace, "tf-serving");
        assert.strictEqual(scrape.spec.selector.matchLabels["app.kubernetes.io/instance"], "half-plus-two");
        assert.deepStrictEqual(scrape.spec.endpoints, [{ port: "http", path: "/monitoring/prometheus/metrics", interval: "30s" }]);
        const rules = recorder.one("kubernetes:monitoring.googleapis.com/v1:Rules").inputs as any;
        assert.ok(rules.spec.groups[0].rules.some((r: any) => r.alert === "TFServingModelUnavailable"));
        assert.deepStrictEqual(recorder.ofType("kubernetes:monitoring.coreos.com/v1:PodMonitor"), []);
        const dashboard = JSON.parse((recorder.one("gcp:monitoring/dashboard:Dashboard").inputs as any).dashboardJson);
        assert.match(JSON.stringify(dashboard), /cluster=\\"tf-serving-example\\", namespace=\\"tf-serving\\"/);
    });

    it("collector prometheus-operator on GKE: PodMonitor and PrometheusRule, no managed collection, no Cloud Monitoring dashboard", async () => {
        const config = exampleConfig("gcp-example", () => undefined, { "tf-serving:monitoring": JSON.stringify({ collector: "prometheus-operator", labels: { release: "kps" } }) });
        const { recorder } = await runCloudStack(config, { ip: "203.0.113.10" });
        // Off explicitly: an absent block would keep managed collection on a cluster that had it.
        assert.deepStrictEqual((recorder.one("gcp:container/cluster:Cluster").inputs as any).monitoringConfig,
            { enableComponents: ["SYSTEM_COMPONENTS"], managedPrometheus: { enabled: false } });
        assert.strictEqual((recorder.one("kubernetes:monitoring.coreos.com/v1:PodMonitor").inputs as any).metadata.labels.release, "kps");
        assert.strictEqual(recorder.ofType("kubernetes:monitoring.coreos.com/v1:PrometheusRule").length, 1);
        assert.deepStrictEqual(recorder.ofType("gcp:monitoring/dashboard:Dashboard"), []);
        assert.deepStrictEqual(recorder.ofType("kubernetes:monitoring.googleapis.com/v1:PodMonitoring"), []);
    });

    it("exports externalAddress from the load balancer's ip, the URLs, the cluster name and a secret kubeconfig", async () => {
        const { outputs } = await runCloudStack(exampleConfig("gcp-example"), { ip: "203.0.113.10" });
        assert.strictEqual(outputs.externalAddress, "203.0.113.10");
        assert.strictEqual(outputs.externalIp, "203.0.113.10");
        assert.strictEqual(outputs.restUrl, "http://203.0.113.10:8501");
        assert.strictEqual(outputs.grpcEndpoint, "203.0.113.10:8500");
        assert.strictEqual(outputs.modelStatusUrl, "http://203.0.113.10:8501/v1/models/half-plus-two");
        assert.strictEqual(outputs.clusterName, "tf-serving-example");
        assert.strictEqual(parse(outputs.kubeconfig as string).users[0].user.exec.command, "gke-gcloud-auth-plugin");
    });

    it("endpoint gateway: the GKE Gateway (external managed ALB), one HTTPS listener with the certificate map, HTTP/2 to gRPC, https outputs", async () => {
        const config = exampleConfig("gcp-example", () => undefined, {
            "tf-serving:endpoint": "gateway", "tf-serving:publicEndpoint": "true", "tf-serving:gateway": JSON.stringify({ certificateMap: "tfs-map" }),
        });
        delete config["tf-serving:loadBalancerSourceRanges"];
        const { recorder, outputs } = await runCloudStack(config, { ip: "203.0.113.20" });
        assert.deepStrictEqual((recorder.one("gcp:container/cluster:Cluster").inputs as any).gatewayApiConfig, { channel: "CHANNEL_STANDARD" });
        const gateway = recorder.one("kubernetes:gateway.networking.k8s.io/v1:Gateway").inputs as any;
        assert.strictEqual(gateway.spec.gatewayClassName, "gke-l7-global-external-managed");
        assert.deepStrictEqual(gateway.metadata.annotations, { "pulumi.com/waitFor": GATEWAY_WAIT_FOR, "networking.gke.io/certmap": "tfs-map" });
        assert.deepStrictEqual(gateway.spec.listeners.map((l: any) => [l.port, l.protocol, l.tls]), [[443, "HTTPS", undefined]]);
        const route = recorder.one("kubernetes:gateway.networking.k8s.io/v1:HTTPRoute").inputs as any;
        assert.deepStrictEqual(route.spec.rules.map((r: any) => r.backendRefs[0].port), [8501, 8500]);
        assert.deepStrictEqual(recorder.ofType("kubernetes:gateway.networking.k8s.io/v1:GRPCRoute"), []);
        const service = recorder.one("kubernetes:core/v1:Service").inputs as any;
        assert.strictEqual(service.spec.type, "ClusterIP");
        assert.strictEqual(service.spec.ports.find((p: any) => p.name === "grpc").appProtocol, "kubernetes.io/h2c");
        const health = recorder.one("kubernetes:networking.gke.io/v1:HealthCheckPolicy").inputs as any;
        assert.deepStrictEqual(health.spec, {
            default: { config: { type: "HTTP", httpHealthCheck: { portSpecification: "USE_FIXED_PORT", port: 8501, requestPath: "/v1/models/half-plus-two" } } },
            targetRef: { group: "", kind: "Service", name: "half-plus-two" },
        });
        assert.strictEqual(health.metadata.namespace, "tf-serving");
        assert.strictEqual(outputs.restUrl, "https://203.0.113.20:443");
        assert.strictEqual(outputs.grpcEndpoint, "203.0.113.20:443");
        assert.strictEqual(outputs.modelStatusUrl, "https://203.0.113.20:443/v1/models/half-plus-two");
    });

    it("endpoint gateway with a TLS Secret: the listener terminates with it, no certificate map annotation", async () => {
        const config = exampleConfig("gcp-example", () => undefined, {
            "tf-serving:endpoint": "gateway", "tf-serving:publicEndpoint": "true",
            "tf-serving:gateway": JSON.stringify({ tlsSecretName: "tfs-tls", className: "gke-l7-gxlb" }),
        });
        delete config["tf-serving:loadBalancerSourceRanges"];
        const { recorder } = await runCloudStack(config, { ip: "203.0.113.20" });
        const gateway = recorder.one("kubernetes:gateway.networking.k8s.io/v1:Gateway").inputs as any;
        assert.strictEqual(gateway.spec.gatewayClassName, "gke-l7-gxlb");
        assert.deepStrictEqual(gateway.metadata.annotations, { "pulumi.com/waitFor": GATEWAY_WAIT_FOR }, "no certificate map");
        assert.deepStrictEqual(gateway.spec.listeners[0].tls, { mode: "Terminate", certificateRefs: [{ group: "", kind: "Secret", name: "tfs-tls" }] });
    });

    it("endpoint gateway with loadBalancerSourceRanges: a Cloud Armor policy of them, attached to the model's and the canary's Service, waited for", async () => {
        const config = exampleConfig("gcp-example", () => undefined, {
            "tf-serving:endpoint": "gateway", "tf-serving:gateway": JSON.stringify({ certificateMap: "tfs-map" }),
            "tf-serving:loadBalancerSourceRanges": JSON.stringify(["203.0.113.0/24", "198.51.100.7/32"]),
            "tf-serving:canary": JSON.stringify({ steps: [10] }),
        });
        const { recorder } = await runCloudStack(config, { ip: "203.0.113.20" });
        const armor = recorder.one("gcp:compute/securityPolicy:SecurityPolicy");
        const inputs = armor.inputs as any;
        assert.strictEqual(inputs.project, "my-gcp-project");
        assert.strictEqual(inputs.type, "CLOUD_ARMOR");
        assert.match(inputs.name, /^tfs-tf-serving-[0-9a-f]{8}$/);
        assert.deepStrictEqual(inputs.rules.map((r: any) => [r.action, r.match.config.srcIpRanges]), [
            ["allow", ["203.0.113.0/24", "198.51.100.7/32"]], ["deny(403)", ["*"]],
        ]);
        const attached = recorder.ofType("kubernetes:networking.gke.io/v1:GCPBackendPolicy").map((r) => [(r.inputs as any).spec.targetRef.name, (r.inputs as any).spec.default]);
        assert.deepStrictEqual(attached.sort(), [
            ["half-plus-two", { securityPolicy: inputs.name }], ["half-plus-two-canary", { securityPolicy: inputs.name }],
        ]);
        const armorRef = `gcp:compute/securityPolicy:SecurityPolicy::${armor.name}`;
        assert.ok(recorder.one("tf-serving:index:ModelGateway").dependsOn.includes(armorRef), "the Gateway's objects wait for the policy they name");
    });

    it("endpoint gateway with gateway.auth iap: the same backend policies carry IAP; without ranges no Cloud Armor policy", async () => {
        const config = exampleConfig("gcp-example", () => undefined, {
            "tf-serving:endpoint": "gateway", "tf-serving:publicEndpoint": "true",
            "tf-serving:gateway": JSON.stringify({ certificateMap: "tfs-map", auth: { type: "iap", clientID: "1234-abcd.apps.googleusercontent.com", oauth2ClientSecret: { name: "iap-oauth" } } }),
        });
        delete config["tf-serving:loadBalancerSourceRanges"];
        const { recorder } = await runCloudStack(config, { ip: "203.0.113.20" });
        assert.deepStrictEqual(recorder.ofType("gcp:compute/securityPolicy:SecurityPolicy"), []);
        const policy = recorder.one("kubernetes:networking.gke.io/v1:GCPBackendPolicy").inputs as any;
        assert.deepStrictEqual(policy.spec.default, { iap: { enabled: true, clientID: "1234-abcd.apps.googleusercontent.com", oauth2ClientSecret: { name: "iap-oauth" } } });
    });

    it("nothing new for a stack that sets nothing new: no Cloud Armor policy or backend policy with a public Gateway or a LoadBalancer with ranges", async () => {
        const gatewayConfig = exampleConfig("gcp-example", () => undefined, {
            "tf-serving:endpoint": "gateway", "tf-serving:publicEndpoint": "true", "tf-serving:gateway": JSON.stringify({ certificateMap: "tfs-map" }),
        });
        delete gatewayConfig["tf-serving:loadBalancerSourceRanges"];
        for (const config of [exampleConfig("gcp-example"), gatewayConfig]) {
            const { recorder } = await runCloudStack(config, { ip: "203.0.113.20" });
            assert.deepStrictEqual(recorder.ofType("gcp:compute/securityPolicy:SecurityPolicy"), []);
            assert.deepStrictEqual(recorder.ofType("kubernetes:networking.gke.io/v1:GCPBackendPolicy"), []);
        }
    });

    it("pushes to Artifact Registry with the access token as a secret, and pods run the pushed digest", async () => {
        const { recorder, outputs } = await runCloudStack(exampleConfig("gcp-example"), { ip: "203.0.113.10" });
        const image = recorder.one("docker:index/image:Image");
        assert.match((image.inputs as any).imageName, /^us-central1-docker\.pkg\.dev\/my-gcp-project\/tf-serving\/half-plus-two:ctx-[0-9a-f]{16}$/);
        assert.strictEqual((image.inputs as any).registry.username, "oauth2accesstoken");
        assert.ok(image.secretPaths.includes("registry.password"), `secret paths: ${image.secretPaths}`);
        assert.doesNotMatch(JSON.stringify(image.inputs), /mock-gcp-access-token/);
        assert.match(outputs.imageRef as string, /^us-central1-docker\.pkg\.dev\/my-gcp-project\/tf-serving\/half-plus-two@sha256:/);
        // The digest is Artifact Registry's for the pushed tag, asked through its API (the Google provider's
        // credentials), not through a Docker registry login that would carry the hourly access token.
        const tag = String((image.inputs as any).imageName).split(":").pop();
        const lookups = recorder.calls.filter((c) => c.token === "gcp:artifactregistry/getDockerImage:getDockerImage").map((c) => c.args);
        // Before the build (does the repository hold the tag already? not a new one), then after the push.
        const asked = { project: "my-gcp-project", location: "us-central1", repositoryId: "tf-serving", imageName: `half-plus-two:${tag}` };
        assert.deepStrictEqual(lookups, [asked, asked]);
        assert.strictEqual((image.inputs as any).skipPush, undefined, "pushed");
        assert.strictEqual(outputs.imageRef, "us-central1-docker.pkg.dev/my-gcp-project/tf-serving/half-plus-two@" +
            fakeDigest(`artifact registry projects/my-gcp-project/locations/us-central1/repositories/tf-serving/half-plus-two:${tag}`));
        assert.deepStrictEqual(recorder.ofType("pulumi:providers:docker"), []);
        assert.ok(!recorder.calls.some((c) => c.token === "docker:index/getRegistryImage:getRegistryImage"));
        const reader = recorder.one("gcp:artifactregistry/repositoryIamMember:RepositoryIamMember").inputs as any;
        assert.strictEqual(reader.member, "serviceAccount:tf-serving-example-nodes@my-gcp-project.iam.gserviceaccount.com");
    });

    it("an hour later (a new access token) every input and lookup is the same but the Image's secret registry password", async () => {
        // `up` from a laptop, then `preview --expect-no-changes` from CI: only the build's login may carry
        // the token, and the Docker provider ignores registry username and password changes on an Image.
        const at = (token: string) => runCloudStack(exampleConfig("gcp-example"), { ip: "203.0.113.10" },
            (t) => (t === "gcp:organizations/getClientConfig:getClientConfig" ? { accessToken: token } : undefined));
        const [first, second] = [await at("token-at-9am"), await at("token-at-10am")];
        const inputs = (run: typeof first) => run.recorder.resources.map((r) => ({ type: r.type, name: r.name, inputs: r.rawInputs }));
        const tokenFree = (run: typeof first) => JSON.stringify(inputs(run)).replace(/token-at-(9|10)am/g, REDACTED);
        assert.strictEqual(tokenFree(second), tokenFree(first));
        const carriers = inputs(second).filter((r) => JSON.stringify(r.inputs).includes("token-at-10am")).map((r) => `${r.type}::${r.name}`);
        assert.deepStrictEqual(carriers, ["docker:index/image:Image::half-plus-two"]);
        const image = second.recorder.one("docker:index/image:Image");
        assert.ok(image.secretPaths.includes("registry.password"), `secret paths: ${image.secretPaths}`);
        assert.doesNotMatch(JSON.stringify(image.inputs), /token-at/, "the token is there as a secret only");
        const lookups = (run: typeof first) => run.recorder.calls.filter((c) => c.token !== "gcp:organizations/getClientConfig:getClientConfig");
        assert.deepStrictEqual(lookups(second), lookups(first));
        assert.doesNotMatch(JSON.stringify(lookups(second)), /token-at/);
    });

    it("a gcr.io host: pushes to the project's shared repository without creating it; the nodes get their own read grant", async () => {
        const config = exampleConfig("gcp-example", (gke: any) => { gke.registry = { host: "gcr.io" }; });
        const { recorder, outputs } = await runCloudStack(config, { ip: "203.0.113.10" });
        assert.strictEqual(recorder.ofType("gcp:artifactregistry/repository:Repository").length, 0);
        assert.match((recorder.one("docker:index/image:Image").inputs as any).imageName, /^gcr\.io\/my-gcp-project\/half-plus-two:ctx-[0-9a-f]{16}$/);
        assert.match(outputs.imageRef as string, /^gcr\.io\/my-gcp-project\/half-plus-two@sha256:/);
        const reader = recorder.one("gcp:artifactregistry/repositoryIamMember:RepositoryIamMember").inputs as any;
        assert.deepStrictEqual([reader.repository, reader.location, reader.role], ["gcr.io", "us", "roles/artifactregistry.reader"]);
        assert.strictEqual(reader.member, "serviceAccount:tf-serving-example-nodes@my-gcp-project.iam.gserviceaccount.com");
    });

    it("a domain-scoped project: images go under DOMAIN/PROJECT, the id stays as is for the Google API", async () => {
        const config = exampleConfig("gcp-example", (gke: any) => { gke.project = "example.com:my-gcp-project"; });
        const { recorder, outputs } = await runCloudStack(config, { ip: "203.0.113.10" });
        const image = recorder.one("docker:index/image:Image").inputs as any;
        assert.match(image.imageName, /^us-central1-docker\.pkg\.dev\/example\.com\/my-gcp-project\/tf-serving\/half-plus-two:ctx-[0-9a-f]{16}$/);
        assert.match(outputs.imageRef as string, /^us-central1-docker\.pkg\.dev\/example\.com\/my-gcp-project\/tf-serving\/half-plus-two@sha256:/);
        assert.strictEqual((recorder.one("gcp:artifactregistry/repository:Repository").inputs as any).project, "example.com:my-gcp-project");
    });

    it("a CPU model selects the CPU pool and does not tolerate GPU nodes", async () => {
        const { recorder } = await runCloudStack(exampleConfig("gcp-example", (gke: any) => { gke.gpuPool = GPU_POOL; }), { ip: "203.0.113.10" });
        assert.strictEqual(recorder.ofType("gcp:container/nodePool:NodePool").length, 2);
        const pod = (recorder.one("kubernetes:apps/v1:Deployment").inputs as any).spec.template.spec;
        assert.strictEqual(pod.nodeSelector["tf-serving/pool"], "cpu");
        assert.strictEqual(pod.nodeSelector["cloud.google.com/gke-accelerator"], undefined);
        assert.ok(!(pod.tolerations ?? []).some((t: any) => t.key === "nvidia.com/gpu"));
        assert.strictEqual(pod.containers[0].resources.limits["nvidia.com/gpu"], undefined);
    });

    it("a GPU model lands on the GPU pool: accelerator selector, GPU toleration, GPU limit, -gpu base image", async () => {
        const config = exampleConfig("gcp-example", (gke: any) => { gke.gpuPool = GPU_POOL; }, { "tf-serving:gpu": "true" });
        const { recorder, dockerfiles } = await runCloudStack(config, { ip: "203.0.113.10" });
        const pod = (recorder.one("kubernetes:apps/v1:Deployment").inputs as any).spec.template.spec;
        assert.strictEqual(pod.nodeSelector["cloud.google.com/gke-accelerator"], "nvidia-l4");
        assert.strictEqual(pod.nodeSelector["tf-serving/pool"], "gpu");
        assert.ok(pod.tolerations.some((t: any) => t.key === "nvidia.com/gpu" && t.operator === "Exists" && t.effect === "NoSchedule"));
        assert.strictEqual(pod.containers[0].resources.limits["nvidia.com/gpu"], "1");
        assert.match(Object.values(dockerfiles)[0], /^FROM tensorflow\/serving:[0-9.]+-gpu/m);
        assert.strictEqual(recorder.ofType("kubernetes:apps/v1:DaemonSet").length, 0, "GKE brings its own device plugin");
        const spec = (recorder.one("kubernetes:apps/v1:Deployment").inputs as any).spec;
        assert.deepStrictEqual(spec.strategy.rollingUpdate, { maxUnavailable: 1, maxSurge: 0 }, "maxNodes 2 holds the 2 replicas, not a third surge pod");
    });

    it("GPU serving without a GPU pool stops at config, naming the key", async () => {
        await assert.rejects(runCloudStack(exampleConfig("gcp-example", () => undefined, { "tf-serving:gpu": "true" }), { ip: "203.0.113.10" }),
            /tf-serving:gke\.gpuPool is not set: model "half-plus-two" sets gpu: true, so the cluster needs a GPU node pool/);
    });

    it("a request-rate HPA: the Custom Metrics Stackdriver Adapter with its Workload Identity role, the recorded rate, and the HPA on the adapter's metric", async () => {
        const image = `gcr.io/gke-release/custom-metrics-stackdriver-adapter:v0.16.9-gke.0@sha256:${"b".repeat(64)}`;
        const config = exampleConfig("gcp-example", (gke: any) => { gke.customMetricsAdapterImage = image; },
            { "tf-serving:autoscaling": JSON.stringify({ minReplicas: 1, maxReplicas: 4, targetRequestsPerSecond: 20 }) });
        const { recorder } = await runCloudStack(config, { ip: "203.0.113.10" });
        const hpa = recorder.one("kubernetes:autoscaling/v2:HorizontalPodAutoscaler").inputs as any;
        assert.deepStrictEqual(hpa.spec.metrics, [{
            type: "Pods",
            pods: {
                metric: { name: "prometheus.googleapis.com|tfserving_inference_requests_per_second|gauge", selector: { matchLabels: { "metric.labels.model_name": "half-plus-two" } } },
                target: { type: "AverageValue", averageValue: "20" },
            },
        }]);
        const rules = recorder.one("kubernetes:monitoring.googleapis.com/v1:Rules").inputs as any;
        assert.deepStrictEqual(rules.spec.groups[1].rules.map((r: any) => r.record), ["tfserving_inference_requests_per_second"]);
        const member = recorder.one("gcp:projects/iAMMember:IAMMember", "custom-metrics").inputs as any;
        assert.strictEqual(member.role, "roles/monitoring.viewer");
        assert.match(member.member, /^principal:\/\/iam\.googleapis\.com\/projects\/[0-9]+\/locations\/global\/workloadIdentityPools\/[a-z0-9-]+\.svc\.id\.goog\/subject\/ns\/custom-metrics\/sa\/custom-metrics-stackdriver-adapter$/);
        const adapter = recorder.one("kubernetes:apps/v1:Deployment", "custom-metrics").inputs as any;
        assert.strictEqual(adapter.metadata.namespace, "custom-metrics");
        assert.strictEqual(adapter.spec.template.spec.containers[0].image, image);
        assert.deepStrictEqual(checkImageDigests(adapter), [], "the policy pack's image-digest rule passes");
        assert.deepStrictEqual(recorder.ofType("kubernetes:apiregistration.k8s.io/v1:APIService").map((r) => (r.inputs as any).metadata.name).sort(),
            ["v1beta1.custom.metrics.k8s.io", "v1beta2.custom.metrics.k8s.io"]);
        const cluster = recorder.one("gcp:container/cluster:Cluster").inputs as any;
        assert.match(cluster.workloadIdentityConfig.workloadPool, /\.svc\.id\.goog$/, "the pool the principal names");
    });

    it("the adapter's Workload Identity binding waits for the cluster; its pods run on the CPU pool, never beside a GPU model", async () => {
        // The pool PROJECT.svc.id.goog exists only once a Workload Identity cluster does: on a project's first cluster a
        // binding naming it before then fails ("Identity Pool does not exist").
        const image = `gcr.io/gke-release/custom-metrics-stackdriver-adapter:v0.16.9-gke.0@sha256:${"b".repeat(64)}`;
        const config = exampleConfig("gcp-example", (gke: any) => {
            gke.customMetricsAdapterImage = image;
            gke.gpuPool = { acceleratorType: "nvidia-l4", machineType: "g2-standard-8", minNodes: 0, maxNodes: 2 };
        }, { "tf-serving:autoscaling": JSON.stringify({ minReplicas: 1, maxReplicas: 2, targetRequestsPerSecond: 20 }) });
        const { recorder } = await runCloudStack(config, { ip: "203.0.113.10" });
        const member = recorder.one("gcp:projects/iAMMember:IAMMember", "custom-metrics");
        assert.ok(member.dependsOn.includes("gcp:container/cluster:Cluster::gke-cluster"), `depends on: ${member.dependsOn}`);
        const pod = (recorder.one("kubernetes:apps/v1:Deployment", "custom-metrics").inputs as any).spec.template.spec;
        assert.deepStrictEqual(pod.nodeSelector, { "tf-serving/pool": "cpu" });
        assert.ok(!(pod.tolerations ?? []).some((t: any) => t.key === "nvidia.com/gpu"), "tolerating the GPU taint would let it onto a GPU node");
    });

    it("a CPU HPA only: no adapter, the HPA and Rules as before", async () => {
        const config = exampleConfig("gcp-example", () => undefined, { "tf-serving:autoscaling": JSON.stringify({ minReplicas: 2, maxReplicas: 4 }) });
        const { recorder } = await runCloudStack(config, { ip: "203.0.113.10" });
        assert.deepStrictEqual(recorder.ofType("kubernetes:apiregistration.k8s.io/v1:APIService"), []);
        assert.strictEqual(recorder.ofType("kubernetes:apps/v1:Deployment").length, 1);
        const hpa = recorder.one("kubernetes:autoscaling/v2:HorizontalPodAutoscaler").inputs as any;
        assert.deepStrictEqual(hpa.spec.metrics, [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 70 } } }]);
        assert.strictEqual((recorder.one("kubernetes:monitoring.googleapis.com/v1:Rules").inputs as any).spec.groups.length, 1);
    });
});
