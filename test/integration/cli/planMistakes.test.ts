/**
 * `tfs plan` over the configuration mistakes a user plausibly makes in a stack file: each must end
 * with a clear error (non-zero exit, no trace, the key or file named), never a plan.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { fixtureModelDir } from "../../support/fixtures";
import { Mistake, describeMistakes, makeBrokenModels, runTfs } from "../../support/mistakes";

const REPO = path.resolve(__dirname, "../../..");
const PROJECT = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-plan-mistakes-"));
fs.copyFileSync(path.join(REPO, "Pulumi.yaml"), path.join(PROJECT, "Pulumi.yaml"));
fs.mkdirSync(path.join(PROJECT, "models"));
makeBrokenModels(path.join(PROJECT, "models"), fixtureModelDir("half_plus_two_cpu"));

interface PlanMistake extends Omit<Mistake, "args"> {
    /** The stack file's text (a YAML error is a case too). */
    stack?: string;
    /** `tfs plan` arguments instead of `--stack <this case's stack>`. */
    args?: string[];
    /** The stack's name when a case names its file; default `plan-case-N`. */
    stackName?: string;
}

/** A local stack serving models/good, with `lines` (YAML under `config:`) added. */
const local = (...lines: string[]): string =>
    ["config:", "  tf-serving:modelPath: models/good", "  tf-serving:serviceType: ClusterIP", ...lines.map((l) => `  ${l}`), ""].join("\n");
const withModel = (model: string, ...lines: string[]): string => local(...lines).replace("models/good", model);
const EKS = ["region: us-west-2", "zones: [us-west-2a, us-west-2b]", "adminPrincipalArns: [\"arn:aws:iam::123456789012:role/deployer\"]"];
/** An AWS stack whose `eks` section is EKS with `eks` lines replacing same-named defaults. */
const aws = (...eks: string[]): string => {
    const keys = new Set(eks.map((l) => l.split(":")[0]));
    const section = [...EKS.filter((l) => !keys.has(l.split(":")[0])), ...eks];
    return local("tf-serving:cloud: aws", "tf-serving:eks:", ...section.map((l) => `  ${l}`));
};
/** The AWS stack with `endpoint: gateway` open to all, and `lines` (YAML under `tf-serving:gateway:`). */
const awsGateway = (...lines: string[]): string =>
    [aws().trimEnd(), "  tf-serving:endpoint: gateway", "  tf-serving:publicEndpoint: true", "  tf-serving:gateway:", ...lines.map((l) => `    ${l}`), ""].join("\n");
const CERT = "arn:aws:acm:us-west-2:123456789012:certificate/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b";
const gcp = (...gke: string[]): string =>
    local("tf-serving:cloud: gcp", "tf-serving:gke:", "  project: my-project", "  region: us-central1", ...gke.map((l) => `  ${l}`));
/** The GCP stack with `top` lines (YAML under `config:`) beside its `gke` section. */
const gcpWith = (top: string[], ...gke: string[]): string => [gcp(...gke).trimEnd(), ...top.map((l) => `  ${l}`), ""].join("\n");
/** The GCP stack with `endpoint: gateway` open to all, and `lines` (YAML under `tf-serving:gateway:`). */
const gcpGateway = (...lines: string[]): string =>
    gcpWith(["tf-serving:endpoint: gateway", "tf-serving:publicEndpoint: true", "tf-serving:gateway:", ...lines.map((l) => `  ${l}`)]);

/** `endpoint: gateway` on the local cluster's Traefik, open to all (a canary needs the Gateway). */
const LOCAL_GATEWAY = ["tf-serving:endpoint: gateway", "tf-serving:publicEndpoint: true", "tf-serving:gateway: {className: traefik}"];

/** Nine levels of ten aliases each: a few lines that expand to 10^9 values (the "billion laughs"). */
const aliasBomb = (): string => {
    const lines = ["config:", "  tf-serving:modelPath: models/good", "  l0: &l0 [x, x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 9; i++) {
        lines.push(`  l${i}: &l${i} [${Array(10).fill(`*l${i - 1}`).join(", ")}]`);
    }
    return `${lines.join("\n")}\n`;
};

const cases: PlanMistake[] = [
    { name: "replicas: 0", stack: local("tf-serving:replicas: 0"), mentions: ["tf-serving:replicas", "\"0\""] },
    { name: "replicas: two", stack: local("tf-serving:replicas: two"), mentions: ["tf-serving:replicas", "two"] },
    { name: "cloud: azure", stack: local("tf-serving:cloud: azure"), mentions: ["tf-serving:cloud", "azure"] },
    { name: "a misspelt key (replica)", stack: local("tf-serving:replica: 2"), mentions: ["tf-serving:replica", "replicas"] },
    { name: "a tab in the stack file", stackName: "tab", stack: "config:\n\ttf-serving:modelPath: models/good\n", mentions: ["Pulumi.tab.yaml", "line 2"] },
    { name: "a duplicate key in the stack file", stackName: "duplicate", stack: local("tf-serving:replicas: 1", "tf-serving:replicas: 2"), mentions: ["Pulumi.duplicate.yaml", "line 5", "replicas"] },
    { name: "a stack with no file", args: ["--stack", "nosuch"], mentions: ["Pulumi.nosuch.yaml"] },
    { name: "--stack ../../x (a path, not a stack name)", args: ["--stack", "../../x"], mentions: ["--stack", "../../x"] },
    { name: "--stack with a slash", args: ["--stack", "a/b"], mentions: ["--stack", "a/b"] },
    { name: "extraServerArgs: a misspelt TF Serving flag", stack: local("tf-serving:extraServerArgs: [\"--enable_batchin=true\"]"), mentions: ["tf-serving:extraServerArgs[0]", "--enable_batchin", "--enable_batching"] },
    { name: "extraServerArgs: a value the flag cannot take", stack: local("tf-serving:extraServerArgs: [\"--rest_api_timeout_in_ms=30s\"]"), mentions: ["tf-serving:extraServerArgs[0]", "--rest_api_timeout_in_ms", "30s"] },
    { name: "extraServerArgs: a flag the program sets", stack: local("tf-serving:extraServerArgs: [\"--port=9000\"]"), mentions: ["tf-serving:extraServerArgs[0]", "--port"] },
    { name: "extraServerArgs: not a flag", stack: local("tf-serving:extraServerArgs: [\"enable_batching\"]"), mentions: ["tf-serving:extraServerArgs[0]", "--name=value"] },
    { name: "loadBalancerSourceRanges: a CIDR with host bits", stack: local("tf-serving:serviceType: LoadBalancer", "tf-serving:loadBalancerSourceRanges: [10.1.2.3/8]").replace("  tf-serving:serviceType: ClusterIP\n", ""), mentions: ["tf-serving:loadBalancerSourceRanges[0]", "10.0.0.0/8"] },
    { name: "loadBalancerSourceRanges: an IPv6 CIDR with host bits", stack: local("tf-serving:serviceType: LoadBalancer", "tf-serving:loadBalancerSourceRanges: [\"2001:db8::1/32\"]").replace("  tf-serving:serviceType: ClusterIP\n", ""), mentions: ["tf-serving:loadBalancerSourceRanges[0]", "2001:db8::/32"] },
    { name: "loadBalancerSourceRanges: a bad entry is not also an empty list", stack: local("tf-serving:serviceType: LoadBalancer", "tf-serving:loadBalancerSourceRanges: [office]").replace("  tf-serving:serviceType: ClusterIP\n", ""), mentions: ["tf-serving:loadBalancerSourceRanges[0]", "office"], forbid: [/needs the CIDRs allowed/] },
    { name: "LoadBalancer with no source ranges", stack: local("tf-serving:serviceType: LoadBalancer").replace("  tf-serving:serviceType: ClusterIP\n", ""), mentions: ["tf-serving:loadBalancerSourceRanges", "publicEndpoint"] },
    { name: "gpu: true with gpuCount: 0", stack: local("tf-serving:gpu: true", "tf-serving:gpuCount: 0"), mentions: ["tf-serving:gpuCount", "\"0\""] },
    { name: "gpuCount without gpu", stack: local("tf-serving:gpuCount: 2"), mentions: ["tf-serving:gpuCount", "gpu"] },
    { name: "versions: [0]", stack: local("tf-serving:versions: [0]"), mentions: ["tf-serving:versions[0]"] },
    // Past int64, strconv.Atoi fails: the engine refuses the stack for Pulumi.yaml's `versions: {type: array, items: {type: integer}}` (ValidateConfigValue, pulumi/pulumi sdk/go/common/workspace/project.go).
    { name: "versions: a number past int64", stack: local("tf-serving:versions: [\"99999999999999999999\"]"), mentions: ["tf-serving:versions", "[0]", "array<integer>"] },
    { name: "versions: a version with no folder", stack: local("tf-serving:versions: [7]"), mentions: ["tf-serving:modelPath", "Version 7"] },
    { name: "modelPath: /etc, said once and bounded", stack: withModel("/etc"), mentions: ["tf-serving:modelPath", "/etc", "No numeric version folder"], forbid: [/chmod/, /cp --remove-destination/] },
    { name: "modelPath: a folder that is not a model", stack: withModel("models/etc-like"), mentions: ["tf-serving:modelPath", "etc-like"], forbid: [/links to/, /chmod -R/] },
    { name: "modelPath: missing", stack: withModel("models/nope"), mentions: ["tf-serving:modelPath", "nope"] },
    { name: "modelPath not set", stack: "config:\n  tf-serving:serviceType: ClusterIP\n", mentions: ["tf-serving:modelPath"] },
    { name: "modelPath: a zero-byte variables shard", stack: withModel("models/zero-shard"), mentions: ["tf-serving:modelPath", "variables.data-00000-of-00001"] },
    { name: "modelPath: an asset link back to its version folder", stack: withModel("models/self-link"), mentions: ["tf-serving:modelPath", "back-to-version", "loop"] },
    { name: "modelPath: a link loop", stack: withModel("models/link-loop"), mentions: ["tf-serving:modelPath", "loop"], forbid: [/does not exist/] },
    { name: "modelPath: a named pipe in the version folder", stack: withModel("models/named-pipe"), mentions: ["tf-serving:modelPath", "pipe", "neither a file nor a folder"] },
    { name: "signature the model lacks names the config key", stack: local("tf-serving:signature: predict_all"), mentions: ["tf-serving:signature", "predict_all"], forbid: [/--signature/] },
    { name: "models[1].signature the model lacks", stack: "config:\n  tf-serving:serviceType: ClusterIP\n  tf-serving:models:\n    - { name: a, path: models/good }\n    - { name: b, path: models/good, signature: predict_all }\n", mentions: ["tf-serving:models[1].signature", "predict_all"], forbid: [/--signature/] },
    { name: "models: two with one name", stack: "config:\n  tf-serving:serviceType: ClusterIP\n  tf-serving:models:\n    - { name: a, path: models/good }\n    - { name: a, path: models/good }\n", mentions: ["tf-serving:models[1].name"] },
    { name: "memoryRequest: lots", stack: local("tf-serving:memoryRequest: lots"), mentions: ["tf-serving:memoryRequest", "lots"] },
    { name: "namespace: not a DNS label", stack: local("tf-serving:namespace: Team_A"), mentions: ["tf-serving:namespace", "Team_A"] },
    { name: "serviceType: Ingress", stack: local("tf-serving:serviceType: Ingress").replace("  tf-serving:serviceType: ClusterIP\n", ""), mentions: ["tf-serving:serviceType", "Ingress"] },
    { name: "batchingParametersFile that does not exist", stack: local("tf-serving:batchingParametersFile: batching.txt"), mentions: ["tf-serving:batchingParametersFile", "batching.txt"] },
    { name: "versionLabels pointing at a version not served", stack: local("tf-serving:versions: [123]", "tf-serving:versionLabels: { stable: 7 }"), mentions: ["tf-serving:versionLabels.stable"] },
    { name: "registry.server with a scheme", stack: local("tf-serving:registry: { server: \"http://localhost:5001\" }"), mentions: ["tf-serving:registry.server", "http://localhost:5001"] },
    { name: "eks.kubernetesVersion: 1.99", stack: aws("kubernetesVersion: \"1.99\""), mentions: ["tf-serving:eks.kubernetesVersion", "1.99", "1.33"] },
    { name: "eks.zones: one of two zones in another region", stack: aws("zones: [us-west-2a, us-east-1b]"), mentions: ["tf-serving:eks.zones[1]", "us-east-1b"], forbid: [/2 to 6/] },
    { name: "eks.zones: one zone", stack: aws("zones: [us-west-2a]"), mentions: ["tf-serving:eks.zones", "2 to 6"] },
    { name: "eks.vpcCidr with host bits", stack: aws("vpcCidr: 10.1.2.3/16"), mentions: ["tf-serving:eks.vpcCidr", "10.1.0.0/16"] },
    { name: "eks.apiAccessCidrs with host bits", stack: aws("apiAccessCidrs: [203.0.113.7/24]"), mentions: ["tf-serving:eks.apiAccessCidrs[0]", "203.0.113.0/24"] },
    { name: "endpoint gateway on aws without a certificate", stack: awsGateway("className: tf-serving-alb"), mentions: ["tf-serving:gateway.certificateArn", "HTTPS", "ACM"] },
    { name: "endpoint gateway on aws: a certificate ARN of another service", stack: awsGateway("certificateArn: arn:aws:iam::123456789012:server-certificate/tfs"), mentions: ["tf-serving:gateway.certificateArn", "arn:aws:acm:REGION:ACCOUNT:certificate/ID"] },
    { name: "endpoint gateway on aws: a certificate in another region", stack: awsGateway(`certificateArn: ${CERT.replace("us-west-2", "us-east-1")}`), mentions: ["tf-serving:gateway.certificateArn", "us-east-1", "eks.region (us-west-2)"] },
    { name: "endpoint gateway on aws: a TLS Secret instead of ACM", stack: awsGateway(`certificateArn: ${CERT}`, "tlsSecretName: tfs-tls"), mentions: ["tf-serving:gateway.tlsSecretName", "ACM", "gateway.certificateArn"] },
    { name: "gke.subnetCidr with host bits", stack: gcp("subnetCidr: 10.0.3.0/20"), mentions: ["tf-serving:gke.subnetCidr", "10.0.0.0/20"] },
    { name: "gke.masterCidr with host bits", stack: gcp("privateNodes: true", "masterCidr: 172.16.0.5/28"), mentions: ["tf-serving:gke.masterCidr", "172.16.0.0/28"] },
    { name: "gke.apiAccessCidrs with host bits", stack: gcp("apiAccessCidrs: [198.51.100.9/24]"), mentions: ["tf-serving:gke.apiAccessCidrs[0]", "198.51.100.0/24"] },
    { name: "gke section on a local stack", stack: local("tf-serving:gke: { project: p }"), mentions: ["tf-serving:gke"] },
    { name: "a key in another namespace (tf_serving:replicas)", stack: local("tf_serving:replicas: 3"), mentions: ["tf_serving:replicas", "tf-serving:replicas"] },
    { name: "a key in a misspelt namespace (tfserving:replicas)", stack: local("tfserving:replicas: 3"), mentions: ["tfserving:replicas", "tf-serving:replicas"] },
    // The engine reads a bare `replicas` under config: as tf-serving:replicas (stackConfigNamespacedWithProject, pulumi/pulumi sdk/go/common/workspace/loaders.go).
    { name: "a key written bare and with its namespace", stack: local("replicas: 3", "tf-serving:replicas: 2"), mentions: ["replicas", "tf-serving:replicas", "same key"] },
    { name: "other packages' keys are not flagged", stack: local("aws:region: us-west-2", "kubernetes:context: kind", "tf-serving:replicas: 0"), mentions: ["tf-serving:replicas"], forbid: [/aws:region/, /kubernetes:context/] },
    { name: "monitoring.collector: \"\" (would silently mean the default)", stack: local("tf-serving:monitoring: { collector: \"\" }"), mentions: ["tf-serving:monitoring.collector", "is empty"] },
    { name: "monitoring.collector: gke on aws", stack: [aws().trimEnd(), "  tf-serving:monitoring: { collector: gke }", ""].join("\n"), mentions: ["tf-serving:monitoring.collector", "GKE only"] },
    { name: "monitoring thresholds with collector none", stack: local("tf-serving:monitoring: { collector: none, p99LatencyMs: 250 }"), mentions: ["tf-serving:monitoring.p99LatencyMs", "\"none\""] },
    { name: "monitoring.labels with the annotations collector", stack: local("tf-serving:monitoring: { labels: { release: kps } }"), mentions: ["tf-serving:monitoring.labels", "annotations"] },
    { name: "monitoring.labels: a value that is no Kubernetes label", stack: local("tf-serving:monitoring: { collector: prometheus-operator, labels: { release: \"kube prometheus\" } }"), mentions: ["tf-serving:monitoring.labels.release", "kube prometheus"] },
    { name: "monitoring.labels replacing the model-server app.kubernetes.io/name", stack: local("tf-serving:monitoring: { collector: prometheus-operator, labels: { app.kubernetes.io/name: mine } }"), mentions: ["tf-serving:monitoring.labels.app.kubernetes.io/name"] },
    { name: "registry.server with a port past 65535", stack: local("tf-serving:registry: { server: \"localhost:70000\" }"), mentions: ["tf-serving:registry.server", "65535"] },
    { name: "registry.username with a ':'", stack: local("tf-serving:registry: { server: \"localhost:5001\", username: \"me:team\", password: p }"), mentions: ["tf-serving:registry.username", "':'"] },
    { name: "gke.zones: [] with a GPU pool", stack: gcp("zones: []", "gpuPool: { acceleratorType: nvidia-tesla-t4 }"), mentions: ["tf-serving:gke.zones", "is empty"] },
    { name: "gke.masterCidr inside gke.subnetCidr", stack: gcp("privateNodes: true", "subnetCidr: 172.16.0.0/20", "masterCidr: 172.16.0.16/28"), mentions: ["tf-serving:gke.masterCidr", "overlaps gke.subnetCidr"] },
    { name: "gateway.className: a GKE class on aws", stack: awsGateway(`certificateArn: ${CERT}`, "className: gke-l7-global-external-managed"), mentions: ["tf-serving:gateway.className", "EKS"] },
    { name: "gateway.className: a GKE regional class without a proxy-only subnet", stack: gcpGateway("certificateMap: tfs", "className: gke-l7-regional-external-managed"), mentions: ["tf-serving:gateway.className", "proxy-only subnet"] },
    { name: "gateway.className on gcp: no controller of the cluster serves it", stack: gcpGateway("certificateMap: tfs", "className: traefik"), mentions: ["tf-serving:gateway.className", "traefik"] },
    { name: "gateway.certificateArn: a region outside the ARN's partition", stack: awsGateway(`certificateArn: ${CERT.replace("arn:aws:", "arn:aws-cn:")}`), mentions: ["tf-serving:gateway.certificateArn", "aws-cn"] },
    { name: "gke.cpuPool.machineType: a misspelt machine type", stack: gcp("cpuPool: { machineType: e2-standrad-4 }"), mentions: ["tf-serving:gke.cpuPool.machineType", "e2-standrad-4", "e2-standard-4"] },
    { name: "eks.cpuNodeGroup.instanceType: a misspelt size", stack: aws("cpuNodeGroup: { instanceType: m6i.xlarg }"), mentions: ["tf-serving:eks.cpuNodeGroup.instanceType", "m6i.xlarge"] },
    { name: "a YAML alias bomb names the stack file", stackName: "bomb", stack: aliasBomb(), mentions: ["Pulumi.bomb.yaml", "aliases"] },
    { name: "modelPath with a NUL byte is not a permissions problem", stack: withModel("\"models/go\\0od\""), mentions: ["tf-serving:modelPath", "NUL"], forbid: [/permissions/] },
    { name: "a stack file that is a list", stackName: "list", stack: "- tf-serving:modelPath: models/good\n", mentions: ["Pulumi.list.yaml", "config"] },
    // Settings that switched a check off, or were read otherwise than Pulumi reads them.
    { name: "canary maxErrorRatio: 1 (meant as 1 %)", stack: local(...LOCAL_GATEWAY, "tf-serving:canary: {gates: {maxErrorRatio: 1}}"), mentions: ["tf-serving:canary.gates.maxErrorRatio", "0.01 = 1 %"] },
    {
        name: "models a and a-canary, a with a canary", mentions: ["tf-serving:models[1].name", "a-canary", "canary"],
        stack: local(...LOCAL_GATEWAY, "tf-serving:models: [{name: a, path: models/good, canary: {}}, {name: a-canary, path: models/good}]").replace("  tf-serving:modelPath: models/good\n", ""),
    },
    { name: "autoscaling.maxReplicas: 1e9", stack: local("tf-serving:autoscaling: {maxReplicas: 1000000000}"), mentions: ["tf-serving:autoscaling.maxReplicas", "1 to 1000"] },
    { name: "maxReplicas: 010 inside a mapping", stack: local("tf-serving:autoscaling: {maxReplicas: 010}"), mentions: ["line 4", "010", "octal"] },
    { name: "maxErrorRatio: .inf", stack: local(...LOCAL_GATEWAY, "tf-serving:canary: {gates: {maxErrorRatio: .inf}}"), mentions: [".inf", "not a finite number"] },
    { name: "a tf-serving: key outside config:", stack: `${local()}tf-serving:replicas: 3\n`, mentions: ["tf-serving:replicas", "outside `config:`"] },
    { name: "eks.prometheusUrl on loopback", stack: aws("prometheusUrl: http://localhost:9090"), mentions: ["tf-serving:eks.prometheusUrl", "localhost", "the adapter itself"] },
    { name: "modelDelivery: a value it does not know", stack: local("tf-serving:modelDelivery: volume"), mentions: ["tf-serving:modelDelivery", "\"volume\"", "\"imageVolume\""] },
    {
        name: "modelDelivery: imageVolume on GKE (no documented containerd mounts one)", stack: gcpWith(["tf-serving:modelDelivery: imageVolume"]),
        mentions: ["tf-serving:modelDelivery", "containerd 2.0", "gke.releaseChannel", "docs/concepts/model-image.md#two-ways-to-deliver-the-model"],
    },
    {
        name: "modelDelivery: imageVolume on EKS without eks.kubernetesVersion", stack: [aws().trimEnd(), "  tf-serving:modelDelivery: imageVolume", ""].join("\n"),
        mentions: ["tf-serving:modelDelivery", "eks.kubernetesVersion is not set", "1.35"],
    },
    {
        name: "models[0].modelDelivery: imageVolume on EKS 1.34", mentions: ["tf-serving:models[0].modelDelivery", "1.34", "off by default"],
        stack: aws("kubernetesVersion: \"1.34\"").replace("  tf-serving:modelPath: models/good\n", "  tf-serving:models: [{name: good, path: models/good, modelDelivery: imageVolume}]\n"),
    },
];

const stackOf = (c: PlanMistake, i: number): string => c.stackName ?? `plan-case-${i}`;
const mistakes: Mistake[] = cases.map((c, i) => ({ ...c, args: c.args ?? ["--stack", stackOf(c, i)] }));
cases.forEach((c, i) => {
    if (c.stack !== undefined) {
        fs.writeFileSync(path.join(PROJECT, `Pulumi.${stackOf(c, i)}.yaml`), c.stack);
    }
});

describeMistakes("tfs plan: configuration mistakes", mistakes, (m) => runTfs(["plan", ...m.args], PROJECT),
    () => fs.rmSync(PROJECT, { recursive: true, force: true }));
