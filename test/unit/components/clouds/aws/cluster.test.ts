import * as assert from "assert";
import { parse } from "yaml";
import { EKS_CLUSTER_DEFAULTS, EksCluster, EksClusterArgs, principalSuffix } from "../../../../../components/clouds/aws/cluster";
import { NVIDIA_DEVICE_PLUGIN_IMAGE, NvidiaDevicePlugin } from "../../../../../components/clouds/aws/devicePlugin";
import { controllerCrdManifests, loadBalancerControllerPolicy, podIdentityTrustPolicy } from "../../../../../components/clouds/aws/loadBalancerController";
import { eksClusterIssues } from "../../../../../components/clouds/aws/clusterChecks";
import { readAwsConfig } from "../../../../../components/clouds/aws/config";
import { ConfigReader } from "../../../../../config/configReader";
import { settleOutput, startMockRuntime } from "../../../../support/mockRuntime";

/* eslint-disable @typescript-eslint/no-explicit-any */
const DEPLOYER = "arn:aws:iam::123456789012:role/deployer";

function args(overrides: Partial<EksClusterArgs> = {}): EksClusterArgs {
    return {
        region: "us-west-2",
        clusterName: "tf-serving",
        deletionProtection: false,
        network: { kind: "create", cidr: "10.0.0.0/16", zones: ["us-west-2a", "us-west-2b"], natGateways: "single" },
        apiAccessCidrs: ["203.0.113.0/24"],
        adminPrincipalArns: [DEPLOYER],
        cpuNodeGroup: { instanceType: "m6i.xlarge", desiredNodes: 2, minNodes: 1, maxNodes: 4, diskSizeGb: 50, capacityType: "ON_DEMAND" },
        ...overrides,
    };
}

const GPU_GROUP = { instanceType: "g5.xlarge", desiredNodes: 1, minNodes: 0, maxNodes: 2, diskSizeGb: 100, capacityType: "ON_DEMAND" as const };

async function build(a: EksClusterArgs) {
    const recorder = await startMockRuntime();
    const cluster = new EksCluster("eks", a);
    const kubeconfig = await settleOutput(cluster.kubeconfig);
    await recorder.settle();
    return { recorder, cluster, kubeconfig };
}

const policiesOf = (recorder: Awaited<ReturnType<typeof build>>["recorder"], roleName: string) =>
    recorder.ofType("aws:iam/rolePolicyAttachment:RolePolicyAttachment")
        .filter((a) => (a.inputs as any).role === roleName)
        .map((a) => (a.inputs as any).policyArn)
        .sort();

describe("EksCluster", () => {
    it("builds from its required fields alone: deletion protection on, the API open to any address (still authenticated)", async () => {
        const { region, clusterName, network, adminPrincipalArns, cpuNodeGroup } = args();
        const { recorder } = await build({ region, clusterName, network, adminPrincipalArns, cpuNodeGroup });
        const c = recorder.one("aws:eks/cluster:Cluster").inputs as any;
        assert.strictEqual(c.deletionProtection, true);
        assert.deepStrictEqual(c.vpcConfig.publicAccessCidrs, ["0.0.0.0/0"]);
        assert.deepStrictEqual([c.deletionProtection, c.vpcConfig.publicAccessCidrs], [EKS_CLUSTER_DEFAULTS.deletionProtection, EKS_CLUSTER_DEFAULTS.apiAccessCidrs]);
    });

    it("VPC: a public and a private subnet per zone, tagged for load balancers, one NAT", async () => {
        const { recorder } = await build(args());
        assert.strictEqual(recorder.ofType("aws:ec2/vpc:Vpc").length, 1);
        const subnets = recorder.ofType("aws:ec2/subnet:Subnet").map((s) => s.inputs as any);
        const publics = subnets.filter((s) => s.tags["kubernetes.io/role/elb"] === "1");
        const privates = subnets.filter((s) => s.tags["kubernetes.io/role/internal-elb"] === "1");
        assert.deepStrictEqual(publics.map((s) => s.availabilityZone), ["us-west-2a", "us-west-2b"]);
        assert.deepStrictEqual(privates.map((s) => s.availabilityZone), ["us-west-2a", "us-west-2b"]);
        assert.ok(subnets.every((s) => s.tags["kubernetes.io/cluster/tf-serving"] === "shared"));
        assert.ok(publics.every((s) => s.mapPublicIpOnLaunch === true));
        assert.strictEqual(recorder.ofType("aws:ec2/natGateway:NatGateway").length, 1);
        assert.strictEqual(recorder.ofType("aws:ec2/internetGateway:InternetGateway").length, 1);
        assert.strictEqual(recorder.ofType("aws:ec2/routeTableAssociation:RouteTableAssociation").length, 4);
    });

    it("VPC: one NAT gateway per zone when asked", async () => {
        const { recorder } = await build(args({ network: { kind: "create", cidr: "10.0.0.0/16", zones: ["us-west-2a", "us-west-2b", "us-west-2c"], natGateways: "perZone" } }));
        assert.strictEqual(recorder.ofType("aws:ec2/natGateway:NatGateway").length, 3);
        assert.strictEqual(recorder.ofType("aws:ec2/eip:Eip").length, 3);
    });

    it("existing subnets: no VPC, the given subnets for cluster and nodes", async () => {
        const network = { kind: "existing" as const, privateSubnetIds: ["subnet-0aaaaaaaaaaaaaaa1", "subnet-0aaaaaaaaaaaaaaa2"], publicSubnetIds: ["subnet-0bbbbbbbbbbbbbbb1"] };
        const { recorder } = await build(args({ network }));
        assert.strictEqual(recorder.ofType("aws:ec2/vpc:Vpc").length, 0);
        const cluster = recorder.one("aws:eks/cluster:Cluster").inputs as any;
        assert.deepStrictEqual(cluster.vpcConfig.subnetIds, [...network.privateSubnetIds, ...network.publicSubnetIds]);
        assert.deepStrictEqual((recorder.one("aws:eks/nodeGroup:NodeGroup").inputs as any).subnetIds, network.privateSubnetIds);
    });

    it("cluster: API authentication mode, no implicit creator admin, its role with the cluster policy only", async () => {
        const { recorder } = await build(args());
        const c = recorder.one("aws:eks/cluster:Cluster").inputs as any;
        assert.strictEqual(c.name, "tf-serving");
        assert.deepStrictEqual(c.accessConfig, { authenticationMode: "API", bootstrapClusterCreatorAdminPermissions: false });
        assert.deepStrictEqual(c.vpcConfig.publicAccessCidrs, ["203.0.113.0/24"]);
        assert.strictEqual(c.roleArn, "arn:aws:iam::123456789012:role/eks-cluster");
        assert.deepStrictEqual(policiesOf(recorder, "eks-cluster"), ["arn:aws:iam::aws:policy/AmazonEKSClusterPolicy"]);
        const trust = JSON.parse((recorder.one("aws:iam/role:Role", "cluster").inputs as any).assumeRolePolicy);
        assert.deepStrictEqual(trust.Statement[0].Principal, { Service: "eks.amazonaws.com" });
    });

    it("access: each configured principal is cluster admin through its own entry, named after it", async () => {
        const admins = ["arn:aws:iam::123456789012:role/ci", "arn:aws:iam::123456789012:user/alice"];
        const { recorder } = await build(args({ adminPrincipalArns: admins }));
        const entries = recorder.ofType("aws:eks/accessEntry:AccessEntry");
        assert.deepStrictEqual(entries.map((e) => (e.inputs as any).principalArn), admins);
        assert.deepStrictEqual(entries.map((e) => e.name), ["eks-admin-123456789012-role-ci", "eks-admin-123456789012-user-alice"]);
        assert.ok(entries.every((e) => (e.inputs as any).type === "STANDARD"));
        const associations = recorder.ofType("aws:eks/accessPolicyAssociation:AccessPolicyAssociation");
        assert.deepStrictEqual(associations.map((a) => (a.inputs as any).principalArn), admins);
        assert.ok(associations.every((a) => (a.inputs as any).policyArn === "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"));
        assert.ok(associations.every((a) => JSON.stringify((a.inputs as any).accessScope) === JSON.stringify({ type: "cluster" })));
        assert.strictEqual(principalSuffix("arn:aws:iam::123456789012:role/team/ci"), "123456789012-role-team-ci");
        assert.strictEqual(recorder.ofType("aws:eks/cluster:Cluster").length, 1);
        assert.strictEqual((recorder.one("aws:eks/cluster:Cluster").inputs as any).accessConfig.bootstrapClusterCreatorAdminPermissions, false);
    });

    it("access: adding a principal adds entries and leaves the others' unchanged", async () => {
        const one = await build(args({ adminPrincipalArns: [DEPLOYER] }));
        const two = await build(args({ adminPrincipalArns: [DEPLOYER, "arn:aws:iam::123456789012:role/ci"] }));
        const byName = (r: typeof one.recorder) => Object.fromEntries(r.ofType("aws:eks/accessEntry:AccessEntry").map((e) => [e.name, e.inputs]));
        const before = byName(one.recorder);
        const after = byName(two.recorder);
        for (const [name, inputs] of Object.entries(before)) {
            assert.deepStrictEqual(after[name], inputs, `${name} is unchanged`);
        }
        assert.deepStrictEqual(Object.keys(after).sort(), ["eks-admin-123456789012-role-ci", "eks-admin-123456789012-role-deployer"]);
    });

    it("access: the caller's entry adopts the single `deployer` entry earlier versions made (no second entry for one principal)", async () => {
        const { recorder } = await build(args({ adminPrincipalArns: ["arn:aws:iam::123456789012:role/ci", DEPLOYER], callerArn: DEPLOYER }));
        const aliasesOf = (type: string) => Object.fromEntries(recorder.ofType(type).map((r) => [r.name, r.aliasNames]));
        const expected = { "eks-admin-123456789012-role-ci": [], "eks-admin-123456789012-role-deployer": ["eks-admin-deployer"] };
        assert.deepStrictEqual(aliasesOf("aws:eks/accessEntry:AccessEntry"), expected);
        assert.deepStrictEqual(aliasesOf("aws:eks/accessPolicyAssociation:AccessPolicyAssociation"), expected);
    });

    it("versions: node groups run the control plane's version, and each add-on EKS's default version for it", async () => {
        const { recorder } = await build(args({ kubernetesVersion: "1.33", gpuNodeGroup: GPU_GROUP, metricsServer: true }));
        for (const group of recorder.ofType("aws:eks/nodeGroup:NodeGroup")) {
            assert.strictEqual((group.inputs as any).version, "1.33", `${group.name} follows the cluster (the mock reports its version)`);
        }
        const asked = recorder.calls.filter((c) => c.token === "aws:eks/getAddonVersion:getAddonVersion").map((c) => c.args);
        assert.deepStrictEqual(asked.map((a) => [a.addonName, a.kubernetesVersion, a.mostRecent]).sort(), [["metrics-server", "1.33", false], ["vpc-cni", "1.33", false]]);
        assert.deepStrictEqual((recorder.one("aws:eks/addon:Addon", "vpc-cni").inputs as any).addonVersion, "v0.0.0-vpc-cni-for-1.33-eksbuild.1");
    });

    it("node role: exactly the three worker policies, ECR pull only, nothing broader", async () => {
        const { recorder } = await build(args({ gpuNodeGroup: GPU_GROUP }));
        assert.deepStrictEqual(policiesOf(recorder, "eks-nodes"), [
            "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly",
            "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
            "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy",
        ]);
        assert.strictEqual(recorder.ofType("aws:iam/rolePolicyAttachment:RolePolicyAttachment").length, 4, "3 node + 1 cluster");
        assert.strictEqual(recorder.ofType("aws:iam/rolePolicy:RolePolicy").length, 0, "no inline policies");
        assert.strictEqual(recorder.ofType("aws:iam/policy:Policy").length, 0, "no custom policies");
        const trust = JSON.parse((recorder.one("aws:iam/role:Role", "nodes").inputs as any).assumeRolePolicy);
        assert.deepStrictEqual(trust.Statement[0].Principal, { Service: "ec2.amazonaws.com" });
    });

    it("GovCloud regions use their partition in policy ARNs", async () => {
        const { recorder } = await build(args({ region: "us-gov-west-1", network: { kind: "create", cidr: "10.0.0.0/16", zones: ["us-gov-west-1a", "us-gov-west-1b"], natGateways: "single" } }));
        assert.ok(policiesOf(recorder, "eks-nodes").every((arn: string) => arn.startsWith("arn:aws-us-gov:iam::aws:policy/")));
    });

    it("CPU node group: AL2023 x86, labelled cpu, untainted, in the private subnets", async () => {
        const { recorder } = await build(args());
        const groups = recorder.ofType("aws:eks/nodeGroup:NodeGroup");
        assert.strictEqual(groups.length, 1);
        const cpu = groups[0].inputs as any;
        assert.strictEqual(cpu.amiType, "AL2023_x86_64_STANDARD");
        assert.deepStrictEqual(cpu.instanceTypes, ["m6i.xlarge"]);
        assert.deepStrictEqual(cpu.scalingConfig, { desiredSize: 2, minSize: 1, maxSize: 4 });
        assert.deepStrictEqual(cpu.labels, { "tf-serving/pool": "cpu" });
        assert.strictEqual(cpu.taints, undefined);
        assert.strictEqual(cpu.nodeRoleArn, "arn:aws:iam::123456789012:role/eks-nodes");
        assert.deepStrictEqual(cpu.subnetIds, ["eks-vpc-private-us-west-2a-id", "eks-vpc-private-us-west-2b-id"]);
        assert.strictEqual(recorder.ofType("kubernetes:apps/v1:DaemonSet").length, 0, "no device plugin without GPU nodes");
    });

    it("GPU node group: the NVIDIA AMI, tainted nvidia.com/gpu NoSchedule, labelled gpu", async () => {
        const { recorder, cluster } = await build(args({ gpuNodeGroup: GPU_GROUP }));
        const gpu = recorder.one("aws:eks/nodeGroup:NodeGroup", "gpu").inputs as any;
        assert.strictEqual(gpu.amiType, "AL2023_x86_64_NVIDIA");
        assert.deepStrictEqual(gpu.instanceTypes, ["g5.xlarge"]);
        assert.deepStrictEqual(gpu.taints, [{ key: "nvidia.com/gpu", value: "true", effect: "NO_SCHEDULE" }]);
        assert.deepStrictEqual(gpu.labels, { "tf-serving/pool": "gpu" });
        assert.deepStrictEqual(gpu.scalingConfig, { desiredSize: 1, minSize: 0, maxSize: 2 });
        assert.deepStrictEqual(cluster.placement, {
            cpu: { nodeSelector: { "tf-serving/pool": "cpu" } },
            gpu: { nodeSelector: { "tf-serving/pool": "gpu" }, tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }] },
        });
    });

    it("GPU: NVIDIA's device plugin on the GPU nodes only, tolerating their taint, node-critical", async () => {
        const { recorder, cluster } = await build(args({ gpuNodeGroup: GPU_GROUP }));
        assert.strictEqual(cluster.devicePlugin?.daemonSet.getProvider("kubernetes:apps/v1:DaemonSet"), cluster.provider, "installed through the cluster's own provider");
        const ds = recorder.one("kubernetes:apps/v1:DaemonSet").inputs as any;
        assert.strictEqual(ds.metadata.namespace, "kube-system");
        const pod = ds.spec.template.spec;
        assert.deepStrictEqual(pod.nodeSelector, { "tf-serving/pool": "gpu" });
        assert.deepStrictEqual(pod.tolerations, [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }]);
        assert.strictEqual(pod.priorityClassName, "system-node-critical");
        assert.match(pod.containers[0].image, /^nvcr\.io\/nvidia\/k8s-device-plugin:v0\.17\.[0-9]+@sha256:[0-9a-f]{64}$/);
        assert.strictEqual(pod.containers[0].image, NVIDIA_DEVICE_PLUGIN_IMAGE);
        assert.strictEqual(pod.automountServiceAccountToken, false, "the plugin only talks to the kubelet's socket");
        assert.deepStrictEqual(pod.securityContext, { seccompProfile: { type: "RuntimeDefault" } });
        assert.deepStrictEqual(pod.volumes, [{ name: "device-plugin", hostPath: { path: "/var/lib/kubelet/device-plugins" } }]);
        assert.deepStrictEqual(pod.containers[0].volumeMounts, [{ name: "device-plugin", mountPath: "/var/lib/kubelet/device-plugins" }]);
        assert.deepStrictEqual(pod.containers[0].securityContext, { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } });
        assert.deepStrictEqual(ds.spec.selector.matchLabels, ds.spec.template.metadata.labels);
    });

    it("GPU: a NetworkPolicy denies the device plugin all ingress and egress (it needs Unix sockets only)", async () => {
        const { recorder } = await build(args({ gpuNodeGroup: GPU_GROUP }));
        const ds = recorder.one("kubernetes:apps/v1:DaemonSet").inputs as any;
        const np = recorder.one("kubernetes:networking.k8s.io/v1:NetworkPolicy");
        assert.strictEqual(np.parent, `tf-serving:index:NvidiaDevicePlugin::${recorder.one("tf-serving:index:NvidiaDevicePlugin").name}`);
        const inputs = np.inputs as any;
        assert.strictEqual(inputs.metadata.namespace, ds.metadata.namespace);
        assert.deepStrictEqual(inputs.spec.podSelector.matchLabels, ds.spec.template.metadata.labels, "it selects the plugin's pods");
        assert.deepStrictEqual(inputs.spec.policyTypes, ["Ingress", "Egress"]);
        assert.strictEqual(inputs.spec.ingress, undefined, "no ingress rule: nothing reaches the pods");
        assert.strictEqual(inputs.spec.egress, undefined, "no egress rule: nothing leaves them");
    });

    it("GPU: the device plugin image can be overridden (a mirror), pinned by digest", async () => {
        const mirror = `mirror.example/k8s-device-plugin:v0.17.1@sha256:${"ab".repeat(32)}`;
        const { recorder } = await build(args({ gpuNodeGroup: GPU_GROUP, devicePluginImage: mirror }));
        assert.strictEqual((recorder.one("kubernetes:apps/v1:DaemonSet").inputs as any).spec.template.spec.containers[0].image, mirror);
        assert.throws(() => new NvidiaDevicePlugin("plugin", { nodeSelector: {}, image: "mirror.example/k8s-device-plugin:v0.17.1" }),
            /not pinned by digest/);
    });

    it("VPC CNI add-on: network policy enforcement on, adopting the bootstrapped CNI, in before the nodes", async () => {
        const { recorder } = await build(args({ gpuNodeGroup: GPU_GROUP }));
        const cni = recorder.one("aws:eks/addon:Addon", "vpc-cni");
        const inputs = cni.inputs as any;
        assert.strictEqual(inputs.addonName, "vpc-cni");
        assert.strictEqual(inputs.clusterName, "tf-serving");
        assert.deepStrictEqual(JSON.parse(inputs.configurationValues), { enableNetworkPolicy: "true" });
        assert.strictEqual(inputs.resolveConflictsOnCreate, "OVERWRITE");
        for (const group of recorder.ofType("aws:eks/nodeGroup:NodeGroup")) {
            assert.ok(group.dependsOn.includes(`aws:eks/addon:Addon::${cni.name}`), `${group.name} waits for the CNI: ${group.dependsOn}`);
        }
    });

    it("metrics-server add-on only when asked (a model autoscales), after the nodes", async () => {
        const without = await build(args());
        assert.deepStrictEqual(without.recorder.ofType("aws:eks/addon:Addon").map((a) => (a.inputs as any).addonName), ["vpc-cni"]);
        const { recorder } = await build(args({ metricsServer: true }));
        const metrics = recorder.one("aws:eks/addon:Addon", "metrics-server");
        assert.strictEqual((metrics.inputs as any).addonName, "metrics-server");
        assert.ok(metrics.dependsOn.includes("aws:eks/nodeGroup:NodeGroup::eks-cpu"), `depends on: ${metrics.dependsOn}`);
    });

    it("no load balancer controller unless asked: no Pod Identity agent, no chart, no IAM role for it", async () => {
        const { recorder } = await build(args());
        assert.ok(!recorder.ofType("aws:eks/addon:Addon").some((a) => (a.inputs as any).addonName === "eks-pod-identity-agent"));
        for (const type of ["kubernetes:helm.sh/v3:Release", "aws:eks/podIdentityAssociation:PodIdentityAssociation", "kubernetes:yaml/v2:ConfigFile", "aws:iam/rolePolicy:RolePolicy"]) {
            assert.deepStrictEqual(recorder.ofType(type), [], type);
        }
    });

    it("load balancer controller: a role EKS Pod Identity assumes, with the controller's policy, associated with the chart's service account", async () => {
        const { recorder } = await build(args({ loadBalancerController: {} }));
        const agent = recorder.one("aws:eks/addon:Addon", "pod-identity-agent");
        assert.strictEqual((agent.inputs as any).addonName, "eks-pod-identity-agent");
        assert.strictEqual((agent.inputs as any).addonVersion, "v0.0.0-eks-pod-identity-agent-for-1.33-eksbuild.1", "EKS's default version for the cluster's");
        assert.ok(agent.dependsOn.includes("aws:eks/nodeGroup:NodeGroup::eks-cpu"), "a DaemonSet: after the nodes");
        const role = recorder.one("aws:iam/role:Role", "eks-lbc");
        assert.deepStrictEqual(JSON.parse((role.inputs as any).assumeRolePolicy), podIdentityTrustPolicy());
        const policy = recorder.one("aws:iam/rolePolicy:RolePolicy", "eks-lbc").inputs as any;
        assert.strictEqual(policy.role, role.name);
        assert.deepStrictEqual(JSON.parse(policy.policy), loadBalancerControllerPolicy("aws"));
        assert.deepStrictEqual(recorder.one("aws:eks/podIdentityAssociation:PodIdentityAssociation").inputs, {
            clusterName: "tf-serving", namespace: "kube-system", serviceAccount: "aws-load-balancer-controller", roleArn: `arn:aws:iam::123456789012:role/${role.name}`,
        });
    });

    it("load balancer controller: the pinned chart in kube-system with the cluster's name, region and VPC, after its CRDs, credentials and nodes", async () => {
        const { recorder } = await build(args({ region: "us-east-2", network: { ...args().network, zones: ["us-east-2a", "us-east-2b"] } as EksClusterArgs["network"], loadBalancerController: {} }));
        const release = recorder.one("kubernetes:helm.sh/v3:Release");
        const inputs = release.inputs as any;
        assert.deepStrictEqual([inputs.name, inputs.chart, inputs.version, inputs.repositoryOpts.repo, inputs.namespace, inputs.skipCrds],
            ["aws-load-balancer-controller", "aws-load-balancer-controller", "3.5.0", "https://aws.github.io/eks-charts", "kube-system", true]);
        assert.deepStrictEqual([inputs.values.clusterName, inputs.values.region, inputs.values.vpcId], ["tf-serving", "us-east-2", "vpc-0a1b2c3d4e5f60789"]);
        const files = recorder.ofType("kubernetes:yaml/v2:ConfigFile");
        assert.deepStrictEqual(files.map((f) => (f.inputs as any).file), controllerCrdManifests().map((m) => m.url));
        for (const needed of [...files.map((f) => `kubernetes:yaml/v2:ConfigFile::${f.name}`), "aws:eks/podIdentityAssociation:PodIdentityAssociation::eks-lbc-pod-identity",
            "aws:iam/rolePolicy:RolePolicy::eks-lbc-policy", "aws:eks/addon:Addon::eks-pod-identity-agent", "aws:eks/nodeGroup:NodeGroup::eks-cpu"]) {
            assert.ok(release.dependsOn.includes(needed), `the chart waits for ${needed}: ${release.dependsOn}`);
        }
        assert.deepStrictEqual(recorder.ofType("kubernetes:gateway.networking.k8s.io/v1:GatewayClass"), [], "no class unless named");
    });

    it("load balancer controller: with a class name, a GatewayClass of its ALBs once the chart is ready", async () => {
        const { recorder } = await build(args({ loadBalancerController: { gatewayClassName: "tf-serving-alb" } }));
        const gatewayClass = recorder.one("kubernetes:gateway.networking.k8s.io/v1:GatewayClass");
        assert.deepStrictEqual([(gatewayClass.inputs as any).metadata.name, (gatewayClass.inputs as any).spec], ["tf-serving-alb", { controllerName: "gateway.k8s.aws/alb" }]);
        assert.deepStrictEqual(gatewayClass.dependsOn, ["kubernetes:helm.sh/v3:Release::eks-lbc"]);
    });

    it("kubeconfig: a secret with `aws eks get-token`, identical when node groups change", async () => {
        const first = await build(args());
        assert.deepStrictEqual(first.recorder.one("pulumi:providers:kubernetes").secretPaths, ["kubeconfig"]);
        const kc = parse(first.kubeconfig!);
        assert.strictEqual(kc["current-context"], "arn:aws:eks:us-west-2:123456789012:cluster/eks-cluster");
        assert.deepStrictEqual(kc.users[0].user.exec.args, ["eks", "get-token", "--cluster-name", "tf-serving", "--region", "us-west-2", "--output", "json"]);

        const resized = await build(args({
            cpuNodeGroup: { instanceType: "c6i.2xlarge", desiredNodes: 5, minNodes: 3, maxNodes: 10, diskSizeGb: 80, capacityType: "SPOT" },
            gpuNodeGroup: GPU_GROUP,
            adminPrincipalArns: ["arn:aws:iam::123456789012:role/ci"],
        }));
        assert.strictEqual(resized.kubeconfig, first.kubeconfig);
        assert.deepStrictEqual(resized.recorder.one("pulumi:providers:kubernetes").rawInputs, first.recorder.one("pulumi:providers:kubernetes").rawInputs);

        const profiled = await build(args({ profile: "prod" }));
        assert.notStrictEqual(profiled.kubeconfig, first.kubeconfig);
    });

    it("parents every child to the component", async () => {
        const { recorder } = await build(args({ gpuNodeGroup: GPU_GROUP }));
        const direct = recorder.resources.filter((r) => r.parent === undefined).map((r) => r.type);
        assert.deepStrictEqual(direct.filter((t) => !t.startsWith("pulumi:providers:")), ["tf-serving:index:EksCluster"]);
    });
});

describe("eksClusterIssues: one check for EksCluster and the eks config section", () => {
    const CI = "arn:aws:iam::123456789012:role/ci";

    it("EksCluster throws every issue before it registers anything: no administrator, the caller left out, an empty API list", async () => {
        const recorder = await startMockRuntime();
        assert.throws(() => new EksCluster("eks", args({ adminPrincipalArns: [], apiAccessCidrs: [] })),
            /^Error: EksCluster eks: adminPrincipalArns is empty, which would leave the cluster without an administrator.*; apiAccessCidrs is empty/);
        assert.throws(() => new EksCluster("eks", args({ adminPrincipalArns: [CI], callerArn: DEPLOYER })),
            /adminPrincipalArns does not include callerArn \(arn:aws:iam::123456789012:role\/deployer\), the identity running Pulumi/);
        await recorder.settle();
        assert.deepStrictEqual(recorder.resources, []);
    });

    it("a principal listed twice (one access entry name) is refused at its second place", () => {
        const issues = eksClusterIssues({ adminPrincipalArns: [DEPLOYER, CI, DEPLOYER] });
        assert.deepStrictEqual(issues.map((i) => [i.field, i.value]), [["adminPrincipalArns[2]", DEPLOYER]]);
        assert.deepStrictEqual(eksClusterIssues({ adminPrincipalArns: [DEPLOYER, CI], callerArn: CI, apiAccessCidrs: ["0.0.0.0/0"] }), []);
    });

    it("the config layer records the same issues under its keys, naming the other keys by theirs", () => {
        const top = ConfigReader.fromPulumi({ "tf-serving:eks": JSON.stringify({ region: "us-west-2", zones: ["us-west-2a", "us-west-2b"], adminPrincipalArns: [DEPLOYER, DEPLOYER], apiAccessCidrs: [] }) }, "tf-serving");
        readAwsConfig(top);
        const byKey = Object.fromEntries(top.issues.map((i) => [i.key, i.expected]));
        assert.match(byKey["eks.adminPrincipalArns[1]"] ?? "", /^names the same principal as eks\.adminPrincipalArns\[0\]/);
        assert.match(byKey["eks.apiAccessCidrs"] ?? "", /^is empty; list the CIDRs/);
    });
});


describe("EksCluster refuses what the eks config section refuses, as a library user gives it", () => {
    /** The one line `EksCluster` throws for `overrides`, with nothing registered. */
    async function refusal(overrides: Partial<EksClusterArgs>): Promise<string> {
        const recorder = await startMockRuntime();
        let message = "";
        assert.throws(() => new EksCluster("eks", args(overrides)), (e: Error) => (message = e.message) !== "");
        await recorder.settle();
        assert.deepStrictEqual(recorder.resources, [], "nothing registered");
        assert.ok(!message.includes("\n"), `one line: ${message}`);
        return message;
    }
    const create = (zones: string[]): EksClusterArgs["network"] => ({ kind: "create", cidr: "10.0.0.0/16", zones, natGateways: "single" });

    it("one availability zone", async () => {
        assert.match(await refusal({ network: create(["us-west-2a"]) }), /^EksCluster eks: network\.zones must list 2 to 6 availability zones \(EKS requires two\)$/);
    });

    it("Kubernetes 1.20, long out of EKS's support (kubernetesVersions.ts keeps the list)", async () => {
        assert.match(await refusal({ kubernetesVersion: "1.20" }), /^EksCluster eks: kubernetesVersion is not a version EKS creates clusters on; use one of "1\.3/);
    });

    it("Graviton instances: TF Serving's images are x86 (instanceTypes.ts)", async () => {
        assert.match(await refusal({ cpuNodeGroup: { ...args().cpuNodeGroup, instanceType: "m7g.xlarge" } }),
            /^EksCluster eks: cpuNodeGroup\.instanceType is an Arm \(arm64\) type, and TensorFlow Serving publishes amd64 images only/);
        assert.match(await refusal({ gpuNodeGroup: { ...GPU_GROUP, instanceType: "g5g.xlarge" } }), /^EksCluster eks: gpuNodeGroup\.instanceType is an Arm \(arm64\) type/);
    });

    it("min above max", async () => {
        assert.match(await refusal({ cpuNodeGroup: { ...args().cpuNodeGroup, minNodes: 5, maxNodes: 2, desiredNodes: 3 } }), /^EksCluster eks: cpuNodeGroup\.maxNodes must be >= cpuNodeGroup\.minNodes \(5\)$/);
    });

    it("one existing subnet", async () => {
        assert.match(await refusal({ network: { kind: "existing", privateSubnetIds: ["subnet-0123456789abcdef0"], publicSubnetIds: [] } }),
            /^EksCluster eks: network\.privateSubnetIds must list at least two subnets, in different availability zones \(EKS requires two zones\)$/);
    });

    it("and the rest the section checks: a zone as the region, zones elsewhere, an STS session ARN, a tag-only device plugin image", async () => {
        const message = await refusal({
            region: "us-west-2a", adminPrincipalArns: ["arn:aws:sts::123456789012:assumed-role/deployer/alice"], gpuNodeGroup: GPU_GROUP,
            devicePluginImage: "mirror.example/k8s-device-plugin:v0.17.1", network: create(["us-east-1a", "us-west-2b"]),
        });
        for (const field of ["region", "network.zones[0]", "adminPrincipalArns[0]", "devicePluginImage"]) {
            assert.ok(message.includes(`; ${field} `) || message.includes(`: ${field} `), `${field} in: ${message}`);
        }
    });

    it("a missing administrator list is named, not a TypeError", async () => {
        assert.match(await refusal({ adminPrincipalArns: undefined }), /^EksCluster eks: adminPrincipalArns is required/);
    });
});
