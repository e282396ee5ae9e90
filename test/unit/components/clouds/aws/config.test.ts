import * as assert from "assert";
import { eksVersionsOn, utcDay } from "../../../../../components/clouds/aws/kubernetesVersions";
import { adminAccessIssues, readAwsConfig } from "../../../../../components/clouds/aws/config";
import { ConfigReader } from "../../../../../config/configReader";
import { issueFor } from "../../../../support/cloudMocks";

function read(eks: Record<string, unknown> | undefined) {
    const r = new ConfigReader(eks === undefined ? {} : { eks: JSON.stringify(eks) });
    const config = readAwsConfig(r);
    return { config, issues: r.issues };
}

const BASE = { region: "us-west-2", zones: ["us-west-2a", "us-west-2b"] };

describe("eks config", () => {
    it("needs only region and zones; everything else has a default", () => {
        const { config, issues } = read(BASE);
        assert.deepStrictEqual(issues, []);
        assert.deepStrictEqual(config, {
            region: "us-west-2",
            profile: undefined,
            clusterName: "tf-serving",
            kubernetesVersion: undefined,
            deletionProtection: true,
            network: { kind: "create", cidr: "10.0.0.0/16", zones: ["us-west-2a", "us-west-2b"], natGateways: "single" },
            apiAccessCidrs: ["0.0.0.0/0"],
            adminPrincipalArns: undefined,
            cpuNodeGroup: { instanceType: "m6i.xlarge", desiredNodes: 2, minNodes: 1, maxNodes: 4, diskSizeGb: 50, capacityType: "ON_DEMAND" },
            gpuNodeGroup: undefined,
            devicePluginImage: undefined,
            clusterAutoscaler: false,
            prometheusUrl: undefined,
            registry: { repositoryPrefix: "tf-serving", keepImages: 10, forceDelete: false },
        });
    });

    it("prometheusUrl: an in-cluster URL with a scheme, refused otherwise with an example", () => {
        assert.strictEqual(read({ ...BASE, prometheusUrl: "http://prometheus-server.monitoring.svc:80" }).config.prometheusUrl, "http://prometheus-server.monitoring.svc:80");
        const issue = issueFor(read({ ...BASE, prometheusUrl: "prometheus-server.monitoring.svc" }).issues, "eks.prometheusUrl");
        assert.match(issue.expected, /in-cluster URL of the Prometheus that scrapes the model pods, such as "http:\/\/prometheus-server\.monitoring\.svc:80"/);
    });

    it("clusterAutoscaler: off unless set, a boolean when set", () => {
        assert.strictEqual(read({ ...BASE, clusterAutoscaler: true }).config.clusterAutoscaler, true);
        assert.strictEqual(issueFor(read({ ...BASE, clusterAutoscaler: "yes" }).issues, "eks.clusterAutoscaler").value, "yes");
    });

    it("a region without zones is an error when the stack creates the VPC", () => {
        const { issues } = read({ region: "us-west-2" });
        const i = issueFor(issues, "eks.zones");
        assert.strictEqual(i.value, undefined);
        assert.match(i.expected, /required: the availability zones.*eks.zones\[0\]' us-west-2a.*or existing subnets in eks.privateSubnetIds/);
    });

    it("zones: in the region, at least two", () => {
        assert.match(issueFor(read({ region: "us-west-2", zones: ["us-west-2a"] }).issues, "eks.zones").expected, /2 to 6/);
        assert.match(issueFor(read({ region: "us-west-2", zones: ["us-east-1a", "us-west-2b"] }).issues, "eks.zones[0]").expected, /zone of region us-west-2, e\.g\. "us-west-2a"/);
        assert.match(issueFor(read({ region: "us-west-2a", zones: ["us-west-2a", "us-west-2b"] }).issues, "eks.region").expected, /a region, not a zone/);
    });

    it("rejects Graviton (arm64) instance types with a clear message", () => {
        const { issues } = read({ ...BASE, cpuNodeGroup: { instanceType: "m7g.xlarge" }, gpuNodeGroup: { instanceType: "g5g.xlarge" } });
        const cpu = issueFor(issues, "eks.cpuNodeGroup.instanceType");
        assert.strictEqual(cpu.value, "m7g.xlarge");
        assert.match(cpu.expected, /Arm \(arm64\).*TensorFlow Serving publishes amd64 images only.*m6i\.xlarge/);
        assert.match(issueFor(issues, "eks.gpuNodeGroup.instanceType").expected, /arm64/);
        assert.strictEqual(issues.length, 2, JSON.stringify(issues));
    });

    it("GPU node group: NVIDIA types only; GPUs stay out of the CPU group", () => {
        assert.match(issueFor(read({ ...BASE, gpuNodeGroup: { instanceType: "g4ad.xlarge" } }).issues, "eks.gpuNodeGroup.instanceType").expected, /NVIDIA GPU instance type/);
        assert.match(issueFor(read({ ...BASE, gpuNodeGroup: { instanceType: "m6i.xlarge" } }).issues, "eks.gpuNodeGroup.instanceType").expected, /NVIDIA GPU instance type/);
        assert.match(issueFor(read({ ...BASE, cpuNodeGroup: { instanceType: "g5.xlarge" } }).issues, "eks.cpuNodeGroup.instanceType").expected, /gpuNodeGroup/);
        assert.match(issueFor(read({ ...BASE, cpuNodeGroup: { instanceType: "m6i.xlarg" } }).issues, "eks.cpuNodeGroup.instanceType").expected, /has no EC2 size "xlarg".*did you mean "m6i\.xlarge"\?/);
        assert.match(issueFor(read({ ...BASE, gpuNodeGroup: { instanceType: "g5.2xlarg" } }).issues, "eks.gpuNodeGroup.instanceType").expected, /did you mean "g5\.2xlarge"/);
        assert.deepStrictEqual(read({ ...BASE, cpuNodeGroup: { instanceType: "m7i.metal-24xl" } }).issues, []);
        const ok = read({ ...BASE, gpuNodeGroup: { instanceType: "g5.2xlarge", desiredNodes: 2, maxNodes: 3 } });
        assert.deepStrictEqual(ok.issues, []);
        assert.deepStrictEqual(ok.config.gpuNodeGroup, { instanceType: "g5.2xlarge", desiredNodes: 2, minNodes: 0, maxNodes: 3, diskSizeGb: 100, capacityType: "ON_DEMAND" });
    });

    it("GPU node group defaults to one g4dn.xlarge", () => {
        const { config } = read({ ...BASE, gpuNodeGroup: {} });
        assert.deepStrictEqual(config.gpuNodeGroup, { instanceType: "g4dn.xlarge", desiredNodes: 1, minNodes: 0, maxNodes: 2, diskSizeGb: 100, capacityType: "ON_DEMAND" });
    });

    it("node bounds: desired between min and max", () => {
        const { issues } = read({ ...BASE, cpuNodeGroup: { desiredNodes: 9, minNodes: 1, maxNodes: 4 } });
        assert.match(issueFor(issues, "eks.cpuNodeGroup.desiredNodes").expected, /between eks.cpuNodeGroup.minNodes \(1\) and eks.cpuNodeGroup.maxNodes \(4\)/);
        assert.match(issueFor(read({ ...BASE, cpuNodeGroup: { capacityType: "spot" } }).issues, "eks.cpuNodeGroup.capacityType").expected, /"ON_DEMAND", "SPOT"/);
    });

    it("existing subnets instead of a VPC", () => {
        const subnets = { privateSubnetIds: ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"], publicSubnetIds: ["subnet-0123456789abcdef2"] };
        const ok = read({ region: "us-west-2", ...subnets });
        assert.deepStrictEqual(ok.issues, []);
        assert.deepStrictEqual(ok.config.network, { kind: "existing", ...subnets });
        const mixed = read({ ...BASE, vpcCidr: "10.1.0.0/16", privateSubnetIds: ["subnet-0123456789abcdef0", "subnet-bad"] }).issues;
        assert.match(issueFor(mixed, "eks.zones").expected, /does not apply with eks.privateSubnetIds/);
        assert.match(issueFor(mixed, "eks.vpcCidr").expected, /does not apply/);
        assert.match(issueFor(mixed, "eks.privateSubnetIds[1]").expected, /subnet id such as subnet-0123456789abcdef0/);
        assert.match(issueFor(read({ region: "us-west-2", privateSubnetIds: ["subnet-0123456789abcdef0"] }).issues, "eks.privateSubnetIds").expected, /at least two/);
        assert.match(issueFor(read({ ...BASE, publicSubnetIds: ["subnet-0123456789abcdef0"] }).issues, "eks.publicSubnetIds").expected, /needs eks.privateSubnetIds/);
    });

    it("rejects malformed CIDRs, naming each key", () => {
        const { issues } = read({ ...BASE, vpcCidr: "10.0.0.0/33", apiAccessCidrs: ["203.0.113.7/24"] });
        assert.match(issueFor(issues, "eks.vpcCidr").expected, /IPv4 CIDR/);
        assert.match(issueFor(issues, "eks.apiAccessCidrs[0]").expected, /host bits set; the block is 203.0.113.0\/24/);
        assert.match(issueFor(read({ ...BASE, vpcCidr: "10.0.0.0/8" }).issues, "eks.vpcCidr").expected, /\/16 to \/28/);
    });

    it("admin principals: IAM role or user ARNs; an STS session ARN points at its role", () => {
        const { issues } = read({ ...BASE, adminPrincipalArns: ["arn:aws:sts::123456789012:assumed-role/deployer/alice", "deployer"] });
        assert.match(issueFor(issues, "eks.adminPrincipalArns[0]").expected, /use the role ARN arn:aws:iam::123456789012:role\/deployer/);
        assert.match(issueFor(issues, "eks.adminPrincipalArns[1]").expected, /IAM role or user ARN/);
        assert.match(issueFor(read({ ...BASE, adminPrincipalArns: [] }).issues, "eks.adminPrincipalArns").expected, /without an administrator/);
        assert.deepStrictEqual(read({ ...BASE, adminPrincipalArns: ["arn:aws:iam::123456789012:role/ci"] }).issues, []);
    });

    it("adminPrincipalArns: each principal once (its access entry is named after it)", () => {
        const issues = read({ ...BASE, adminPrincipalArns: ["arn:aws:iam::123456789012:role/ci", "arn:aws:iam::123456789012:role/ci"] }).issues;
        assert.match(issueFor(issues, "eks.adminPrincipalArns[1]").expected, /same principal as eks\.adminPrincipalArns\[0\]/);
        const sso = issueFor(read({ ...BASE, adminPrincipalArns: ["arn:aws:sts::123456789012:assumed-role/AWSReservedSSO_Admin_ab/alice"] }).issues, "eks.adminPrincipalArns[0]");
        assert.match(sso.expected, /with the role's path if it has one/);
    });

    describe("adminAccessIssues: the identity running Pulumi keeps access", () => {
        const ME = "arn:aws:iam::123456789012:role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_Admin_ab";
        const CI = "arn:aws:iam::123456789012:role/ci";

        it("passes a list that includes the caller, whatever else it lists", () => {
            assert.deepStrictEqual(adminAccessIssues([CI, ME], ME), []);
            assert.deepStrictEqual(adminAccessIssues([CI, ME], CI), []);
        });

        it("refuses a list without the caller, naming the caller and the command that adds it", () => {
            const [issue, ...more] = adminAccessIssues([CI], ME);
            assert.deepStrictEqual(more, []);
            assert.strictEqual(issue.key, "eks.adminPrincipalArns");
            assert.deepStrictEqual(issue.value, [CI]);
            assert.ok(issue.expected.startsWith(`does not include ${ME}, the identity running Pulumi: it would be locked out`), issue.expected);
            assert.ok(issue.expected.includes(`pulumi config set --path 'eks.adminPrincipalArns[1]' ${ME}`), issue.expected);
        });

        it("explains a listed role that lacks the caller's path", () => {
            const [issue] = adminAccessIssues(["arn:aws:iam::123456789012:role/AWSReservedSSO_Admin_ab"], ME);
            assert.match(issue.expected, /names the same role without its path; EKS needs the exact ARN/);
        });

        it("requires the list, naming the caller when known", () => {
            const [online] = adminAccessIssues(undefined, CI);
            assert.strictEqual(online.value, undefined);
            assert.ok(online.expected.includes(`pulumi config set --path 'eks.adminPrincipalArns[0]' ${CI}`), online.expected);
            const [offline] = adminAccessIssues(undefined, undefined);
            assert.match(offline.expected, /`pulumi preview` names its ARN/);
            assert.deepStrictEqual(adminAccessIssues([CI], undefined), [], "offline (tfs plan), a list is taken as it is");
        });
    });

    it("kubernetesVersion: a quoted minor version", () => {
        assert.strictEqual(read({ ...BASE, kubernetesVersion: "1.33" }).config.kubernetesVersion, "1.33");
        const unquoted = issueFor(read({ ...BASE, kubernetesVersion: 1.3 }).issues, "eks.kubernetesVersion");
        assert.match(unquoted.expected, /in quotes.*YAML reads 1.30 as the number 1.3/);
        assert.match(issueFor(read({ ...BASE, kubernetesVersion: "v1.33.1" }).issues, "eks.kubernetesVersion").expected, /minor version/);
    });

    it("kubernetesVersion: one EKS creates clusters on, from the one list", () => {
        const today = utcDay();
        for (const { version } of eksVersionsOn(today)) {
            assert.deepStrictEqual(read({ ...BASE, kubernetesVersion: version }).issues, [], version);
        }
        const issue = issueFor(read({ ...BASE, kubernetesVersion: "1.99" }).issues, "eks.kubernetesVersion");
        const supported = eksVersionsOn(today).map((v) => `"${v.version}"`).join(", ");
        assert.ok(issue.expected.startsWith(`is not a version EKS creates clusters on; use one of ${supported} (EKS's supported versions on ${today}`), issue.expected);
    });

    it("zones: a refused zone is reported as itself, not as a list too short", () => {
        const { issues } = read({ region: "us-west-2", zones: ["us-west-2a", "us-east-1b"] });
        assert.deepStrictEqual(issues.map((i) => i.key), ["eks.zones[1]"]);
    });

    it("registry and device plugin keys", () => {
        assert.match(issueFor(read({ ...BASE, registry: { repositoryPrefix: "TF/Serving" } }).issues, "eks.registry.repositoryPrefix").expected, /lowercase ECR repository path/);
        assert.match(issueFor(read({ ...BASE, registry: { keepImages: 0 } }).issues, "eks.registry.keepImages").expected, /from 1 to 1000/);
        assert.match(issueFor(read({ ...BASE, devicePluginImage: "x/y:1" }).issues, "eks.devicePluginImage").expected, /only with eks.gpuNodeGroup/);
    });

    it("devicePluginImage: a mirror pinned by digest, never a bare tag", () => {
        const gpu = { ...BASE, gpuNodeGroup: { instanceType: "g5.xlarge" } };
        const pinned = `mirror.example/k8s-device-plugin:v0.17.1@sha256:${"ab".repeat(32)}`;
        assert.deepStrictEqual(read({ ...gpu, devicePluginImage: pinned }).issues, []);
        const tagOnly = issueFor(read({ ...gpu, devicePluginImage: "mirror.example/k8s-device-plugin:v0.17.1" }).issues, "eks.devicePluginImage");
        assert.strictEqual(tagOnly.value, "mirror.example/k8s-device-plugin:v0.17.1");
        assert.match(tagOnly.expected, /must be pinned by digest, e\.g\. .*@sha256:/);
        assert.ok(read({ ...gpu, devicePluginImage: "mirror.example/k8s-device-plugin@sha256:abc" }).issues.length === 1, "a short digest is no digest");
    });
});
