import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { parse } from "yaml";
import { fakeDigest } from "../../../ops/planRuntime";
import { startMockRuntime } from "../../support/mockRuntime";
import { planStack } from "../../../ops/plan";
import { deployAws } from "../../../stacks/aws";
import { READ_CHECKPOINT } from "../../../stacks/previousOutputs";
import { readConfig } from "../../../config/config";
import { prepareModels } from "../../../stacks/prepare";
import { ROOT, awsCaller, exampleConfig, runCloudStack } from "../../support/cloudMocks";

/* eslint-disable @typescript-eslint/no-explicit-any */
const NLB = { hostname: "a1b2c3-0123456789.elb.us-west-2.amazonaws.com" };

const HALF_PLUS_TWO = `${ROOT}/models/half_plus_two`;
/** Two models in one stack: one on CPU, one on GPU. */
const MIXED = {
    "tf-serving:modelPath": "",
    "tf-serving:modelName": "",
    "tf-serving:models": JSON.stringify([
        { name: "cpu-model", path: HALF_PLUS_TWO },
        { name: "gpu-model", path: HALF_PLUS_TWO, gpu: true },
    ]),
};

/** A laptop's SSO role (a path, as Identity Center makes them) and CI's role, both cluster admins. */
const LAPTOP_ROLE = "arn:aws:iam::123456789012:role/aws-reserved/sso.amazonaws.com/us-west-2/AWSReservedSSO_Admin_0123456789abcdef";
const CI_ROLE = "arn:aws:iam::123456789012:role/github-deploy";
const LAPTOP = awsCaller(LAPTOP_ROLE, "alice@example.com");
const CI = awsCaller(CI_ROLE, "GitHubActions");
const withAdmins = (admins: string[] | undefined) => exampleConfig("aws-example", (eks: any) => {
    if (admins === undefined) {
        delete eks.adminPrincipalArns;
    } else {
        eks.adminPrincipalArns = admins;
    }
});

describe("EKS stack (deployAws under mocks)", () => {
    it("the example stack: VPC, cluster, CPU node group, one ECR repository, model; no device plugin", async () => {
        const { recorder } = await runCloudStack(exampleConfig("aws-example"), NLB);
        const counts = recorder.countsByType();
        assert.strictEqual(counts["aws:eks/cluster:Cluster"], 1);
        assert.strictEqual(counts["aws:eks/nodeGroup:NodeGroup"], 1);
        assert.strictEqual(counts["aws:ecr/repository:Repository"], 1);
        assert.strictEqual(counts["aws:ecr/lifecyclePolicy:LifecyclePolicy"], 1);
        assert.strictEqual(counts["aws:ec2/subnet:Subnet"], 4);
        assert.strictEqual(counts["kubernetes:apps/v1:DaemonSet"], undefined);
        const provider = recorder.one("pulumi:providers:aws").inputs as any;
        assert.strictEqual(provider.region, "us-west-2");
    });

    it("the example stack is scraped by pod annotations (EKS runs no collector of its own): a rule-file ConfigMap and the Grafana dashboard", async () => {
        const { recorder } = await runCloudStack(exampleConfig("aws-example"), NLB);
        const configMaps = recorder.ofType("kubernetes:core/v1:ConfigMap").map((r) => r.inputs as any);
        assert.ok(configMaps.some((c) => c.metadata.labels["tf-serving.dev/prometheus-rules"] === "true"));
        assert.ok(configMaps.some((c) => c.metadata.labels.grafana_dashboard === "1"));
        assert.ok(!recorder.resources.some((r) => r.type.startsWith("kubernetes:monitoring")));
    });

    it("exports externalAddress from the load balancer's hostname (AWS gives no ip)", async () => {
        const { outputs } = await runCloudStack(exampleConfig("aws-example"), NLB);
        assert.strictEqual(outputs.externalAddress, NLB.hostname);
        assert.strictEqual(outputs.restUrl, `http://${NLB.hostname}:8501`);
        assert.strictEqual(outputs.grpcEndpoint, `${NLB.hostname}:8500`);
        assert.strictEqual(outputs.clusterName, "tf-serving-example");
        const exec = parse(outputs.kubeconfig as string).users[0].user.exec;
        assert.deepStrictEqual(exec.args.slice(0, 6), ["eks", "get-token", "--cluster-name", "tf-serving-example", "--region", "us-west-2"]);
    });

    it("asks for an NLB, keeping the configured source ranges", async () => {
        const { recorder } = await runCloudStack(exampleConfig("aws-example"), NLB);
        const service = recorder.one("kubernetes:core/v1:Service").inputs as any;
        assert.strictEqual(service.metadata.annotations["service.beta.kubernetes.io/aws-load-balancer-type"], "nlb");
        assert.deepStrictEqual(service.spec.loadBalancerSourceRanges, ["203.0.113.0/24"]);
    });

    const ALB = { hostname: "k8s-tfserving-halfplus-0123456789-987654321.us-west-2.elb.amazonaws.com" };
    const CERT = "arn:aws:acm:us-west-2:123456789012:certificate/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b";
    const GATEWAY = { "tf-serving:endpoint": "gateway", "tf-serving:gateway": JSON.stringify({ certificateArn: CERT }) };
    const GATEWAY_KINDS = ["Gateway", "HTTPRoute", "GRPCRoute", "LoadBalancerConfiguration", "TargetGroupConfiguration", "GatewayClass"];

    it("endpoint gateway: the controller's ALB Gateway with the ACM certificate and the example's source ranges, https outputs at the ALB's hostname", async () => {
        const { recorder, outputs } = await runCloudStack(exampleConfig("aws-example", () => undefined, GATEWAY), ALB);
        const gateway = recorder.one("kubernetes:gateway.networking.k8s.io/v1:Gateway").inputs as any;
        assert.deepStrictEqual([gateway.metadata.namespace, gateway.spec.gatewayClassName], ["tf-serving", "tf-serving-alb"]);
        assert.deepStrictEqual(gateway.spec.listeners.map((l: any) => [l.port, l.protocol]), [[8501, "HTTPS"], [8500, "HTTPS"]]);
        assert.deepStrictEqual(gateway.spec.infrastructure.parametersRef, { group: "gateway.k8s.aws", kind: "LoadBalancerConfiguration", name: "half-plus-two" });
        const lbConfig = recorder.one("kubernetes:gateway.k8s.aws/v1:LoadBalancerConfiguration").inputs as any;
        assert.deepStrictEqual([lbConfig.metadata.namespace, lbConfig.spec.scheme, lbConfig.spec.sourceRanges], ["tf-serving", "internet-facing", ["203.0.113.0/24"]]);
        assert.deepStrictEqual(lbConfig.spec.listenerConfigurations.map((l: any) => [l.protocolPort, l.defaultCertificate]), [["HTTPS:8501", CERT], ["HTTPS:8500", CERT]]);
        const tgc = recorder.one("kubernetes:gateway.k8s.aws/v1:TargetGroupConfiguration").inputs as any;
        assert.deepStrictEqual([tgc.metadata.namespace, tgc.spec.targetReference.name, tgc.spec.defaultConfiguration.healthCheckConfig.healthCheckPath],
            ["tf-serving", "half-plus-two", "/v1/models/half-plus-two"]);
        assert.deepStrictEqual((recorder.one("kubernetes:gateway.networking.k8s.io/v1:GatewayClass").inputs as any).spec, { controllerName: "gateway.k8s.aws/alb" });
        const service = recorder.one("kubernetes:core/v1:Service").inputs as any;
        assert.deepStrictEqual([service.spec.type, service.spec.loadBalancerSourceRanges, service.metadata.annotations], ["ClusterIP", undefined, {}],
            "no NLB annotation on a ClusterIP Service");
        assert.strictEqual(outputs.externalAddress, ALB.hostname);
        assert.strictEqual(outputs.externalIp, "");
        assert.strictEqual(outputs.restUrl, `https://${ALB.hostname}:8501`);
        assert.strictEqual(outputs.grpcEndpoint, `${ALB.hostname}:8500`);
        assert.strictEqual(outputs.modelStatusUrl, `https://${ALB.hostname}:8501/v1/models/half-plus-two`);
        assert.strictEqual((outputs.deployedSettings as any).eks.endpoint, "gateway", "recorded, so the next preview can say the address moves");
    });

    it("endpoint gateway: the model's Gateway objects wait for the controller (its webhooks), the Gateway for its LoadBalancerConfiguration, the routes for their target groups", async () => {
        const { recorder } = await runCloudStack(exampleConfig("aws-example", () => undefined, GATEWAY), ALB);
        assert.ok(recorder.one("tf-serving:index:ModelServer").dependsOn.includes("tf-serving:index:AwsLoadBalancerController::eks-lbc"));
        const gateway = recorder.one("kubernetes:gateway.networking.k8s.io/v1:Gateway");
        assert.deepStrictEqual(gateway.dependsOn, ["kubernetes:gateway.k8s.aws/v1:LoadBalancerConfiguration::half-plus-two-lb-config"]);
        for (const kind of ["HTTPRoute", "GRPCRoute"]) {
            assert.deepStrictEqual(recorder.one(`kubernetes:gateway.networking.k8s.io/v1:${kind}`).dependsOn,
                [`kubernetes:gateway.networking.k8s.io/v1:Gateway::${gateway.name}`, "kubernetes:gateway.k8s.aws/v1:TargetGroupConfiguration::half-plus-two-target-groups"]);
        }
    });

    it("endpoint gateway with gateway.auth: the JWT validation's ListenerRuleConfiguration, referenced by every rule of both routes, made before them", async () => {
        const auth = { type: "jwt", issuer: "https://idp.example.com", jwksEndpoint: "https://idp.example.com/.well-known/jwks.json" };
        const config = exampleConfig("aws-example", () => undefined, { ...GATEWAY, "tf-serving:gateway": JSON.stringify({ certificateArn: CERT, auth }) });
        const { recorder } = await runCloudStack(config, ALB);
        const lrc = recorder.one("kubernetes:gateway.k8s.aws/v1:ListenerRuleConfiguration");
        assert.deepStrictEqual([lrc.name, (lrc.inputs as any).metadata.namespace, (lrc.inputs as any).spec.actions[0].jwtValidationConfig],
            ["half-plus-two-jwt-validation", "tf-serving", { issuer: auth.issuer, jwksEndpoint: auth.jwksEndpoint }]);
        for (const kind of ["HTTPRoute", "GRPCRoute"]) {
            const route = recorder.one(`kubernetes:gateway.networking.k8s.io/v1:${kind}`);
            assert.ok(route.dependsOn.includes(`kubernetes:gateway.k8s.aws/v1:ListenerRuleConfiguration::${lrc.name}`), kind);
            assert.deepStrictEqual((route.inputs as any).spec.rules.map((r: any) => r.filters),
                (route.inputs as any).spec.rules.map(() => [{ type: "ExtensionRef", extensionRef: { group: "gateway.k8s.aws", kind: "ListenerRuleConfiguration", name: "half-plus-two" } }]));
        }
    });

    // kubernetes-sigs/aws-load-balancer-controller/docs/deploy/pod_readiness_gate.md: the webhook injects the gate into pods
    // created in a namespace labelled `elbv2.k8s.aws/pod-readiness-gate-inject: enabled` (IP targets only); without it a
    // rollout can leave a target group with only Initial or Draining targets, an outage.
    const READINESS_GATE = "elbv2.k8s.aws/pod-readiness-gate-inject";

    it("endpoint gateway: the models' namespace enables the controller's pod readiness gates", async () => {
        const { recorder } = await runCloudStack(exampleConfig("aws-example", () => undefined, GATEWAY), ALB);
        const namespace = recorder.one("kubernetes:core/v1:Namespace").inputs as any;
        assert.strictEqual(namespace.metadata.labels[READINESS_GATE], "enabled");
        assert.strictEqual(namespace.metadata.labels["pod-security.kubernetes.io/enforce"], "restricted", "beside the labels it had");
    });

    it("endpoint loadBalancer (EKS's own NLB, no controller): no readiness-gate label", async () => {
        const { recorder } = await runCloudStack(exampleConfig("aws-example"), NLB);
        assert.ok(!(READINESS_GATE in (recorder.one("kubernetes:core/v1:Namespace").inputs as any).metadata.labels));
    });

    it("endpoint gateway into a namespace the stack does not own: only the readiness-gate label is applied to it", async () => {
        const { recorder } = await runCloudStack(exampleConfig("aws-example", () => undefined, { ...GATEWAY, "tf-serving:createNamespace": "false" }), ALB);
        assert.deepStrictEqual(recorder.ofType("kubernetes:core/v1:Namespace"), []);
        const patch = recorder.one("kubernetes:core/v1:NamespacePatch").inputs as any;
        assert.deepStrictEqual(patch.metadata, { name: "tf-serving", labels: { [READINESS_GATE]: "enabled" } });
    });

    it("endpoint gateway with a named GatewayClass: the stack creates that class (its cluster has no other); no source ranges needs publicEndpoint", async () => {
        const config = exampleConfig("aws-example", () => undefined, {
            "tf-serving:endpoint": "gateway", "tf-serving:publicEndpoint": "true", "tf-serving:gateway": JSON.stringify({ certificateArn: CERT, className: "shared-alb" }),
        });
        delete config["tf-serving:loadBalancerSourceRanges"];
        const { recorder } = await runCloudStack(config, ALB);
        assert.strictEqual((recorder.one("kubernetes:gateway.networking.k8s.io/v1:Gateway").inputs as any).spec.gatewayClassName, "shared-alb");
        const [gatewayClass, ...others] = recorder.ofType("kubernetes:gateway.networking.k8s.io/v1:GatewayClass");
        assert.deepStrictEqual(others, []);
        assert.deepStrictEqual([(gatewayClass.inputs as any).metadata.name, (gatewayClass.inputs as any).spec.controllerName], ["shared-alb", "gateway.k8s.aws/alb"]);
        assert.strictEqual(recorder.ofType("kubernetes:helm.sh/v3:Release").length, 1, "the controller serves it");
        assert.ok(!("sourceRanges" in (recorder.one("kubernetes:gateway.k8s.aws/v1:LoadBalancerConfiguration").inputs as any).spec));
    });

    it("the default endpoint (loadBalancer) installs no controller and renders no Gateway API object; its record says nothing of endpoints", async () => {
        const { recorder, outputs } = await runCloudStack(exampleConfig("aws-example"), NLB);
        for (const type of ["kubernetes:helm.sh/v3:Release", "aws:eks/podIdentityAssociation:PodIdentityAssociation", "kubernetes:yaml/v2:ConfigFile"]) {
            assert.deepStrictEqual(recorder.ofType(type), [], type);
        }
        assert.ok(!recorder.resources.some((r) => GATEWAY_KINDS.some((k) => r.type.endsWith(`:${k}`))));
        assert.ok(!recorder.ofType("aws:eks/addon:Addon").some((a) => (a.inputs as any).addonName === "eks-pod-identity-agent"));
        assert.ok(!("endpoint" in (outputs.deployedSettings as any).eks));
    });

    it("tfs plan (offline) shows the controller, its IAM and the Gateway objects of an endpoint gateway stack", async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-aws-plan-gw-"));
        fs.copyFileSync(path.join(ROOT, "Pulumi.yaml"), path.join(dir, "Pulumi.yaml"));
        const example = fs.readFileSync(path.join(ROOT, "Pulumi.aws-example.yaml"), "utf8").replace("models/half_plus_two", path.join(ROOT, "models/half_plus_two"))
            .replace("config:\n", `config:\n  tf-serving:endpoint: gateway\n  tf-serving:gateway:\n    certificateArn: ${CERT}\n`);
        fs.writeFileSync(path.join(dir, "Pulumi.t.yaml"), example);
        try {
            const plan = await planStack(dir, "t");
            for (const type of ["kubernetes:helm.sh/v3:Release", "aws:eks/podIdentityAssociation:PodIdentityAssociation", "aws:iam/rolePolicy:RolePolicy",
                ...GATEWAY_KINDS.map((k) => `kubernetes:${["LoadBalancerConfiguration", "TargetGroupConfiguration"].includes(k) ? "gateway.k8s.aws" : "gateway.networking.k8s.io"}/v1:${k}`)]) {
                assert.strictEqual(plan.counts[type], 1, `${type}: ${JSON.stringify(plan.counts)}`);
            }
            assert.strictEqual(plan.counts["kubernetes:yaml/v2:ConfigFile"], 3);
            assert.match(String(plan.outputs.restUrl), /^https:\/\/.+:8501$/);
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });

    it("pushes to ECR with GetAuthorizationToken credentials as secrets; pods run the digest ECR reports for the tag", async () => {
        const { recorder, outputs } = await runCloudStack(exampleConfig("aws-example"), NLB);
        const image = recorder.one("docker:index/image:Image");
        assert.match((image.inputs as any).imageName, /^123456789012\.dkr\.ecr\.us-west-2\.amazonaws\.com\/tf-serving\/half-plus-two:ctx-[0-9a-f]{16}$/);
        const tag = String((image.inputs as any).imageName).split(":").pop();
        const lookup = recorder.calls.filter((c) => c.token === "aws:ecr/getImage:getImage");
        // Before the build (does ECR hold the tag already? not in a new registry), then after the push.
        assert.deepStrictEqual(lookup.map((c) => c.args), [{ repositoryName: "tf-serving/half-plus-two", imageTag: tag }, { repositoryName: "tf-serving/half-plus-two", imageTag: tag }]);
        assert.strictEqual((image.inputs as any).skipPush, undefined, "pushed");
        assert.strictEqual(outputs.imageRef, `123456789012.dkr.ecr.us-west-2.amazonaws.com/tf-serving/half-plus-two@${fakeDigest(`ecr tf-serving/half-plus-two:${tag}`)}`);
        // No Docker registry login for the lookup: ECR's token changes on every run and would show as a change.
        assert.deepStrictEqual(recorder.ofType("pulumi:providers:docker"), []);
        assert.ok(!recorder.calls.some((c) => c.token === "docker:index/getRegistryImage:getRegistryImage"));
        assert.strictEqual((image.inputs as any).registry.server, "123456789012.dkr.ecr.us-west-2.amazonaws.com");
        assert.ok(image.secretPaths.includes("registry.password"), `secret paths: ${image.secretPaths}`);
        assert.doesNotMatch(JSON.stringify(image.inputs), /mock-ecr-password/);
    });

    it("GPU and CPU models together: each on its own nodes, the device plugin on the GPU nodes", async () => {
        const config = exampleConfig("aws-example", (eks: any) => { eks.gpuNodeGroup = { instanceType: "g5.xlarge", desiredNodes: 2 }; }, MIXED);
        const { recorder, dockerfiles } = await runCloudStack(config, NLB);
        const specOf = (name: string) => (recorder.one("kubernetes:apps/v1:Deployment", name).inputs as any).spec;
        const podOf = (name: string) => specOf(name).template.spec;
        assert.deepStrictEqual(specOf("gpu-model").strategy.rollingUpdate, { maxUnavailable: 1, maxSurge: 0 },
            "two g5.xlarge hold the 2 replicas exactly: no GPU for a surge pod");
        assert.deepStrictEqual(specOf("cpu-model").strategy.rollingUpdate, { maxUnavailable: 0, maxSurge: 1 });

        const gpu = podOf("gpu-model");
        assert.strictEqual(gpu.nodeSelector["tf-serving/pool"], "gpu");
        assert.ok(gpu.tolerations.some((t: any) => t.key === "nvidia.com/gpu" && t.operator === "Exists" && t.effect === "NoSchedule"));
        assert.strictEqual(gpu.containers[0].resources.limits["nvidia.com/gpu"], "1");
        assert.match(dockerfiles["gpu-model"], /^FROM tensorflow\/serving:[0-9.]+-gpu/m);

        const cpu = podOf("cpu-model");
        assert.strictEqual(cpu.nodeSelector["tf-serving/pool"], "cpu");
        assert.ok(!(cpu.tolerations ?? []).some((t: any) => t.key === "nvidia.com/gpu"), "a CPU model never tolerates GPU nodes");
        assert.doesNotMatch(dockerfiles["cpu-model"], /-gpu/);

        const group = recorder.one("aws:eks/nodeGroup:NodeGroup", "gpu").inputs as any;
        const plugin = (recorder.one("kubernetes:apps/v1:DaemonSet").inputs as any).spec.template.spec;
        for (const [label, value] of Object.entries(plugin.nodeSelector)) {
            assert.strictEqual(group.labels[label], value, "the device plugin selects labels the GPU nodes have");
        }
        assert.ok(group.taints.every((taint: any) => plugin.tolerations.some((t: any) => t.key === taint.key && t.operator === "Exists")));
        assert.deepStrictEqual(recorder.ofType("aws:ecr/repository:Repository").map((r) => (r.inputs as any).name), ["tf-serving/cpu-model", "tf-serving/gpu-model"]);
    });

    it("installs metrics-server when a model autoscales (an HPA on EKS needs it), and not otherwise", async () => {
        const addons = (recorder: Awaited<ReturnType<typeof runCloudStack>>["recorder"]) =>
            recorder.ofType("aws:eks/addon:Addon").map((a) => (a.inputs as any).addonName).sort();
        const plain = await runCloudStack(exampleConfig("aws-example"), NLB);
        assert.deepStrictEqual(addons(plain.recorder), ["vpc-cni"]);
        const autoscaling = { "tf-serving:autoscaling": JSON.stringify({ minReplicas: 2, maxReplicas: 6, targetCpuUtilization: 70 }) };
        const scaled = await runCloudStack(exampleConfig("aws-example", () => undefined, autoscaling), NLB);
        assert.deepStrictEqual(addons(scaled.recorder), ["metrics-server", "vpc-cni"]);
        assert.strictEqual(scaled.recorder.ofType("kubernetes:autoscaling/v2:HorizontalPodAutoscaler").length, 1);
    });

    it("eks.clusterAutoscaler: the Cluster Autoscaler with its Pod Identity role, the groups tagged for it, the GPU group described at zero", async () => {
        const config = exampleConfig("aws-example", (eks: any) => {
            eks.clusterAutoscaler = true;
            eks.gpuNodeGroup = { instanceType: "g5.12xlarge", desiredNodes: 0, minNodes: 0, maxNodes: 2 };
        }, MIXED);
        const { recorder } = await runCloudStack(config, NLB);
        const release = recorder.one("kubernetes:helm.sh/v3:Release", "cluster-autoscaler").inputs as any;
        assert.strictEqual(release.chart, "cluster-autoscaler");
        assert.strictEqual(release.values.autoDiscovery.clusterName, "tf-serving-example");
        assert.strictEqual(release.values.image.tag, "v1.33.6", "the mock cluster's EKS default version, 1.33");
        const association = recorder.one("aws:eks/podIdentityAssociation:PodIdentityAssociation", "cluster-autoscaler").inputs as any;
        assert.deepStrictEqual([association.namespace, association.serviceAccount], ["kube-system", "cluster-autoscaler"]);
        const policy = JSON.parse((recorder.one("aws:iam/rolePolicy:RolePolicy", "cluster-autoscaler").inputs as any).policy);
        assert.deepStrictEqual(policy.Statement[1].Condition, { StringEquals: { "aws:ResourceTag/k8s.io/cluster-autoscaler/tf-serving-example": "owned" } });
        assert.ok(recorder.ofType("aws:eks/addon:Addon").some((a) => (a.inputs as any).addonName === "eks-pod-identity-agent"));
        for (const group of recorder.ofType("aws:eks/nodeGroup:NodeGroup")) {
            assert.deepStrictEqual((group.inputs as any).tags, { "k8s.io/cluster-autoscaler/enabled": "true", "k8s.io/cluster-autoscaler/tf-serving-example": "owned" }, group.name);
        }
        const tags = recorder.ofType("aws:autoscaling/tag:Tag").map((t) => t.inputs as any);
        assert.ok(tags.every((t) => /^eks-eks-gpu-/.test(t.autoscalingGroupName)), "on the GPU group's ASG");
        assert.deepStrictEqual(Object.fromEntries(tags.map((t) => [t.tag.key, t.tag.value])), {
            "k8s.io/cluster-autoscaler/node-template/label/tf-serving/pool": "gpu",
            "k8s.io/cluster-autoscaler/node-template/taint/nvidia.com/gpu": "true:NoSchedule",
            "k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu": "4",
            "k8s.io/cluster-autoscaler/node-template/resources/ephemeral-storage": "84Gi",
            "k8s.io/cluster-autoscaler/node-template/label/k8s.amazonaws.com/accelerator": "nvidia-a10g",
        });
        assert.deepStrictEqual(recorder.ofType("aws:autoscaling/tag:Tag").slice(0, 3).map((t) => t.name),
            ["eks-cluster-autoscaler-gpu-template-0", "eks-cluster-autoscaler-gpu-template-1", "eks-cluster-autoscaler-gpu-template-2"],
            "the tags earlier versions made keep their names (and URNs)");
    });

    it("eks.clusterAutoscaler: a GPU group at zero offers, in the autoscaler's template, everything the GPU model's pods select and request", async () => {
        // kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws/aws_manager.go, buildNodeFromTemplate: with no node of the group
        // to copy, capacity is pods, cpu, memory and nvidia.com/gpu from the instance catalog plus the ASG's
        // `node-template/resources/<name>` tags; labels are the generic ones (arch, os, instance type, zone) plus
        // `node-template/label/<key>` tags; taints the `node-template/taint/<key>` tags. A pod asking for anything else never
        // fits, so the group stays at zero once the autoscaler has forgotten its last real node (autoscaler#1650, #1869).
        const config = exampleConfig("aws-example", (eks: any) => {
            eks.clusterAutoscaler = true;
            eks.gpuNodeGroup = { instanceType: "g5.xlarge", desiredNodes: 0, minNodes: 0, maxNodes: 2 };
        }, MIXED);
        const { recorder } = await runCloudStack(config, NLB);
        const tags = Object.fromEntries(recorder.ofType("aws:autoscaling/tag:Tag").map((t) => [(t.inputs as any).tag.key, (t.inputs as any).tag.value]));
        const prefix = "k8s.io/cluster-autoscaler/node-template/";
        const template = {
            resources: ["pods", "cpu", "memory", "nvidia.com/gpu", ...Object.keys(tags).filter((k) => k.startsWith(`${prefix}resources/`)).map((k) => k.slice(`${prefix}resources/`.length))],
            labels: { "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux",
                ...Object.fromEntries(Object.entries(tags).filter(([k]) => k.startsWith(`${prefix}label/`)).map(([k, v]) => [k.slice(`${prefix}label/`.length), v])) },
            taints: Object.entries(tags).filter(([k]) => k.startsWith(`${prefix}taint/`)).map(([k, v]) => ({ key: k.slice(`${prefix}taint/`.length), effect: String(v).split(":")[1] })),
        };
        const deployment = recorder.ofType("kubernetes:apps/v1:Deployment").find((d) => (d.inputs as any).metadata.name === "gpu-model");
        assert.ok(deployment, "the GPU model's Deployment");
        const pod = (deployment.inputs as any).spec.template.spec;
        for (const resource of Object.keys(pod.containers[0].resources.requests)) {
            assert.ok(template.resources.includes(resource), `the template offers no ${resource}, which the GPU model's pods request`);
        }
        for (const [key, value] of Object.entries(pod.nodeSelector as Record<string, string>)) {
            assert.strictEqual((template.labels as Record<string, string>)[key], value, `the pods select ${key}=${value}`);
        }
        for (const taint of template.taints) {
            assert.ok(pod.tolerations.some((t: any) => t.key === taint.key && t.effect === taint.effect), `the pods tolerate ${taint.key}`);
        }
        // Its AWS README, "Special note on GPU instances": the label on the real nodes too, so a new node is known to be a GPU node.
        const gpuGroup = recorder.one("aws:eks/nodeGroup:NodeGroup", "gpu").inputs as any;
        assert.strictEqual(gpuGroup.labels["k8s.amazonaws.com/accelerator"], "nvidia-a10g");
        assert.strictEqual(tags[`${prefix}label/k8s.amazonaws.com/accelerator`], gpuGroup.labels["k8s.amazonaws.com/accelerator"]);
        assert.ok(!("k8s.amazonaws.com/accelerator" in (recorder.one("aws:eks/nodeGroup:NodeGroup", "cpu").inputs as any).labels));
    });

    describe("eks.clusterAutoscaler on a live stack (the GPU group created at 1 in 0..2, grown to 2 by the autoscaler since)", () => {
        const checkpoint = {
            "urn:pulumi:test::tf-serving::pulumi:pulumi:Stack::tf-serving-test": { type: "pulumi:pulumi:Stack", outputs: { clusterName: "tf-serving-example" } },
            "urn:pulumi:test::tf-serving::tf-serving:index:EksCluster$aws:eks/nodeGroup:NodeGroup::eks-gpu": {
                type: "aws:eks/nodeGroup:NodeGroup",
                outputs: { clusterName: "tf-serving-example", nodeGroupName: "eks-gpu-0a1b2c3", scalingConfig: { desiredSize: 1, minSize: 0, maxSize: 2 } },
            },
        };
        const run = async (gpu: Record<string, number>) => {
            const all = exampleConfig("aws-example", (eks: any) => {
                eks.clusterAutoscaler = true;
                eks.gpuNodeGroup = { instanceType: "g5.xlarge", ...gpu };
            }, MIXED);
            const recorder = await startMockRuntime({
                config: all, loadBalancer: NLB, call: (token, args) => {
                    if (token === READ_CHECKPOINT) {
                        return { name: args.stackName, outputs: checkpoint };
                    }
                    return token === "aws:eks/getNodeGroup:getNodeGroup" ? { scalingConfigs: [{ desiredSize: 2, minSize: 0, maxSize: 2 }] } : undefined;
                },
            });
            const config = readConfig(all, "tf-serving", ROOT);
            assert.ok(config.cloud === "aws");
            await deployAws(config, prepareModels(config, "tf-serving").models);
            await recorder.settle();
            const group = recorder.one("aws:eks/nodeGroup:NodeGroup", "gpu");
            const reads = recorder.calls.filter((c) => c.token === "aws:eks/getNodeGroup:getNodeGroup").map((c) => c.args);
            return { scaling: (group.inputs as any).scalingConfig, ignoreChanges: group.ignoreChanges, reads };
        };

        it("unchanged bounds: the engine keeps the desired size it last sent (no diff), and EKS is not asked", async () => {
            const unchanged = await run({ desiredNodes: 1, minNodes: 0, maxNodes: 2 });
            assert.deepStrictEqual(unchanged.ignoreChanges, ["scalingConfig.desiredSize"]);
            assert.deepStrictEqual(unchanged.reads, []);
        });

        it("a wider maxNodes: sends the 2 nodes the autoscaler runs, not the 1 of creation", async () => {
            const wider = await run({ desiredNodes: 1, minNodes: 0, maxNodes: 4 });
            assert.deepStrictEqual(wider.scaling, { desiredSize: 2, minSize: 0, maxSize: 4 });
            assert.deepStrictEqual(wider.ignoreChanges, []);
            assert.deepStrictEqual(wider.reads, [{ clusterName: "tf-serving-example", nodeGroupName: "eks-gpu-0a1b2c3" }]);
        });

        it("a minNodes above the live size: raised to it, which EKS accepts", async () => {
            const higherMin = await run({ desiredNodes: 3, minNodes: 3, maxNodes: 4 });
            assert.deepStrictEqual(higherMin.scaling, { desiredSize: 3, minSize: 3, maxSize: 4 });
        });
    });

    it("a request-rate HPA: prometheus-adapter over eks.prometheusUrl, the HPA on its metric for the model; metrics-server beside it", async () => {
        const config = exampleConfig("aws-example", (eks: any) => { eks.prometheusUrl = "http://prometheus-server.monitoring.svc:80"; },
            { "tf-serving:autoscaling": JSON.stringify({ minReplicas: 1, maxReplicas: 4, targetCpuUtilization: 70, targetRequestsPerSecond: 20 }) });
        const { recorder } = await runCloudStack(config, NLB);
        const release = recorder.one("kubernetes:helm.sh/v3:Release", "prometheus-adapter").inputs as any;
        assert.strictEqual(release.chart, "prometheus-adapter");
        assert.deepStrictEqual(release.values.prometheus, { url: "http://prometheus-server.monitoring.svc", port: 80, path: "" });
        assert.deepStrictEqual(release.values.rules.custom.map((r: any) => r.name.as), ["tfserving_inference_requests_per_second"]);
        const hpa = recorder.one("kubernetes:autoscaling/v2:HorizontalPodAutoscaler").inputs as any;
        assert.deepStrictEqual(hpa.spec.metrics.map((m: any) => m.type), ["Resource", "Pods"]);
        assert.deepStrictEqual(hpa.spec.metrics[1].pods.metric, { name: "tfserving_inference_requests_per_second", selector: { matchLabels: { model_name: "half-plus-two" } } });
        assert.ok(recorder.ofType("aws:eks/addon:Addon").some((a) => (a.inputs as any).addonName === "metrics-server"), "the CPU target reads metrics.k8s.io");
    });

    it("without eks.clusterAutoscaler the node groups are as before: no tags, no autoscaler, no Pod Identity agent", async () => {
        const { recorder } = await runCloudStack(exampleConfig("aws-example", () => undefined, { "tf-serving:autoscaling": JSON.stringify({ minReplicas: 2, maxReplicas: 4 }) }), NLB);
        for (const group of recorder.ofType("aws:eks/nodeGroup:NodeGroup")) {
            assert.ok(!("tags" in (group.inputs as any)), group.name);
        }
        assert.deepStrictEqual(recorder.ofType("kubernetes:helm.sh/v3:Release"), []);
        assert.deepStrictEqual(recorder.ofType("aws:autoscaling/tag:Tag"), []);
        assert.deepStrictEqual(recorder.ofType("aws:eks/addon:Addon").map((a) => (a.inputs as any).addonName).sort(), ["metrics-server", "vpc-cni"]);
    });

    it("access: laptop, then CI, then laptop again: every run registers the same entries, so nobody loses access", async () => {
        const config = withAdmins([LAPTOP_ROLE, CI_ROLE]);
        const runs = [];
        for (const caller of [LAPTOP, CI, LAPTOP]) {
            const { recorder } = await runCloudStack(config, NLB, caller);
            // Registration order is not the program's order (the caller's entry carries an alias): compare by name.
            const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
            const entries = recorder.ofType("aws:eks/accessEntry:AccessEntry").map((e) => ({ name: e.name, principalArn: (e.inputs as any).principalArn })).sort(byName);
            const associations = recorder.ofType("aws:eks/accessPolicyAssociation:AccessPolicyAssociation")
                .map((a) => ({ name: a.name, principalArn: (a.inputs as any).principalArn, policyArn: (a.inputs as any).policyArn })).sort(byName);
            runs.push({ entries, associations });
        }
        assert.deepStrictEqual(runs[0].entries, [
            { name: "eks-admin-123456789012-role-aws-reserved-sso-amazonaws-com-us-west-2-AWSReservedSSO-Admin-0123456789abcdef", principalArn: LAPTOP_ROLE },
            { name: "eks-admin-123456789012-role-github-deploy", principalArn: CI_ROLE },
        ]);
        assert.ok(runs[0].associations.every((a) => a.policyArn.endsWith(":cluster-access-policy/AmazonEKSClusterAdminPolicy")));
        assert.deepStrictEqual(runs[0].associations.map((a) => a.principalArn), [LAPTOP_ROLE, CI_ROLE]);
        assert.deepStrictEqual(runs[1], runs[0], "CI's run keeps the laptop's entry");
        assert.deepStrictEqual(runs[2], runs[0], "the laptop's next run keeps CI's entry");
    });

    it("access: a list without the caller is refused before anything is registered, naming the key, the caller and the fix", async () => {
        const all = withAdmins([CI_ROLE]);
        const recorder = await startMockRuntime({ config: all, call: LAPTOP });
        const config = readConfig(all, "tf-serving", ROOT);
        assert.ok(config.cloud === "aws");
        await assert.rejects(deployAws(config, prepareModels(config, "tf-serving").models), (err: Error) => {
            assert.match(err.message, /tf-serving:eks\.adminPrincipalArns = \["arn:aws:iam::123456789012:role\/github-deploy"\]: does not include /);
            assert.ok(err.message.includes(`does not include ${LAPTOP_ROLE}, the identity running Pulumi`), err.message);
            assert.match(err.message, /locked out .* Unauthorized/);
            assert.ok(err.message.includes(`pulumi config set --path 'eks.adminPrincipalArns[1]' ${LAPTOP_ROLE}`), err.message);
            return true;
        });
        await recorder.settle();
        assert.deepStrictEqual(recorder.resources.map((r) => r.type), ["pulumi:providers:aws"], "only the provider the identity was asked through");
        assert.deepStrictEqual(recorder.calls.filter((c) => c.token === READ_CHECKPOINT).length, 1, "the stack's checkpoint read once (its deployed settings)");
        const listed = await runCloudStack(withAdmins([LAPTOP_ROLE]), NLB, LAPTOP);
        const recorded = listed.recorder.ofType("aws:eks/accessEntry:AccessEntry").map((e) => (e.inputs as any).principalArn);
        assert.deepStrictEqual(recorded, [LAPTOP_ROLE], "the same stack with the caller listed goes ahead");
    });

    it("access: without eks.adminPrincipalArns the preview stops and names the caller's role ARN to list", async () => {
        await assert.rejects(runCloudStack(withAdmins(undefined), NLB, CI), (err: Error) => {
            assert.match(err.message, /tf-serving:eks\.adminPrincipalArns is not set: list the IAM roles or users/);
            assert.ok(err.message.includes(`pulumi config set --path 'eks.adminPrincipalArns[0]' ${CI_ROLE}`), err.message);
            return true;
        });
    });

    it("tfs plan (offline) takes the listed admins as they are: no identity to ask", async () => {
        // A list without the mock runtime's default caller (role/deployer): only an offline run accepts it.
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-aws-plan-"));
        fs.copyFileSync(path.join(ROOT, "Pulumi.yaml"), path.join(dir, "Pulumi.yaml"));
        const example = fs.readFileSync(path.join(ROOT, "Pulumi.aws-example.yaml"), "utf8")
            .replace("role/deployer", "role/ci").replace("models/half_plus_two", path.join(ROOT, "models/half_plus_two"));
        fs.writeFileSync(path.join(dir, "Pulumi.t.yaml"), example);
        try {
            const plan = await planStack(dir, "t");
            assert.deepStrictEqual(plan.resources.filter((r) => r.type === "aws:eks/accessEntry:AccessEntry").map((r) => (r.inputs as any).principalArn),
                ["arn:aws:iam::123456789012:role/ci"]);
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });

    it("GPU serving without a GPU node group stops at config, naming the key", async () => {
        await assert.rejects(runCloudStack(exampleConfig("aws-example", () => undefined, { "tf-serving:gpu": "true" }), NLB),
            /tf-serving:eks\.gpuNodeGroup is not set: model "half-plus-two" sets gpu: true, so the cluster needs a GPU node group/);
    });

    it("the example's GPU variant (2 replicas, one g5.xlarge) stops at config: the second pod would stay Pending", async () => {
        const config = exampleConfig("aws-example", (eks: any) => { eks.gpuNodeGroup = { instanceType: "g5.xlarge", desiredNodes: 1 }; }, { "tf-serving:gpu": "true" });
        await assert.rejects(runCloudStack(config, NLB),
            /tf-serving:eks\.gpuNodeGroup\.desiredNodes = 1: the GPU pool holds 1 node x 1 GPU \(g5\.xlarge, eks\.gpuNodeGroup\.instanceType\) = 1 GPU, but the GPU models need 2/);
    });

    it("an arm64 node group stops at config with the reason", async () => {
        const config = exampleConfig("aws-example", (eks: any) => { eks.cpuNodeGroup.instanceType = "c7g.xlarge"; });
        await assert.rejects(runCloudStack(config, NLB), /tf-serving:eks\.cpuNodeGroup\.instanceType = "c7g\.xlarge": is an Arm \(arm64\) type/);
    });
});
