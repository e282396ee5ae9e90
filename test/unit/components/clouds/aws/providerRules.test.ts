import * as assert from "assert";
import type { AwsConfig } from "../../../../../components/clouds/aws/config";
import { AWS_RULES, awsProviderInputs } from "../../../../../components/clouds/aws/providerRules";
import { readConfig } from "../../../../../config/config";
import { ConfigError, ConfigIssue } from "../../../../../config/configReader";
import { PROVIDER_LIMITS_DOC, ProviderRule, autoName, providerIssues } from "../../../../../config/providerRules";
import { ROOT, exampleConfig, issueFor } from "../../../../support/cloudMocks";

/* The rules terraform-provider-aws (what pulumi-aws wraps) applies before any API call, stated from
 * hashicorp/terraform-provider-aws (each `it` names the file and the validator), and where the provider
 * passes a value through, the AWS API's own limits from its model (boto/botocore at 0e6e240,
 * botocore/data/<service>/<version>/service-2.json), which refuse it at `pulumi up`, half-deployed. */

function table(r: ProviderRule, accepted: unknown[], refused: unknown[]): void {
    for (const value of accepted) {
        assert.strictEqual(r.check(value), undefined, `${r.source} should accept ${JSON.stringify(value)}`);
    }
    for (const value of refused) {
        assert.notStrictEqual(r.check(value), undefined, `${r.source} should refuse ${JSON.stringify(value)}`);
    }
}

describe("terraform-provider-aws's rules", () => {
    it("internal/service/eks/validate.go validClusterName: 1-100, a letter or digit first, then letters, digits, '-', '_'", () => {
        table(AWS_RULES.clusterName, ["tf-serving", "a", "9", "A_b-C", "a".repeat(100)], ["", "a".repeat(101), "-a", "_a", "tf.serving", "tf serving"]);
    });

    it("internal/service/eks/cluster.go vpc_config.public_access_cidrs: verify.ValidCIDRNetworkAddress (Go parses it, no host bits)", () => {
        // CIDRBlocksEqual compares the parsed blocks, so a zero-padded prefix passes here where IsCIDRNetwork refuses it.
        table(AWS_RULES.publicAccessCidr, ["0.0.0.0/0", "203.0.113.0/24", "10.0.0.0/08", "2001:db8::/32", "2001:DB8::/32"],
            ["010.0.0.0/8", "10.0.0.1/8", "300.0.0.0/8", "10.0.0.0/33", "10.0.0.0"]);
        assert.match(AWS_RULES.publicAccessCidr.check("10.0.0.1/8") ?? "", /host bits set: the block is 10\.0\.0\.0\/8/);
    });

    it("internal/service/ec2/vpc_.go cidr_block: IsCIDRNetwork(16, 28)", () => {
        table(AWS_RULES.vpcCidr, ["10.0.0.0/16", "10.0.0.0/28", "192.168.0.0/20"], ["10.0.0.0/15", "10.0.0.0/29", "010.0.0.0/16", "10.0.0.0/016", "10.0.0.1/16"]);
    });

    it("internal/service/eks/access_entry.go principal_arn: verify.ValidARN (aws-sdk-go arn.Parse, partition, region, account, resource)", () => {
        table(AWS_RULES.principalArn, ["arn:aws:iam::123456789012:role/deployer", "arn:aws-us-gov:iam::123456789012:user/ci", "arn:aws:iam::123456789012:role/a:b"],
            ["arn:awsx:iam::123456789012:role/x", "arn:aws-:iam::123456789012:role/x", "arn:aws:iam::12345:role/x", "arn:aws:iam::123456789012:",
                "arn:aws:iam:us-west-20:123456789012:role/x", "aws:iam::123456789012:role/x", "arn:aws:iam:123456789012:role/x"]);
    });

    it("internal/service/eks/node_group.go ami_type, capacity_type, taint effect: enum.Validate over the EKS API's enums", () => {
        table(AWS_RULES.amiType, ["AL2023_x86_64_STANDARD", "AL2023_x86_64_NVIDIA", "BOTTLEROCKET_x86_64_NVIDIA"], ["AL2023_X86_64_NVIDIA", "AL2023_x86_64_GPU", "al2023"]);
        table(AWS_RULES.capacityType, ["ON_DEMAND", "SPOT", "CAPACITY_BLOCK"], ["on_demand", "SPOT_INSTANCE"]);
        table(AWS_RULES.taintEffect, ["NO_SCHEDULE", "NO_EXECUTE", "PREFER_NO_SCHEDULE"], ["NoSchedule", "NO_SCHEDULE "]);
    });

    it("node_group.go scaling_config (desired, min >= 0; max >= 1), update_config.max_unavailable 1-100, taint key 1-63 and value 0-63", () => {
        table(AWS_RULES.desiredOrMinSize, [0, 3], [-1, 1.5]);
        table(AWS_RULES.maxSize, [1, 1000], [0]);
        table(AWS_RULES.maxUnavailable, [1, 100], [0, 101]);
        table(AWS_RULES.taintKey, ["nvidia.com/gpu", "a".repeat(63)], ["", "a".repeat(64)]);
        table(AWS_RULES.taintValue, ["", "true", "a".repeat(63)], ["a".repeat(64)]);
    });

    it("EKS API labelKey, labelValue (1-63), TagKey (1-128), TagValue (0-256): passed through by the provider, refused by EKS", () => {
        table(AWS_RULES.labelKey, ["tf-serving/pool"], ["", "a".repeat(64)]);
        table(AWS_RULES.labelValue, ["gpu"], ["", "a".repeat(64)]);
        table(AWS_RULES.tagKey, ["k8s.io/cluster-autoscaler/" + "a".repeat(100)], ["", "a".repeat(129)]);
        table(AWS_RULES.tagValue, ["", "owned", "a".repeat(256)], ["a".repeat(257)]);
    });

    it("ECR API RepositoryName, ImageTagMutability (internal/service/ecr/repository.go), the exclusion filter, LifecyclePolicyText", () => {
        table(AWS_RULES.ecrRepositoryName, ["tf-serving/half-plus-two", "ab", "team/models/m", "a__b", "a---b", "a".repeat(256)],
            ["a", "a".repeat(257), "Tf/m", "tf-serving/", "/m", "a._b", "tf-serving//m", "-a"]);
        table(AWS_RULES.imageTagMutability, ["IMMUTABLE_WITH_EXCLUSION", "MUTABLE", "IMMUTABLE"], ["immutable", "IMMUTABLE_WITH_EXCLUSIONS"]);
        table(AWS_RULES.exclusionFilter, ["ctx-*", "v1.2_*"], ["", "ctx/*", "a".repeat(129)]);
        table(AWS_RULES.exclusionFilterType, ["WILDCARD"], ["wildcard", "REGEX"]);
        table(AWS_RULES.lifecyclePolicyText, ["x".repeat(100)], ["{\"rules\":[]}", "x".repeat(30721)]);
    });

    it("EKS API ResolveConflicts (add-ons' resolveConflictsOnCreate and OnUpdate)", () => {
        table(AWS_RULES.resolveConflicts, ["OVERWRITE", "NONE", "PRESERVE"], ["overwrite", "FORCE"]);
    });

    it("IAM API roleNameType: Pulumi's names of the stack's roles fit 64 characters of [\\w+=,.@-]", () => {
        table(AWS_RULES.roleName, [autoName("eks-cluster-autoscaler-role"), "a".repeat(64)], ["a".repeat(65), "role/x", ""]);
    });
});

const EXAMPLE: AwsConfig = (() => {
    const config = readConfig(exampleConfig("aws-example"), "tf-serving", ROOT);
    assert.ok(config.cloud === "aws");
    return config.eks;
})();
const MODEL = [{ name: "half-plus-two", key: "modelName" }];

function refusals(eks: AwsConfig): string[] {
    return awsProviderInputs(eks, MODEL).flatMap((i) => { const p = i.rule.check(i.value); return p === undefined ? [] : [`${i.input}: ${p}`]; });
}

function configIssues(edit: (eks: Record<string, unknown>) => void): ConfigIssue[] {
    try {
        readConfig(exampleConfig("aws-example", edit), "tf-serving", ROOT);
        return [];
    } catch (err) {
        assert.ok(err instanceof ConfigError, String(err));
        return err.issues;
    }
}

describe("the EKS stack's values against terraform-provider-aws's rules (and the AWS APIs')", () => {
    it("the example stack (Pulumi.aws-example.yaml) and its variants send only values the provider and the APIs accept", () => {
        assert.deepStrictEqual(refusals(EXAMPLE), []);
        const gpuNodeGroup = { instanceType: "g5.xlarge", desiredNodes: 1, minNodes: 0, maxNodes: 2, diskSizeGb: 100, capacityType: "SPOT" as const };
        assert.deepStrictEqual(refusals({ ...EXAMPLE, gpuNodeGroup, clusterAutoscaler: true, clusterName: "a".repeat(100) }), []);
        const inputs = awsProviderInputs({ ...EXAMPLE, gpuNodeGroup, clusterAutoscaler: true }, MODEL).map((i) => i.input);
        for (const input of ["aws.eks.Cluster name", "aws.eks.NodeGroup amiType", "aws.eks.NodeGroup capacityType", "aws.eks.NodeGroup taints.effect",
            "aws.eks.NodeGroup tags (key)", "aws.eks.Cluster vpcConfig.publicAccessCidrs", "aws.eks.AccessEntry principalArn", "aws.ec2.Vpc cidrBlock",
            "aws.ecr.Repository name (model half-plus-two)", "aws.ecr.Repository imageTagMutability", "aws.ecr.LifecyclePolicy policy",
            "aws.eks.Addon resolveConflictsOnCreate (vpc-cni)"]) {
            assert.ok(inputs.includes(input), `${input} is not walked: ${inputs.join(", ")}`);
        }
    });

    it("eks.registry.repositoryPrefix too long for ECR with the model's name: preview names the prefix and the model key", () => {
        const issue = issueFor(configIssues((eks) => { eks.registry = { repositoryPrefix: "a".repeat(250), forceDelete: true }; }), "eks.registry.repositoryPrefix");
        assert.strictEqual(issue.value, "a".repeat(250));
        assert.match(issue.expected, /^makes aws\.ecr\.Repository name \(model half-plus-two\) "a{250}\/half-plus-two", which the AWS provider refuses: .* has 264 characters; an ECR repository name has 2 to 256; the name is eks\.registry\.repositoryPrefix, '\/', and the model's name \(modelName\)/);
        assert.ok(issue.expected.endsWith(`(see ${PROVIDER_LIMITS_DOC})`));
    });

    it("eks.apiAccessCidrs and eks.vpcCidr with a zero-padded octet: refused at preview under their keys", () => {
        const issues = configIssues((eks) => { eks.apiAccessCidrs = ["010.0.0.0/8"]; eks.vpcCidr = "010.0.0.0/16"; });
        assert.match(issueFor(issues, "eks.apiAccessCidrs[0]").expected, /refused by the AWS provider \(aws\.eks\.Cluster vpcConfig\.publicAccessCidrs\): "010\.0\.0\.0\/8" is not a CIDR/);
        assert.match(issueFor(issues, "eks.vpcCidr").expected, /aws\.ec2\.Vpc cidrBlock/);
    });

    it("an eks.adminPrincipalArns entry whose partition the provider cannot parse: refused at preview under its index", () => {
        const issues = configIssues((eks) => { eks.adminPrincipalArns = ["arn:aws:iam::123456789012:role/deployer", "arn:awsx:iam::123456789012:role/ci"]; });
        assert.match(issueFor(issues, "eks.adminPrincipalArns[1]").expected, /aws\.eks\.AccessEntry principalArn\): .*partition "awsx"/);
        assert.strictEqual(issues.filter((i) => i.key === "eks.adminPrincipalArns[0]").length, 0);
    });

    it("a model name in a models list is named by its own key", () => {
        const [issue] = providerIssues(awsProviderInputs({ ...EXAMPLE, registry: { ...EXAMPLE.registry, repositoryPrefix: "p".repeat(200) } },
            [{ name: "m".repeat(63), key: "models[1].name" }]));
        assert.strictEqual(issue.key, "eks.registry.repositoryPrefix");
        assert.match(issue.expected, /the model's name \(models\[1\]\.name\)/);
    });
});
