import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";
import { readConfig } from "../../../config/config";
import { cidrProblem } from "../../../contract/cidr";
import { parseQuantity } from "../../../contract/quantity";
import { ConfigError } from "../../../config/configReader";
import { DEFAULT_THRESHOLDS } from "../../../observability/alerts";

const PROJECT = "tf-serving";
const DIR = "/project";

/** Config as `pulumi.runtime.allConfig()` hands it over: `tf-serving:key` → string (JSON for structures). */
function cfg(values: Record<string, unknown>): Record<string, string> {
    return Object.fromEntries(Object.entries(values).map(([k, v]) => [`${PROJECT}:${k}`, typeof v === "string" ? v : JSON.stringify(v)]));
}

const BASE = { modelPath: "models/half_plus_two", publicEndpoint: "true" };
const ADAPTER_IMAGE = `gcr.io/gke-release/custom-metrics-stackdriver-adapter:v0.16.9-gke.0@sha256:${"a".repeat(64)}`;

function issuesOf(values: Record<string, unknown>): { key: string; value: unknown; expected: string }[] {
    try {
        readConfig(cfg(values), PROJECT, DIR);
    } catch (err) {
        assert.ok(err instanceof ConfigError, `expected ConfigError, got ${err}`);
        return err.issues;
    }
    assert.fail("expected the configuration to be rejected");
}

describe("readConfig", () => {
    it("reads a minimal local stack with derived defaults", () => {
        const c = readConfig(cfg(BASE), PROJECT, DIR);
        assert.strictEqual(c.cloud, "local");
        assert.strictEqual(c.namespace, "tf-serving");
        assert.strictEqual(c.models.length, 1);
        const m = c.models[0];
        assert.strictEqual(m.name, "half-plus-two", "the folder name becomes a DNS label");
        assert.strictEqual(m.path, path.resolve(DIR, "models/half_plus_two"));
        assert.strictEqual(m.signature, "serving_default");
        assert.strictEqual(m.replicas, 2);
        assert.strictEqual(m.gpu, false);
        assert.strictEqual(m.gpuCount, 0);
        assert.strictEqual(m.versions, undefined);
        assert.strictEqual(c.local?.registry.server, "localhost:5001");
    });

    it("treats Pulumi.yaml's empty defaults as unset", () => {
        const c = readConfig(cfg({ ...BASE, modelName: "", cpu: "", memoryLimit: "", versions: "[]", extraServerArgs: "[]", kubeconfig: "" }), PROJECT, DIR);
        assert.strictEqual(c.models[0].name, "half-plus-two");
        assert.strictEqual(c.models[0].resources.cpu, undefined);
        assert.strictEqual(c.models[0].versions, undefined);
        assert.ok(c.cloud === "local");
        assert.strictEqual(c.local.kubeconfig, undefined);
    });

    it("declares a default for every key in Pulumi.yaml: Pulumi refuses a stack that lacks a declared key without one", () => {
        const declared = YAML.parse(fs.readFileSync(path.join(__dirname, "../../../Pulumi.yaml"), "utf8")).config as Record<string, { default?: unknown }>;
        assert.deepStrictEqual(Object.entries(declared).filter(([, d]) => !("default" in d)).map(([k]) => k), [],
            "each of these keys would be required of every stack (\"Stack is missing configuration value\")");
        const c = readConfig(cfg({ ...BASE, golden: "", allowSignatureChange: "false" }), PROJECT, DIR);
        assert.strictEqual(c.models[0].golden, undefined, "the empty default is no golden file");
        assert.strictEqual(c.models[0].allowSignatureChange, false);
    });

    it("rejects an unknown cloud, naming the key, the value and what is valid", () => {
        const [issue] = issuesOf({ ...BASE, cloud: "azure" });
        assert.strictEqual(issue.key, "cloud");
        assert.strictEqual(issue.value, "azure");
        assert.match(issue.expected, /"local", "gcp", "aws"/);
    });

    it("rejects a model name that is not a DNS label", () => {
        const [issue] = issuesOf({ ...BASE, modelName: "Half_Plus_Two" });
        assert.strictEqual(issue.key, "modelName");
        assert.match(issue.expected, /DNS label/);
    });

    it("refuses a whole number written with a leading zero (Pulumi passes \"010\" as text at the top, reads it as octal 8 inside a mapping)", () => {
        const [issue] = issuesOf({ ...BASE, replicas: "010" });
        assert.strictEqual(issue.key, "replicas");
        assert.match(issue.expected, /leading zero.*octal.*010 is 8 there/);
        assert.strictEqual(readConfig(cfg({ ...BASE, replicas: "10" }), PROJECT, DIR).models[0].replicas, 10);
    });

    it("rejects replicas below 1 and non-numbers", () => {
        assert.strictEqual(issuesOf({ ...BASE, replicas: "0" })[0].key, "replicas");
        assert.match(issuesOf({ ...BASE, replicas: "two" })[0].expected, /whole number from 1/);
    });

    it("rejects a malformed source range, pointing at the list item", () => {
        const issues = issuesOf({ modelPath: "m", loadBalancerSourceRanges: ["10.0.0.0/8", "10.0.0.300/8", "office"] });
        assert.deepStrictEqual(issues.map((i) => i.key), ["loadBalancerSourceRanges[1]", "loadBalancerSourceRanges[2]"]);
        assert.match(issues[0].expected, /CIDR/);
    });

    it("reports a list of refused source ranges as those entries, not also as an empty list", () => {
        const issues = issuesOf({ modelPath: "m", loadBalancerSourceRanges: ["office", "10.1.2.3/8"] });
        assert.deepStrictEqual(issues.map((i) => [i.key, i.expected]), [
            ["loadBalancerSourceRanges[0]", "must be a CIDR such as \"203.0.113.0/24\" or \"2001:db8::/32\""],
            ["loadBalancerSourceRanges[1]", "has host bits set; the block is 10.0.0.0/8"],
        ]);
    });

    it("reads versions as the command line's --version does: 0, fractions and past int64 refused, each saying why", () => {
        const issues = issuesOf({ ...BASE, versions: [0, 1.5, "99999999999999999999", "12345678901234567", 7] });
        assert.deepStrictEqual(issues.map((i) => i.key), ["versions[0]", "versions[1]", "versions[2]", "versions[3]"]);
        assert.match(issues[0].expected, /is not a version: versions start at 1/);
        assert.match(issues[1].expected, /is not a version number/);
        assert.match(issues[2].expected, /is too large: TF Serving reads versions as 64-bit integers/);
        assert.match(issues[3].expected, /is too large: this tool handles versions up to 9007199254740991/);
    });

    it("warmup: golden generates the warmup file from the golden file, which it needs; no other value", () => {
        assert.strictEqual(readConfig(cfg({ ...BASE, golden: "golden.jsonl", warmup: "golden" }), PROJECT, DIR).models[0].warmup, "golden");
        assert.strictEqual(readConfig(cfg(BASE), PROJECT, DIR).models[0].warmup, undefined);
        const [missing] = issuesOf({ ...BASE, warmup: "golden" });
        assert.deepStrictEqual([missing.key, missing.value], ["warmup", "golden"]);
        assert.match(missing.expected, /the model has no golden file: set golden to a golden file, or leave warmup out/);
        const [other] = issuesOf({ ...BASE, golden: "golden.jsonl", warmup: "inputs" });
        assert.deepStrictEqual([other.key, other.value], ["warmup", "inputs"]);
        assert.match(other.expected, /must be "golden"/);
    });

    it("refuses an extraServerArgs flag TF Serving does not have, or a value it cannot read", () => {
        const issues = issuesOf({ ...BASE, extraServerArgs: ["--rest_api_timeout_in_ms=5000", "--enable_batchin=true", "--max_num_load_retries=many"] });
        assert.deepStrictEqual(issues.map((i) => i.key), ["extraServerArgs[1]", "extraServerArgs[2]"]);
        assert.match(issues[0].expected, /did you mean --enable_batching/);
        assert.match(issues[1].expected, /crash-loop/);
    });

    it("endpoint gateway: a ClusterIP Service behind the named GatewayClass, TLS from a Secret", () => {
        const c = readConfig(cfg({ ...BASE, endpoint: "gateway", gateway: { className: "traefik", tlsSecretName: "tfs-tls" } }), PROJECT, DIR);
        assert.deepStrictEqual([c.service.endpoint, c.service.type, c.service.gateway], ["gateway", "ClusterIP", { className: "traefik", tlsSecretName: "tfs-tls", platform: "generic" }]);
        const lb = readConfig(cfg(BASE), PROJECT, DIR);
        assert.deepStrictEqual([lb.service.endpoint, lb.service.type, lb.service.gateway], ["loadBalancer", "LoadBalancer", undefined]);
    });

    it("endpoint gateway on a cluster of one's own: source ranges and callers with the controller named, the callers from a secret", () => {
        const users = `alice:{SHA}${"A".repeat(27)}=`;
        const values = {
            ...BASE, publicEndpoint: undefined, endpoint: "gateway", loadBalancerSourceRanges: ["127.0.0.0/8"],
            gateway: { className: "tfs-e2e-traefik", controller: "traefik", grpcHostname: "{model}.grpc.example.com", auth: { type: "basic", users } },
        };
        const c = readConfig(cfg(values), PROJECT, DIR, new Set([`${PROJECT}:gateway`]));
        assert.deepStrictEqual(c.service.gateway, { className: "tfs-e2e-traefik", tlsSecretName: undefined, platform: "generic", controller: "traefik", grpcHostname: "{model}.grpc.example.com" });
        assert.deepStrictEqual(c.service.sourceRanges, ["127.0.0.0/8"]);
        assert.strictEqual(c.service.basicAuthUsers, users);
        assert.ok(!JSON.stringify(c.service.gateway).includes("SHA"), "the callers stay out of the gateway settings, which records may show");

        const keys = (v: Record<string, unknown>, secret = true) => {
            try {
                readConfig(cfg(v), PROJECT, DIR, new Set(secret ? [`${PROJECT}:gateway`] : []));
            } catch (err) {
                assert.ok(err instanceof ConfigError);
                return err.issues.map((i) => `${i.key} ${JSON.stringify(i.value)}: ${i.expected}`).join("\n");
            }
            return "";
        };
        const plain = keys(values, false);
        assert.match(plain, /^gateway\.auth\.users "\[secret\]": must be a secret, not plain configuration .*pulumi config set --secret --path 'gateway\.auth\.users'/m);
        assert.doesNotMatch(plain, /SHA/, "the message never shows the value");
        assert.match(keys({ ...values, gateway: { ...values.gateway, auth: { type: "basic", users: "alice:hunter2" } } }), /^gateway\.auth\.users "\[secret\]": line 1 is not `user:HASH`/m);
        assert.match(keys({ ...values, gateway: { ...values.gateway, auth: { type: "jwt", users } } }), /^gateway\.auth\.type "jwt": /m);
        assert.match(keys({ ...values, gateway: { ...values.gateway, auth: { type: "basic" } } }), /^gateway\.auth\.users undefined: required/m);
        assert.match(keys({ ...values, gateway: { className: "eg", auth: { type: "basic", users } } }), /^gateway\.controller undefined: required with loadBalancerSourceRanges or gateway\.auth/m);
        assert.match(keys({ ...values, gateway: { ...values.gateway, controller: "envoy" } }), /^gateway\.controller "envoy": /m);
        assert.match(keys({ ...values, gateway: { ...values.gateway, grpcHostname: "127.0.0.1" } }), /^gateway\.grpcHostname "127\.0\.0\.1": must be a DNS name/m);
        assert.match(keys({ ...values, loadBalancerSourceRanges: ["10.0.0.1/8"] }), /^loadBalancerSourceRanges\[0\] /m);
        assert.match(keys({ ...values, loadBalancerSourceRanges: undefined }), /^publicEndpoint undefined: with `endpoint: gateway` and no loadBalancerSourceRanges/m);
    });

    it("endpoint gateway with several models on a cluster of one's own: a gRPC host per model, or the preview stops", () => {
        const models = [{ name: "one", path: "models/a" }, { name: "two", path: "models/b" }];
        const values = { ...BASE, modelPath: undefined, endpoint: "gateway", gateway: { className: "tfs-e2e-traefik" }, models };
        assert.deepStrictEqual(issuesOf(values).map((i) => `${i.key}: ${i.expected.slice(0, 60)}`),
            ["gateway.grpcHostname: required with 2 models behind Gateways of one class: their G"]);
        assert.match(issuesOf({ ...values, gateway: { className: "tfs-e2e-traefik", grpcHostname: "grpc.example.com" } })[0].expected, /^must contain \{model\}/);
        assert.strictEqual(readConfig(cfg({ ...values, gateway: { className: "tfs-e2e-traefik", grpcHostname: "{model}.grpc.example.com" } }), PROJECT, DIR).models.length, 2);
        assert.strictEqual(readConfig(cfg({ ...values, models: [models[0]] }), PROJECT, DIR).models.length, 1, "one model: nothing to tell apart");
    });

    it("endpoint gateway: refuses what it cannot honour, naming each key", () => {
        const keys = (values: Record<string, unknown>) => issuesOf({ ...BASE, ...values }).map((i) => `${i.key}: ${i.expected}`);
        assert.match(keys({ endpoint: "gateway" }).join("\n"), /^gateway: required with `endpoint: gateway`/m);
        assert.match(keys({ endpoint: "gateway", gateway: {} }).join("\n"), /^gateway\.className: required/m);
        assert.match(keys({ endpoint: "gateway", gateway: { className: "Traefik_1" } }).join("\n"), /^gateway\.className: must be a Kubernetes object name/m);
        assert.match(keys({ endpoint: "gateway", gateway: { className: "t", tls: "x" } }).join("\n"), /^gateway\.tls: unknown key/m);
        assert.match(keys({ endpoint: "gateway", gateway: { className: "t" }, serviceType: "LoadBalancer" }).join("\n"), /^serviceType: with `endpoint: gateway` the model Service is ClusterIP/m);
        assert.match(keys({ endpoint: "gateway", gateway: { className: "t" }, loadBalancerSourceRanges: ["203.0.113.0/24"] }).join("\n"), /^gateway\.controller: required with loadBalancerSourceRanges or gateway\.auth on a cluster of your own/m);
        assert.match(keys({ endpoint: "gateway", gateway: { className: "t" }, publicEndpoint: "false" }).join("\n"), /^publicEndpoint: with `endpoint: gateway`/m);
        assert.match(keys({ gateway: { className: "t" } }).join("\n"), /^gateway: applies only with `endpoint: gateway`/m);
        assert.match(keys({ endpoint: "ingress" }).join("\n"), /^endpoint: /m);
    });

    const EKS = { region: "us-west-2", zones: ["us-west-2a", "us-west-2b"], adminPrincipalArns: ["arn:aws:iam::123456789012:role/deployer"] };
    const CERT = "arn:aws:acm:us-west-2:123456789012:certificate/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b";

    it("endpoint gateway on aws: the stack's ALB GatewayClass (under the name configured), the ACM certificate, source ranges instead of publicEndpoint", () => {
        const aws = (values: Record<string, unknown>) => readConfig(cfg({ modelPath: "models/half_plus_two", cloud: "aws", eks: EKS, endpoint: "gateway", ...values }), PROJECT, DIR);
        const c = aws({ gateway: { certificateArn: CERT }, loadBalancerSourceRanges: ["203.0.113.0/24"] });
        assert.deepStrictEqual([c.service.endpoint, c.service.type, c.service.gateway],
            ["gateway", "ClusterIP", { className: "tf-serving-alb", tlsSecretName: undefined, certificateArn: CERT, platform: "eks", sourceRanges: ["203.0.113.0/24"], drainSeconds: 30, createClass: true }]);
        assert.deepStrictEqual(c.service.sourceRanges, ["203.0.113.0/24"]);
        const named = aws({ gateway: { className: "shared-alb", certificateArn: CERT }, publicEndpoint: "true" });
        // The cluster is the stack's own: no other GatewayClass exists in it, so a named one is still the stack's to create.
        assert.deepStrictEqual([named.service.gateway?.className, named.service.gateway?.createClass, named.service.publicEndpoint], ["shared-alb", true, true]);
        const gke = issuesOf({ modelPath: "m", cloud: "aws", eks: EKS, endpoint: "gateway", publicEndpoint: "true", gateway: { className: "gke-l7-global-external-managed", certificateArn: CERT } });
        assert.match(gke.map((i) => `${i.key}: ${i.expected}`).join("\n"), /^gateway\.className: is a class of GKE's Gateway controller, which does not run on EKS/m);
    });

    it("endpoint gateway on aws: refuses plaintext, a Secret, a bad or foreign-region ARN, and an open ALB not said to be", () => {
        const keys = (values: Record<string, unknown>) => issuesOf({ modelPath: "m", cloud: "aws", eks: EKS, endpoint: "gateway", publicEndpoint: "true", ...values })
            .map((i) => `${i.key}: ${i.expected}`).join("\n");
        assert.match(keys({}), /^gateway: required with `endpoint: gateway` on aws: the listeners' certificate, `\{certificateArn: ARN\}`/m);
        assert.match(keys({ gateway: {} }), /^gateway\.certificateArn: required on aws: an ALB serves gRPC only on HTTPS listeners/m);
        assert.match(keys({ gateway: { certificateArn: CERT, tlsSecretName: "tfs-tls" } }), /^gateway\.tlsSecretName: the AWS Load Balancer Controller takes no certificate from a Secret/m);
        assert.match(keys({ gateway: { certificateArn: "arn:aws:acm:us-west-2:123456789012:certificate/not-an-id" } }), /^gateway\.certificateArn: must be an ACM certificate ARN, arn:aws:acm:REGION:ACCOUNT:certificate\/ID/m);
        assert.match(keys({ gateway: { certificateArn: "arn:aws:iam::123456789012:server-certificate/x" } }), /^gateway\.certificateArn: must be an ACM certificate ARN/m);
        assert.match(keys({ gateway: { certificateArn: CERT.replace("us-west-2", "eu-west-1") } }), /^gateway\.certificateArn: is in eu-west-1, but the ALB is in eks\.region \(us-west-2\)/m);
        assert.match(keys({ gateway: { certificateArn: CERT.replace("arn:aws:", "arn:aws-cn:") } }), /^gateway\.certificateArn: names region us-west-2, which is in partition aws, not aws-cn/m);
        assert.match(keys({ gateway: { certificateArn: CERT, certificateMap: "m" } }), /^gateway\.certificateMap: unknown key/m);
        assert.match(keys({ gateway: { certificateArn: CERT }, publicEndpoint: "false" }), /^publicEndpoint: with `endpoint: gateway` on aws and no loadBalancerSourceRanges the ALB is open to every address/m);
        assert.doesNotThrow(() => readConfig(cfg({ modelPath: "m", cloud: "aws", eks: EKS, endpoint: "gateway", gateway: { certificateArn: CERT }, loadBalancerSourceRanges: ["203.0.113.0/24"] }), PROJECT, DIR));
        assert.match(keys({ gateway: { certificateArn: CERT }, serviceType: "LoadBalancer" }), /^serviceType: with `endpoint: gateway` the model Service is ClusterIP/m);
        // certificateArn is the EKS Gateway's only.
        assert.match(issuesOf({ ...BASE, endpoint: "gateway", gateway: { className: "traefik", certificateArn: CERT } }).map((i) => `${i.key}: ${i.expected}`).join("\n"), /^gateway\.certificateArn: unknown key/m);
    });

    it("endpoint gateway on gcp: accepted with a certificate map or a Secret (the rest of the gcp settings aside)", () => {
        const gatewayIssues = (gateway: Record<string, unknown>) => issuesOf({ ...BASE, cloud: "gcp", endpoint: "gateway", gateway })
            .map((i) => i.key).filter((k) => /^(gateway|endpoint|serviceType)/.test(k));
        assert.deepStrictEqual(gatewayIssues({ certificateMap: "tfs-map" }), []);
        assert.deepStrictEqual(gatewayIssues({ className: "gke-l7-gxlb", tlsSecretName: "tfs-tls" }), []);
    });

    it("endpoint gateway on gcp: refuses a class no controller of the stack's cluster serves, and a regional one without its proxy-only subnet", () => {
        const classIssue = (className: string) => issuesOf({ ...BASE, cloud: "gcp", endpoint: "gateway", gateway: { className, certificateMap: "m" } })
            .find((i) => i.key === "gateway.className")?.expected ?? "";
        // FACTS.md: GKE's regional classes need a proxy-only subnet (purpose REGIONAL_MANAGED_PROXY); the global class does not.
        assert.match(classIssue("gke-l7-regional-external-managed"), /needs a proxy-only subnet \(purpose REGIONAL_MANAGED_PROXY\).*"gke-l7-global-external-managed"/);
        assert.match(classIssue("gke-l7-rilb"), /proxy-only subnet/);
        assert.match(classIssue("tf-serving-alb"), /not a GatewayClass of the GKE Gateway controller/);
        assert.match(classIssue("gke-l7-global-external-managd"), /did you mean "gke-l7-global-external-managed"/);
        assert.match(classIssue("gke-l7-global-external-managed-mc"), /not a GatewayClass of the GKE Gateway controller for one cluster/);
    });

    it("endpoint gateway on gcp: refuses plaintext, two certificate sources, a bad map name; certificateMap is GKE's only", () => {
        const keys = (values: Record<string, unknown>) => issuesOf({ ...BASE, ...values }).map((i) => `${i.key}: ${i.expected}`).join("\n");
        const gcp = { cloud: "gcp", endpoint: "gateway" };
        assert.match(keys({ ...gcp }), /^gateway: required with `endpoint: gateway` on gcp: the listener's certificate/m);
        assert.match(keys({ ...gcp, gateway: { className: "gke-l7-rilb" } }), /^gateway\.certificateMap: required on gcp \(or tlsSecretName\): Google's load balancer serves HTTP\/2, so gRPC, to clients only over TLS/m);
        assert.match(keys({ ...gcp, gateway: { certificateMap: "m", tlsSecretName: "s" } }), /^gateway\.certificateMap: name one certificate source/m);
        assert.match(keys({ ...gcp, gateway: { certificateMap: "Map_1" } }), /^gateway\.certificateMap: must be a Certificate Manager certificate map's name/m);
        assert.match(keys({ endpoint: "gateway", gateway: { className: "traefik", certificateMap: "m" } }), /^gateway\.certificateMap: unknown key/m);
    });

    it("refuses an open load balancer unless publicEndpoint says so", () => {
        const [issue] = issuesOf({ modelPath: "m" });
        assert.strictEqual(issue.key, "loadBalancerSourceRanges");
        assert.match(issue.expected, /publicEndpoint true/);
        assert.doesNotThrow(() => readConfig(cfg({ modelPath: "m", serviceType: "ClusterIP" }), PROJECT, DIR));
    });

    it("rejects memory and CPU quantities that do not parse", () => {
        const issues = issuesOf({ ...BASE, memoryLimit: "2 gigs", cpu: "-1" });
        assert.deepStrictEqual(issues.map((i) => i.key).sort(), ["cpu", "memoryLimit"]);
        assert.match(issues.find((i) => i.key === "memoryLimit")!.expected, /"512Mi"/);
    });

    it("rejects gpuCount without gpu, and GPU serving without a GPU pool on GKE", () => {
        assert.strictEqual(issuesOf({ ...BASE, gpuCount: "2" })[0].key, "gpuCount");
        const issues = issuesOf({ ...BASE, cloud: "gcp", gpu: "true", gke: { project: "p", region: "us-central1" } });
        assert.ok(issues.some((i) => i.key === "gke.gpuPool" && /GPU node pool/.test(i.expected)), JSON.stringify(issues));
    });

    it("checks GPU models against the GPU pool and picks the rollout that fits it", () => {
        const gke = (maxNodes: number) => ({ project: "my-project", region: "us-central1", zones: ["us-central1-a"], gpuPool: { acceleratorType: "nvidia-l4", maxNodes } });
        const read = (values: Record<string, unknown>) => readConfig(cfg({ ...BASE, cloud: "gcp", ...values }), PROJECT, DIR).models;
        assert.strictEqual(read({ gpu: "true", gke: gke(2) })[0].rollout, "oneAtATime");
        assert.strictEqual(read({ gpu: "true", gke: gke(3) })[0].rollout, "surge");
        assert.strictEqual(read({ gke: gke(2) })[0].rollout, "surge", "CPU models always surge");
        const [issue] = issuesOf({ ...BASE, cloud: "gcp", gpu: "true", autoscaling: { minReplicas: 2, maxReplicas: 4 }, gke: gke(2) });
        assert.strictEqual(issue.key, "gke.gpuPool.maxNodes");
        assert.match(issue.expected, /4 pods \(autoscaling\.maxReplicas\)/, "the HPA may scale to maxReplicas");
        const local = readConfig(cfg({ ...BASE, gpu: "true" }), PROJECT, DIR).models[0];
        assert.strictEqual(local.rollout, "surge", "an existing cluster's GPUs are not known: Kubernetes' surge stays");
    });

    it("on EKS, the GPU capacity check reads the GPU group's maxNodes with the Cluster Autoscaler, desiredNodes without it", () => {
        const eks = (extra: Record<string, unknown>) => ({
            region: "us-west-2", zones: ["us-west-2a", "us-west-2b"], adminPrincipalArns: ["arn:aws:iam::123456789012:role/deployer"],
            gpuNodeGroup: { instanceType: "g5.xlarge", desiredNodes: 1, minNodes: 0, maxNodes: 3 }, ...extra,
        });
        const values = { ...BASE, cloud: "aws", gpu: "true", replicas: "2" };
        const [fixed] = issuesOf({ ...values, eks: eks({}) });
        assert.strictEqual(fixed.key, "eks.gpuNodeGroup.desiredNodes", "without an autoscaler the group runs desiredNodes");
        assert.match(fixed.expected, /Set eks\.gpuNodeGroup\.desiredNodes \(and eks\.gpuNodeGroup\.maxNodes\) to at least 2/);
        const models = readConfig(cfg({ ...values, eks: eks({ clusterAutoscaler: true }) }), PROJECT, DIR).models;
        assert.strictEqual(models[0].rollout, "surge", "3 nodes of 1 GPU hold 2 pods and a surge pod");
        const [scaled] = issuesOf({ ...values, replicas: "4", eks: eks({ clusterAutoscaler: true }) });
        assert.strictEqual(scaled.key, "eks.gpuNodeGroup.maxNodes");
        assert.match(scaled.expected, /holds 3 nodes x 1 GPU \(g5\.xlarge, eks\.gpuNodeGroup\.instanceType\) = 3 GPUs.*Set eks\.gpuNodeGroup\.maxNodes to at least 4/);
    });

    it("reads autoscaling's targets and scale-down window, CPU at 70 % when no target is set", () => {
        const read = (a: unknown) => readConfig(cfg({ ...BASE, autoscaling: a }), PROJECT, DIR).models[0].autoscaling;
        assert.deepStrictEqual(read({}), { minReplicas: 2, maxReplicas: 10, targetCpuUtilization: 70, scaleDownStabilizationSeconds: 300 });
        assert.deepStrictEqual(read({ minReplicas: 1, maxReplicas: 3, targetRequestsPerSecond: 20, scaleDownStabilizationSeconds: 0 }),
            { minReplicas: 1, maxReplicas: 3, targetRequestsPerSecond: 20, scaleDownStabilizationSeconds: 0 });
        assert.deepStrictEqual(read({ targetCpuUtilization: 50, targetRequestsPerSecond: 5 }),
            { minReplicas: 2, maxReplicas: 10, targetCpuUtilization: 50, targetRequestsPerSecond: 5, scaleDownStabilizationSeconds: 300 });
    });

    it("bounds autoscaling.minReplicas and maxReplicas as replicas (the update timeout grows with them; the HPA takes an int32)", () => {
        for (const maxReplicas of [1e9, 3_000_000_000, 1001]) {
            const issue = issuesOf({ ...BASE, autoscaling: { maxReplicas } }).find((i) => i.key === "autoscaling.maxReplicas");
            assert.match(issue?.expected ?? "", /whole number from 1 to 1000/, String(maxReplicas));
        }
        assert.match(issuesOf({ ...BASE, autoscaling: { minReplicas: 5000, maxReplicas: 5000 } }).find((i) => i.key === "autoscaling.minReplicas")?.expected ?? "", /from 1 to 1000/);
        assert.strictEqual(readConfig(cfg({ ...BASE, autoscaling: { maxReplicas: 1000 } }), PROJECT, DIR).models[0].autoscaling?.maxReplicas, 1000);
    });

    it("refuses alert thresholds of 100 %, which switch their alert off (the rules fire above the threshold)", () => {
        const issues = issuesOf({ ...BASE, monitoring: { errorRatioPercent: 100, memoryLimitPercent: 100 } });
        assert.deepStrictEqual(issues.map((i) => i.key).sort(), ["monitoring.errorRatioPercent", "monitoring.memoryLimitPercent"]);
        assert.strictEqual(readConfig(cfg({ ...BASE, monitoring: { errorRatioPercent: 99, memoryLimitPercent: 99 } }), PROJECT, DIR).monitoring.thresholds.errorRatioPercent, 99);
    });

    it("rejects bad autoscaling targets with the key, the value and the bounds", () => {
        const issues = issuesOf({ ...BASE, autoscaling: { targetRequestsPerSecond: 0, scaleDownStabilizationSeconds: 7200, targetRps: 3 } });
        const byKey = Object.fromEntries(issues.map((i) => [i.key, i]));
        assert.deepStrictEqual(Object.keys(byKey).sort(), ["autoscaling.scaleDownStabilizationSeconds", "autoscaling.targetRequestsPerSecond", "autoscaling.targetRps"], JSON.stringify(issues));
        assert.strictEqual(byKey["autoscaling.targetRequestsPerSecond"].value, 0);
        assert.match(byKey["autoscaling.targetRequestsPerSecond"].expected, /1/);
        assert.match(byKey["autoscaling.scaleDownStabilizationSeconds"].expected, /3600/);
        assert.match(byKey["autoscaling.targetRps"].expected, /targetRequestsPerSecond/, "did you mean");
    });

    it("takes a request-rate target on GKE with Managed Prometheus (the default collector there) and the adapter's image pinned by digest", () => {
        const gke = { project: "my-project", region: "us-central1", customMetricsAdapterImage: ADAPTER_IMAGE };
        const config = readConfig(cfg({ ...BASE, cloud: "gcp", gke, autoscaling: { targetRequestsPerSecond: 10 } }), PROJECT, DIR);
        assert.strictEqual(config.monitoring.collector, "gke");
        assert.strictEqual(config.models[0].autoscaling?.targetRequestsPerSecond, 10);
    });

    it("a request-rate target on GKE needs the adapter's image pinned by digest; the image alone does nothing and is refused", () => {
        const gke = { project: "my-project", region: "us-central1" };
        const [missing] = issuesOf({ ...BASE, cloud: "gcp", gke, autoscaling: { targetRequestsPerSecond: 10 } });
        assert.strictEqual(missing.key, "gke.customMetricsAdapterImage");
        assert.match(missing.expected, /required while autoscaling\.targetRequestsPerSecond is set.*pinned by digest.*custom-metrics-stackdriver-adapter:v0\.16\.9-gke\.0@sha256:/);
        const [tagged] = issuesOf({ ...BASE, cloud: "gcp", gke: { ...gke, customMetricsAdapterImage: "gcr.io/gke-release/custom-metrics-stackdriver-adapter:v0.16.9-gke.0" },
            autoscaling: { targetRequestsPerSecond: 10 } });
        assert.strictEqual(tagged.key, "gke.customMetricsAdapterImage");
        assert.match(tagged.expected, /must be pinned by digest/);
        const [idle] = issuesOf({ ...BASE, cloud: "gcp", gke: { ...gke, customMetricsAdapterImage: ADAPTER_IMAGE } });
        assert.strictEqual(idle.key, "gke.customMetricsAdapterImage");
        assert.match(idle.expected, /does nothing without a model's autoscaling\.targetRequestsPerSecond/);
    });

    it("refuses a request-rate target on GKE without Managed Prometheus, naming monitoring.collector and the way out", () => {
        const issues = issuesOf({ ...BASE, cloud: "gcp", gke: { project: "my-project", region: "us-central1", customMetricsAdapterImage: ADAPTER_IMAGE }, monitoring: { collector: "prometheus-operator" },
            autoscaling: { targetRequestsPerSecond: 10 } });
        const issue = issues.find((i) => i.key === "monitoring.collector");
        assert.ok(issue, JSON.stringify(issues));
        assert.strictEqual(issue.value, "prometheus-operator");
        assert.match(issue.expected, /must be "gke".*autoscaling\.targetRequestsPerSecond.*Custom Metrics Stackdriver Adapter.*targetCpuUtilization/);
    });

    it("a request-rate target on EKS needs eks.prometheusUrl (EKS runs no Prometheus), and a collector that scrapes the pods", () => {
        const eks = (extra: Record<string, unknown> = {}) => ({ region: "us-west-2", zones: ["us-west-2a", "us-west-2b"], adminPrincipalArns: ["arn:aws:iam::123456789012:role/deployer"], ...extra });
        const target = { autoscaling: { targetRequestsPerSecond: 10 } };
        const issue = issuesOf({ ...BASE, cloud: "aws", eks: eks(), ...target }).find((i) => i.key === "autoscaling.targetRequestsPerSecond");
        assert.ok(issue);
        assert.strictEqual(issue.value, 10);
        assert.match(issue.expected, /tfserving_inference_requests_per_second.*prometheus-adapter.*set eks\.prometheusUrl.*targetCpuUtilization/);
        const url = { prometheusUrl: "http://prometheus-server.monitoring.svc:80" };
        assert.strictEqual(readConfig(cfg({ ...BASE, cloud: "aws", eks: eks(url), ...target }), PROJECT, DIR).models[0].autoscaling?.targetRequestsPerSecond, 10);
        const [none] = issuesOf({ ...BASE, cloud: "aws", eks: eks(url), monitoring: { collector: "none" }, ...target });
        assert.strictEqual(none.key, "monitoring.collector");
        assert.match(none.expected, /"annotations" or "prometheus-operator".*autoscaling\.targetRequestsPerSecond/);
        const [idle] = issuesOf({ ...BASE, cloud: "aws", eks: eks(url) });
        assert.strictEqual(idle.key, "eks.prometheusUrl");
        assert.match(idle.expected, /does nothing without a model's autoscaling\.targetRequestsPerSecond/);
    });

    it("turns batching on with a parameters file, beside Pulumi.yaml's default batching: false (a value the program cannot tell from the user's)", () => {
        const file = "test/fixtures/batching_config.txt";
        assert.deepStrictEqual(readConfig(cfg({ ...BASE, batching: "false", batchingParametersFile: file }), PROJECT, DIR).models[0].batching,
            { enabled: true, parametersFile: file });
        assert.strictEqual(readConfig(cfg({ ...BASE, batching: "false" }), PROJECT, DIR).models[0].batching.enabled, false);
        assert.strictEqual(readConfig(cfg({ ...BASE, batching: "true" }), PROJECT, DIR).models[0].batching.enabled, true);
    });

    it("defaults gpuCount to one GPU when gpu is on (Pulumi.yaml's default 1 is no GPU without gpu)", () => {
        assert.strictEqual(readConfig(cfg({ ...BASE, gpu: "true" }), PROJECT, DIR).models[0].gpuCount, 1);
        assert.strictEqual(readConfig(cfg({ ...BASE, gpuCount: "1" }), PROJECT, DIR).models[0].gpuCount, 0);
    });

    it("refuses gpuCount 0 with gpu: true instead of quietly asking for one GPU", () => {
        const [issue] = issuesOf({ ...BASE, gpu: "true", gpuCount: "0" });
        assert.strictEqual(issue.key, "gpuCount");
        assert.match(issue.expected, /is 0 with gpu: true.*at least one nvidia.com\/gpu/);
    });

    it("suggests the right key for a typo", () => {
        const [issue] = issuesOf({ ...BASE, replica: "3" });
        assert.strictEqual(issue.key, "replica");
        assert.match(issue.expected, /did you mean 'replicas'/);
    });

    it("reports every problem at once", () => {
        const issues = issuesOf({ modelPath: "m", cloud: "azure", replicas: "0", namespace: "Bad NS" });
        assert.deepStrictEqual(issues.map((i) => i.key).sort(), ["cloud", "loadBalancerSourceRanges", "namespace", "replicas"]);
        assert.throws(() => readConfig(cfg({ modelPath: "m", replicas: "0", publicEndpoint: true }), PROJECT, DIR),
            /tf-serving:replicas = "0": must be a whole number from 1 to 1000/);
    });

    it("refuses flags the program manages in extraServerArgs", () => {
        const issues = issuesOf({ ...BASE, extraServerArgs: ["--rest_api_timeout_in_ms=5000", "--port=9000", "verbose"] });
        assert.deepStrictEqual(issues.map((i) => i.key), ["extraServerArgs[1]", "extraServerArgs[2]"]);
        assert.match(issues[0].expected, /set by this program/);
    });

    it("serves with warmup on by default, as TF Serving does, and refuses the flag in extraServerArgs", () => {
        assert.strictEqual(readConfig(cfg(BASE), PROJECT, DIR).models[0].enableWarmup, true);
        assert.strictEqual(readConfig(cfg({ ...BASE, enableWarmup: "false" }), PROJECT, DIR).models[0].enableWarmup, false);
        const [issue] = issuesOf({ ...BASE, extraServerArgs: ["--enable_model_warmup=false"] });
        assert.strictEqual(issue.key, "extraServerArgs[0]");
        assert.match(issue.expected, /set enableWarmup/);
    });

    it("checks version labels against the served versions", () => {
        const c = readConfig(cfg({ ...BASE, versions: [123, 124], versionLabels: { stable: 123, canary: "124" } }), PROJECT, DIR);
        assert.deepStrictEqual(c.models[0].versionLabels, { stable: 123, canary: 124 });
        const issues = issuesOf({ ...BASE, versions: [123], versionLabels: { stable: 999, "bad-label": 123 } });
        assert.deepStrictEqual(issues.map((i) => i.key).sort(), ["versionLabels.bad-label", "versionLabels.stable"]);
    });

    it("serves several models, each overriding the shared defaults", () => {
        const c = readConfig(cfg({
            publicEndpoint: true,
            replicas: "3",
            models: [{ name: "a", path: "models/a" }, { name: "b", path: "models/b", replicas: 1, gpu: true }],
        }), PROJECT, DIR);
        assert.deepStrictEqual(c.models.map((m) => [m.name, m.replicas, m.gpu]), [["a", 3, false], ["b", 1, true]]);
        const issues = issuesOf({ publicEndpoint: true, models: [{ name: "a", path: "x" }, { name: "a", path: "y", colour: "red" }] });
        assert.deepStrictEqual(issues.map((i) => i.key).sort(), ["models[1].colour", "models[1].name"]);
    });

    it("keeps local-only keys out of cloud stacks", () => {
        const issues = issuesOf({ ...BASE, cloud: "aws", registry: { server: "x:5000" }, eks: { region: "us-west-2" } });
        assert.ok(issues.some((i) => i.key === "registry" && /only to cloud "local"/.test(i.expected)), JSON.stringify(issues));
    });

    it("validates a base image override as an image reference", () => {
        assert.strictEqual(readConfig(cfg({ ...BASE, baseImage: "mirror.example:5000/tensorflow/serving:2.20.0" }), PROJECT, DIR).models[0].baseImage,
            "mirror.example:5000/tensorflow/serving:2.20.0");
        const [issue] = issuesOf({ ...BASE, baseImage: "Tensorflow/Serving:latest!" });
        assert.strictEqual(issue.key, "baseImage");
    });

    it("monitors with pod annotations by default, with managed Prometheus on the GKE clusters it creates, and the default thresholds", () => {
        const local = readConfig(cfg(BASE), PROJECT, DIR).monitoring;
        assert.deepStrictEqual(local, { collector: "annotations", thresholds: DEFAULT_THRESHOLDS, labels: {} });
        const gke = { project: "my-project", region: "us-central1" };
        assert.strictEqual(readConfig(cfg({ ...BASE, cloud: "gcp", gke }), PROJECT, DIR).monitoring.collector, "gke");
        const set = readConfig(cfg({ ...BASE, monitoring: { collector: "prometheus-operator", p99LatencyMs: 250, labels: { release: "kps" } } }), PROJECT, DIR).monitoring;
        assert.deepStrictEqual(set, { collector: "prometheus-operator", thresholds: { ...DEFAULT_THRESHOLDS, p99LatencyMs: 250 }, labels: { release: "kps" } });
    });

    it("rejects an unknown collector, a threshold out of range and an unknown monitoring key, naming each", () => {
        const issues = issuesOf({ ...BASE, monitoring: { collector: "datadog", errorRatioPercent: 0, memoryLimitPercent: "ninety", notReadyMinuts: 3 } });
        assert.deepStrictEqual(issues.map((i) => i.key).sort(), ["monitoring.collector", "monitoring.errorRatioPercent", "monitoring.memoryLimitPercent", "monitoring.notReadyMinuts"]);
        assert.match(issues.find((i) => i.key === "monitoring.collector")!.expected, /"gke", "prometheus-operator", "annotations", "none"/);
        assert.match(issues.find((i) => i.key === "monitoring.errorRatioPercent")!.expected, /from 1 to 99/);
    });

    it("refuses monitoring settings that do nothing or belong to another cloud: an empty collector, gke on aws, thresholds with none, labels no object carries", () => {
        const issue = (monitoring: Record<string, unknown>, extra: Record<string, unknown> = {}) => issuesOf({ ...BASE, ...extra, monitoring })
            .filter((i) => i.key.startsWith("monitoring")).map((i) => `${i.key}: ${i.expected}`).join("\n");
        assert.match(issue({ collector: "" }), /^monitoring\.collector: is empty: name one of "gke", "prometheus-operator", "annotations", "none", or remove the key for the default \("annotations" on cloud local\)/m);
        const eks = { region: "us-west-2", zones: ["us-west-2a", "us-west-2b"], adminPrincipalArns: ["arn:aws:iam::123456789012:role/deployer"] };
        assert.match(issue({ collector: "gke" }, { cloud: "aws", eks }), /^monitoring\.collector: is Google Cloud Managed Service for Prometheus, which runs on GKE only/m);
        assert.match(issue({ collector: "none", p99LatencyMs: 250, restarts: 3 }), /^monitoring\.p99LatencyMs: does nothing with monitoring\.collector "none"[^\n]*\nmonitoring\.restarts: does nothing/m);
        assert.match(issue({ labels: { release: "kps" } }), /^monitoring\.labels: do nothing with monitoring\.collector "annotations"/m);
        assert.match(issue({ collector: "none", labels: { release: "kps" } }), /^monitoring\.labels: do nothing with monitoring\.collector "none"/m);
        // A collector on an existing cluster may be GKE's: cloud local takes it.
        assert.strictEqual(readConfig(cfg({ ...BASE, monitoring: { collector: "gke" } }), PROJECT, DIR).monitoring.collector, "gke");
    });

    it("refuses monitoring labels the API server would refuse, and those that replace the model-server labels", () => {
        const issues = issuesOf({ ...BASE, monitoring: { collector: "prometheus-operator", labels: {
            "app.kubernetes.io/name": "mine", "release": "kube prometheus", "-bad": "x", "Example.com/team": "a", "ok.example/team": "ml",
        } } });
        const by = Object.fromEntries(issues.map((i) => [i.key, i]));
        assert.deepStrictEqual(Object.keys(by).sort(), ["monitoring.labels.-bad", "monitoring.labels.Example.com/team", "monitoring.labels.app.kubernetes.io/name", "monitoring.labels.release"]);
        assert.match(by["monitoring.labels.app.kubernetes.io/name"].expected, /a label this program sets on every model-server object/);
        assert.deepStrictEqual([by["monitoring.labels.release"].value, by["monitoring.labels.release"].expected], ["kube prometheus", by["monitoring.labels.release"].expected]);
        assert.match(by["monitoring.labels.release"].expected, /not a Kubernetes label value/);
        assert.match(by["monitoring.labels.-bad"].expected, /not a Kubernetes label key/);
        assert.match(by["monitoring.labels.Example.com/team"].expected, /prefix \(before '\/'\) must be a DNS subdomain/);
    });

    it("validates the local registry", () => {
        const issues = issuesOf({ ...BASE, registry: { server: "http://localhost:5000/v2", username: "u" } });
        assert.deepStrictEqual(issues.map((i) => i.key).sort(), ["registry.password", "registry.server"]);
        const more = issuesOf({ ...BASE, registry: { server: "localhost:70000", username: "me:team", password: "p" } });
        assert.deepStrictEqual(more.map((i) => i.key).sort(), ["registry.server", "registry.username"]);
        assert.match(more.find((i) => i.key === "registry.server")!.expected, /has port 70000, but a TCP port is 1 to 65535/);
        assert.match(more.find((i) => i.key === "registry.username")!.expected, /contains ':'/);
    });

    it("names keys written outside the project's namespace, with the key they were meant as; other packages' keys pass", () => {
        const all = { ...cfg(BASE), "tf_serving:replicas": "3", "tfserving:replicas": "4", "replicas": "5", "tf-servng:cpu": "2", "tf_serving:replica": "1",
            "aws:region": "us-west-2", "gcp:project": "p", "kubernetes:context": "kind", "pulumi:template": "x", "docker:host": "unix:///x" };
        let error: ConfigError | undefined;
        try {
            readConfig(all, PROJECT, DIR);
        } catch (err) {
            error = err as ConfigError;
        }
        assert.ok(error instanceof ConfigError);
        assert.deepStrictEqual(error.issues.map((i) => i.qualifiedKey).sort(), ["replicas", "tf-servng:cpu", "tf_serving:replica", "tf_serving:replicas", "tfserving:replicas"]);
        assert.match(error.message, /^ {2}- tf_serving:replicas: is in namespace "tf_serving", which is not this project's \("tf-serving"\), so nothing reads it: this project's keys are tf-serving:KEY\. did you mean 'tf-serving:replicas'\?$/m);
        assert.match(error.message, /^ {2}- replicas: has no namespace: Pulumi's config keys are NAMESPACE:NAME[^\n]*did you mean 'tf-serving:replicas'\?$/m);
        assert.match(error.message, /^ {2}- tf_serving:replica: [^\n]*did you mean 'tf-serving:replica' \(not a key of this project either: known keys are/m);
        // The value of a key in the wrong place is never printed: it may be a secret nothing treats as one.
        assert.doesNotMatch(error.message, /tf_serving:replicas[^\n]*"3"/);
    });
});

describe("quantities and CIDRs", () => {
    it("parses Kubernetes quantities", () => {
        assert.strictEqual(parseQuantity("512Mi"), 512 * 2 ** 20);
        assert.strictEqual(parseQuantity("1.5Gi"), 1.5 * 2 ** 30);
        assert.strictEqual(parseQuantity("250m"), 0.25);
        assert.strictEqual(parseQuantity("2e3"), 2000);
        assert.strictEqual(parseQuantity("2 Gi"), undefined);
        assert.strictEqual(parseQuantity("Gi"), undefined);
    });

    it("accepts IPv4 and IPv6 CIDRs only", () => {
        for (const ok of ["0.0.0.0/0", "203.0.113.0/24", "2001:db8::/32", "::/0", "fe80:0:0:0:0:0:0:1/128"]) {
            assert.strictEqual(cidrProblem(ok), undefined, ok);
        }
        for (const bad of ["10.0.0.0", "10.0.0.0/33", "256.0.0.0/8", "1.2.3/8", "2001:db8::/129", "a::b::c/64", "office/24", "1:2:3:4:5:6:7:8:9/64"]) {
            assert.match(cidrProblem(bad) ?? "", /must be a CIDR/, bad);
        }
    });

    it("refuses host bits, naming the block the prefix means", () => {
        assert.strictEqual(cidrProblem("10.1.2.3/8"), "has host bits set; the block is 10.0.0.0/8");
        assert.strictEqual(cidrProblem("2001:db8::1/32"), "has host bits set; the block is 2001:db8::/32");
        assert.strictEqual(cidrProblem("2001:db8:0:0:1:0:0:0/64"), "has host bits set; the block is 2001:db8::/64");
        assert.strictEqual(cidrProblem("fe80::1:0:0:1/96"), "has host bits set; the block is fe80::1:0:0:0/96");
    });
});

describe("readConfig: canary", () => {
    const GATEWAY = { ...BASE, endpoint: "gateway", gateway: { className: "traefik", tlsSecretName: "tfs-tls" } };
    /** Several models behind Gateways of one class: a gRPC host each. */
    const SEVERAL = { gateway: { ...GATEWAY.gateway, grpcHostname: "{model}.grpc.example.com" } };

    it("is off unless set; set, its defaults fill what is left out", () => {
        assert.strictEqual(readConfig(cfg(GATEWAY), PROJECT, DIR).models[0].canary, undefined);
        const c = readConfig(cfg({ ...GATEWAY, canary: { steps: [5, 25, 75], gates: { maxErrorRatio: 0.002 } } }), PROJECT, DIR);
        assert.deepStrictEqual(c.models[0].canary, {
            steps: [5, 25, 75], holdSeconds: 60, replicas: 1, gates: { maxErrorRatio: 0.002, maxP99Ms: 1000, minRequests: 50 },
        });
    });

    it("is per model too, beside the top-level default", () => {
        const c = readConfig(cfg({ ...GATEWAY, ...SEVERAL, modelPath: undefined, canary: { holdSeconds: 30 }, models: [
            { name: "a", path: "models/a" }, { name: "b", path: "models/b", canary: { holdSeconds: 90 } },
        ] }), PROJECT, DIR);
        assert.deepStrictEqual(c.models.map((m) => m.canary?.holdSeconds), [30, 90]);
    });

    it("refuses a LoadBalancer endpoint, naming endpoint: gateway as the way", () => {
        const [issue] = issuesOf({ ...BASE, canary: {} });
        assert.strictEqual(issue.key, "canary");
        assert.match(issue.expected, /needs `endpoint: gateway`.*splits connections.*Set endpoint: gateway/);
    });

    it("names every bad key with its bounds", () => {
        const issues = issuesOf({ ...GATEWAY, canary: {
            steps: [50, 10], holdSeconds: 1, replicas: 0, gate: {}, gates: { maxErrorRatio: 2, maxP99Ms: "fast", minRequests: 0, p95: 1 },
        } });
        const keys = issues.map((i) => `${i.key}: ${i.expected}`).join("\n");
        assert.match(keys, /^canary\.steps: must list 1 to 10 percents .* ascending, each from 1 to 99/m);
        assert.match(keys, /^canary\.holdSeconds: must be a whole number from 5 to 3600/m);
        assert.match(keys, /^canary\.replicas: must be a whole number from 1 to 100/m);
        assert.match(keys, /^canary\.gate:/m);
        assert.match(keys, /^canary\.gates\.maxErrorRatio: must be a number from 0 to 1/m);
        assert.match(keys, /^canary\.gates\.maxP99Ms: must be a whole number/m);
        assert.match(keys, /^canary\.gates\.minRequests: must be a whole number from 1/m);
        assert.match(keys, /^canary\.gates\.p95:/m);
    });

    it("refuses holds the HPA's scale-down window would cut short, naming canary.holdSeconds; the defaults pass", () => {
        assert.strictEqual(readConfig(cfg({ ...GATEWAY, autoscaling: { maxReplicas: 4 }, canary: {} }), PROJECT, DIR).models[0].canary?.holdSeconds, 60);
        const [issue] = issuesOf({ ...GATEWAY, autoscaling: { maxReplicas: 4, scaleDownStabilizationSeconds: 60 }, canary: { holdSeconds: 30 } });
        assert.strictEqual(issue.key, "canary.holdSeconds");
        assert.match(issue.expected, /up to 90 s .*longer than autoscaling\.scaleDownStabilizationSeconds \(60\).*at least 90/);
        assert.strictEqual(readConfig(cfg({ ...GATEWAY, canary: { holdSeconds: 3600 } }), PROJECT, DIR).models[0].canary?.holdSeconds, 3600, "without an HPA nothing removes serving pods");
    });

    it("counts a GPU model's canary pods at its last step's weight against the GPU pool", () => {
        const gke = { project: "my-project", region: "us-central1", zones: ["us-central1-a"], gpuPool: { acceleratorType: "nvidia-l4", maxNodes: 5 } };
        // 4 serving pods and, at 50 %, 2 canary pods (one would carry twice a serving pod's load): 6 GPUs, not 5.
        const issues = issuesOf({ ...GATEWAY, cloud: "gcp", gpu: "true", replicas: "4", gke, canary: { steps: [10, 50] } });
        const pool = issues.find((i) => i.key === "gke.gpuPool.maxNodes");
        assert.ok(pool, JSON.stringify(issues));
        assert.match(pool.expected, /need 6\b/, pool.expected);
        assert.match(pool.expected, /\b2 canary pods \(canary\.replicas and \.steps\)/, pool.expected);
    });

    it("refuses a model name too long for its canary's DNS label", () => {
        const name = "m".repeat(60);
        const [issue] = issuesOf({ ...GATEWAY, modelName: name, canary: {} });
        assert.strictEqual(issue.key, "canary");
        assert.match(issue.expected, /shorten the model name to 56 characters/);
    });

    it("refuses maxErrorRatio 1 (read as 1 %): the gate would pass a version whose every call fails; a fraction below 1 passes", () => {
        for (const maxErrorRatio of [1, "1", 1.0]) {
            const [issue] = issuesOf({ ...GATEWAY, canary: { gates: { maxErrorRatio } } });
            assert.strictEqual(issue.key, "canary.gates.maxErrorRatio");
            assert.match(issue.expected, /a fraction .* not a percent \(0\.01 = 1 %\).*every call fails.*docs\/guides\/canary\.md/);
        }
        assert.strictEqual(readConfig(cfg({ ...GATEWAY, canary: { gates: { maxErrorRatio: 0.99 } } }), PROJECT, DIR).models[0].canary?.gates.maxErrorRatio, 0.99);
        assert.strictEqual(readConfig(cfg({ ...GATEWAY, canary: { gates: { maxErrorRatio: 0 } } }), PROJECT, DIR).models[0].canary?.gates.maxErrorRatio, 0);
    });

    it("refuses a model named as another model's canary (a and a-canary): a release of a would replace and delete a-canary's Deployment", () => {
        const models = (canary: boolean) => [
            { name: "a", path: "models/a", ...(canary ? { canary: {} } : {}) }, { name: "a-canary", path: "models/b" },
        ];
        const [issue] = issuesOf({ ...GATEWAY, ...SEVERAL, modelPath: undefined, models: models(true) });
        assert.strictEqual(issue.key, "models[1].name");
        assert.match(issue.expected, /model "a"'s canary .* rename this model .*or remove models\[0\]\.canary/);
        assert.strictEqual(readConfig(cfg({ ...GATEWAY, ...SEVERAL, modelPath: undefined, models: models(false) }), PROJECT, DIR).models.length, 2, "no canary, no clash");
    });
});

describe("readConfig: modelDelivery", () => {
    const GKE = { project: "my-project", region: "us-central1" };
    const EKS = { region: "us-west-2", zones: ["us-west-2a", "us-west-2b"], adminPrincipalArns: ["arn:aws:iam::123456789012:role/deployer"] };
    const TWO = { models: [{ name: "a", path: "models/a" }, { name: "b", path: "models/b", modelDelivery: "imageVolume" }], publicEndpoint: "true" };

    it("is embedded by default and as Pulumi.yaml declares it; the top-level key is every model's default, a model's own key wins", () => {
        assert.strictEqual(readConfig(cfg(BASE), PROJECT, DIR).models[0].modelDelivery, "embedded");
        assert.strictEqual(readConfig(cfg({ ...BASE, modelDelivery: "embedded" }), PROJECT, DIR).models[0].modelDelivery, "embedded");
        assert.strictEqual(readConfig(cfg({ ...BASE, modelDelivery: "imageVolume" }), PROJECT, DIR).models[0].modelDelivery, "imageVolume");
        assert.deepStrictEqual(readConfig(cfg(TWO), PROJECT, DIR).models.map((m) => m.modelDelivery), ["embedded", "imageVolume"]);
        assert.deepStrictEqual(readConfig(cfg({ ...TWO, modelDelivery: "imageVolume", models: [TWO.models[0], { ...TWO.models[1], modelDelivery: "embedded" }] }), PROJECT, DIR)
            .models.map((m) => m.modelDelivery), ["imageVolume", "embedded"]);
        const m = readConfig(cfg(TWO), PROJECT, DIR).models;
        assert.deepStrictEqual(m.map((x) => x.configKey("modelDelivery")), ["modelDelivery", "models[1].modelDelivery"]);
    });

    it("refuses a value it does not know, with ModelServer's words, under the key it was written at", () => {
        const [top] = issuesOf({ ...BASE, modelDelivery: "imagevolume" });
        assert.deepStrictEqual([top.key, top.value], ["modelDelivery", "imagevolume"]);
        assert.strictEqual(top.expected, 'must be one of "embedded", "imageVolume" (see docs/concepts/model-image.md#two-ways-to-deliver-the-model)');
        const [own] = issuesOf({ ...TWO, models: [TWO.models[0], { ...TWO.models[1], modelDelivery: "volume" }] });
        assert.strictEqual(own.key, "models[1].modelDelivery");
    });

    it("on GKE: refused, since GKE documents no containerd that mounts image volumes and its version follows the release channel", () => {
        const issues = issuesOf({ ...BASE, cloud: "gcp", gke: GKE, modelDelivery: "imageVolume" });
        assert.deepStrictEqual(issues.map((i) => i.key), ["modelDelivery"]);
        assert.match(issues[0].expected, /^cannot be mounted on this cluster: GKE documents containerd 2\.0 for its Linux nodes from GKE 1\.33 and no later containerd .*migrate-containerd-2.*gke\.releaseChannel.*\. Set modelDelivery to "embedded" \(the default\).*\(see docs\/concepts\/model-image\.md#two-ways-to-deliver-the-model\)$/);
        assert.doesNotThrow(() => readConfig(cfg({ ...BASE, cloud: "gcp", gke: GKE }), PROJECT, DIR), "embedded runs on GKE as before");
    });

    it("on EKS: from eks.kubernetesVersion and the AL2023 AMIs the stack creates (containerd 2.1.5 from the first 1.35 AMIs, awslabs/amazon-eks-ami CHANGELOG.md)", () => {
        const aws = (eks: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ ...BASE, cloud: "aws", eks: { ...EKS, ...eks }, modelDelivery: "imageVolume", ...extra });
        assert.doesNotThrow(() => readConfig(cfg(aws({ kubernetesVersion: "1.35" })), PROJECT, DIR));
        assert.doesNotThrow(() => readConfig(cfg(aws({ kubernetesVersion: "1.36" })), PROJECT, DIR));
        const gpu = aws({ kubernetesVersion: "1.35", gpuNodeGroup: { instanceType: "g5.xlarge", desiredNodes: 3, minNodes: 0, maxNodes: 3 } }, { gpu: "true" });
        assert.doesNotThrow(() => readConfig(cfg(gpu), PROJECT, DIR), "the NVIDIA AMI runs the same containerd");
        const [older] = issuesOf(aws({ kubernetesVersion: "1.34" }));
        assert.strictEqual(older.key, "modelDelivery");
        assert.match(older.expected, /eks\.kubernetesVersion is "1\.34": Kubernetes 1\.34 has the ImageVolume feature gate beta and off by default .* EKS does not let a cluster turn the gate on; set eks\.kubernetesVersion to "1\.35" or later/);
        const [unset] = issuesOf(aws({}));
        assert.match(unset.expected, /eks\.kubernetesVersion is not set, so EKS creates the cluster on its default version, which the preview cannot know/);
    });

    it("on an existing cluster: nothing refused from config alone (the preview asks the cluster)", () => {
        assert.doesNotThrow(() => readConfig(cfg({ ...BASE, modelDelivery: "imageVolume" }), PROJECT, DIR));
    });
});
