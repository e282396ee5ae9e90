/**
 * What terraform-provider-aws (the provider pulumi-aws wraps) refuses before any API call, stated from
 * its source (hashicorp/terraform-provider-aws, the files named on each rule), and, where the provider
 * passes a value through unchecked, what the AWS API refuses at `pulumi up` (its model: boto/botocore
 * `botocore/data/<service>/<version>/service-2.json`, read at 0e6e240, 2026-08-07). Every value the EKS
 * stack sends is walked from the builders the components use (`nodeGroupArgs`, `ecrRepositoryName`,
 * `tagMutability`, `lifecyclePolicy`, `autoscalerDiscoveryTags`).
 */
import { metricsServerAddonArgs, podIdentityAgentAddonArgs, vpcCniAddonArgs } from "./addons";
import { autoscalerDiscoveryTags } from "./clusterAutoscaler";
import { nodeGroupArgs } from "./nodeGroup";
import { ecrRepositoryName, lifecyclePolicy, tagMutability } from "./ecr";
import type { AwsConfig, AwsStackConfig } from "./config";
import type { ConfigIssue } from "../../../config/configReader";
import { ProviderInput, ProviderRule, autoName, goCidrRefusal, intRange, oneOf, parseGoCidr, plain, providerIssues, rule } from "../../../config/providerRules";

const TPA = "terraform-provider-aws";
const EKS = `${TPA} internal/service/eks`;
const VERIFY = `${TPA} internal/verify/validate.go`;
const EKS_API = "EKS API model (botocore data/eks/2017-11-01/service-2.json)";
const ECR_API = "ECR API model (botocore data/ecr/2015-09-21/service-2.json)";
const IAM_API = "IAM API model (botocore data/iam/2010-05-08/service-2.json)";

/** `enum.Validate[types.X]()`: the AWS SDK's values of X, which are the API model's enum. */
const AMI_TYPES = [
    "AL2_x86_64", "AL2_x86_64_GPU", "AL2_ARM_64", "CUSTOM", "BOTTLEROCKET_ARM_64", "BOTTLEROCKET_x86_64", "BOTTLEROCKET_ARM_64_FIPS",
    "BOTTLEROCKET_x86_64_FIPS", "BOTTLEROCKET_ARM_64_NVIDIA", "BOTTLEROCKET_x86_64_NVIDIA", "BOTTLEROCKET_ARM_64_NVIDIA_FIPS",
    "BOTTLEROCKET_x86_64_NVIDIA_FIPS", "WINDOWS_CORE_2019_x86_64", "WINDOWS_FULL_2019_x86_64", "WINDOWS_CORE_2022_x86_64",
    "WINDOWS_FULL_2022_x86_64", "WINDOWS_CORE_2025_x86_64", "WINDOWS_FULL_2025_x86_64", "AL2023_x86_64_STANDARD", "AL2023_ARM_64_STANDARD",
    "AL2023_x86_64_NEURON", "AL2023_x86_64_NVIDIA", "AL2023_ARM_64_NVIDIA",
];

/** `verify.ValidARN`: aws-sdk-go's `arn.Parse` (prefix `arn:`, six `:`-separated sections), then the partition, region, account and resource checks. */
function validArn(v: string): string | undefined {
    const sections = v.startsWith("arn:") ? splitN(v, ":", 6) : [];
    if (sections.length !== 6) {
        return `"${v}" is not an ARN: arn:PARTITION:SERVICE:REGION:ACCOUNT:RESOURCE`;
    }
    const [, partition, , region, account, resource] = sections;
    if (!/^aws(-[a-z]+)*$/.test(partition)) {
        return `"${v}" has partition "${partition}", and a partition is "aws" or "aws-" and a name (aws-cn, aws-us-gov)`;
    }
    if (region !== "" && !/^[a-z]{2}(-[a-z]+)+-\d$/.test(region)) {
        return `"${v}" has region "${region}", which is not a region name such as us-west-2`;
    }
    if (account !== "" && !/^(aws|aws-managed|third-party|\d{12}|cw.{10})$/.test(account)) {
        return `"${v}" has account "${account}", and an account id is 12 digits`;
    }
    return resource === "" ? `"${v}" has no resource part` : undefined;
}

/** Go's `strings.SplitN(s, sep, n)`. */
function splitN(s: string, sep: string, n: number): string[] {
    const parts = s.split(sep);
    return parts.length <= n ? parts : [...parts.slice(0, n - 1), parts.slice(n - 1).join(sep)];
}

/** A string's length within [min, max], for the API models' `min`/`max`. */
function lengthWithin(source: string, min: number, max: number, what: string): ProviderRule {
    return rule(source, (v) => (v.length >= min && v.length <= max ? undefined : `"${v}" has ${v.length} characters; ${what} has ${min} to ${max}`));
}

/** The rules, each with the provider source (or, where the provider checks nothing, the API model) that states it. */
export const AWS_RULES = {
    /** `validClusterName`, on `aws_eks_cluster.name` and every `cluster_name`. */
    clusterName: rule(`${EKS}/validate.go validClusterName`, (v) => {
        if (v.length < 1 || v.length > 100) {
            return `"${v}" has ${v.length} characters, and must have 1 to 100`;
        }
        return /^[0-9A-Za-z][0-9A-Za-z_-]*$/.test(v) ? undefined : `"${v}" must be letters, digits, '-' and '_', starting with a letter or a digit`;
    }),
    /** `vpc_config.public_access_cidrs`: `verify.ValidCIDRNetworkAddress` (Go parses it; its address is its network's, `types.CIDRBlocksEqual`). */
    publicAccessCidr: rule(`${EKS}/cluster.go vpc_config.public_access_cidrs (${VERIFY} ValidCIDRNetworkAddress)`, (v) => {
        const cidr = parseGoCidr(v);
        if (cidr === undefined) {
            return goCidrRefusal(v);
        }
        const network = parseGoCidr(cidr.network);
        return network !== undefined && network.ip === cidr.ip ? undefined : `"${v}" has host bits set: the block is ${cidr.network}`;
    }),
    /** `aws_vpc.cidr_block`: `validation.IsCIDRNetwork(16, 28)`. */
    vpcCidr: rule(`${TPA} internal/service/ec2/vpc_.go cidr_block (IsCIDRNetwork(VPCCIDRMinIPv4, VPCCIDRMaxIPv4))`, (v) => {
        const cidr = parseGoCidr(v);
        if (cidr === undefined) {
            return goCidrRefusal(v);
        }
        if (cidr.network !== v) {
            return `"${v}" is not written as its network, ${cidr.network}`;
        }
        return cidr.bits >= 16 && cidr.bits <= 28 ? undefined : `"${v}" must have a prefix from /16 to /28`;
    }),
    /** `aws_eks_access_entry.principal_arn`: `verify.ValidARN`. */
    principalArn: rule(`${EKS}/access_entry.go principal_arn (${VERIFY} ValidARN)`, validArn),
    amiType: oneOf(`${EKS}/node_group.go ami_type (enum.Validate[types.AMITypes]; values: ${EKS_API} AMITypes)`, AMI_TYPES),
    capacityType: oneOf(`${EKS}/node_group.go capacity_type (enum.Validate[types.CapacityTypes]; values: ${EKS_API} CapacityTypes)`, ["ON_DEMAND", "SPOT", "CAPACITY_BLOCK"]),
    desiredOrMinSize: intRange(`${EKS}/node_group.go scaling_config desired_size, min_size (IntAtLeast(0))`, 0),
    maxSize: intRange(`${EKS}/node_group.go scaling_config max_size (IntAtLeast(1))`, 1),
    maxUnavailable: intRange(`${EKS}/node_group.go update_config max_unavailable (IntBetween(1, 100))`, 1, 100),
    taintKey: lengthWithin(`${EKS}/node_group.go taint key (StringLenBetween(1, 63))`, 1, 63, "a taint key"),
    taintValue: lengthWithin(`${EKS}/node_group.go taint value (StringLenBetween(0, 63))`, 0, 63, "a taint value"),
    taintEffect: oneOf(`${EKS}/node_group.go taint effect (enum.Validate[types.TaintEffect]; values: ${EKS_API} TaintEffect)`, ["NO_SCHEDULE", "NO_EXECUTE", "PREFER_NO_SCHEDULE"]),
    /** Node labels: the provider passes them through; the API's `labelKey`/`labelValue` (refused at `up`). */
    labelKey: lengthWithin(`${EKS_API} labelKey`, 1, 63, "a node label key"),
    labelValue: lengthWithin(`${EKS_API} labelValue`, 1, 63, "a node label value"),
    /** Node group tags: the API's `TagKey`, `TagValue` (refused at `up`). */
    tagKey: lengthWithin(`${EKS_API} TagKey`, 1, 128, "a tag key"),
    tagValue: lengthWithin(`${EKS_API} TagValue`, 0, 256, "a tag value"),
    /** `aws_ecr_repository.name`: the API's `RepositoryName` (refused at `up`). */
    ecrRepositoryName: rule(`${ECR_API} RepositoryName`, (v) => {
        if (v.length < 2 || v.length > 256) {
            return `"${v}" has ${v.length} characters; an ECR repository name has 2 to 256`;
        }
        const component = "[a-z0-9]+((\\.|_|__|-+)[a-z0-9]+)*";
        return new RegExp(`^${component}(/${component})*$`).test(v) ? undefined
            : `"${v}" is not an ECR repository name: lowercase letters and digits, separated by '.', '_', '__', '-' within a component and '/' between components`;
    }),
    imageTagMutability: oneOf(`${TPA} internal/service/ecr/repository.go image_tag_mutability (StringInSlice(ImageTagMutability_Values()); values: ${ECR_API} ImageTagMutability)`,
        ["MUTABLE", "IMMUTABLE", "IMMUTABLE_WITH_EXCLUSION", "MUTABLE_WITH_EXCLUSION"]),
    exclusionFilter: rule(`${ECR_API} ImageTagMutabilityExclusionFilterValue`, (v) => (/^[0-9a-zA-Z._*-]{1,128}$/.test(v) ? undefined
        : `"${v}" must be 1 to 128 letters, digits, '.', '_', '*' and '-'`)),
    exclusionFilterType: oneOf(`${ECR_API} ImageTagMutabilityExclusionFilterType`, ["WILDCARD"]),
    lifecyclePolicyText: lengthWithin(`${ECR_API} LifecyclePolicyText`, 100, 30720, "a lifecycle policy"),
    /** An add-on's `resolveConflictsOnCreate`/`OnUpdate`: the API's `ResolveConflicts`. */
    resolveConflicts: oneOf(`${EKS_API} ResolveConflicts`, ["OVERWRITE", "NONE", "PRESERVE"]),
    /** An IAM role's name (Pulumi names the stack's roles): the API's `roleNameType`. */
    roleName: rule(`${IAM_API} roleNameType`, (v) => (v.length >= 1 && v.length <= 64 && /^[\w+=,.@-]+$/.test(v) ? undefined
        : `"${v}" must be 1 to 64 letters, digits and +=,.@_-`)),
} as const;


/** The IAM roles the EKS stack creates, by resource name (`serviceRole`, `podIdentityRole`). */
const ROLE_RESOURCES = ["eks-cluster", "eks-nodes", "eks-lbc-role", "eks-cluster-autoscaler-role"];

/** Every value the EKS stack sends to the AWS provider that a rule of `AWS_RULES` covers. */
export function awsProviderInputs(eks: AwsConfig, models: { name: string; key: string }[]): ProviderInput[] {
    const inputs: ProviderInput[] = [];
    const add = (input: string, value: unknown, ruleOf: ProviderRule, key: string, derived?: ProviderInput["derived"]) =>
        inputs.push({ input, value, rule: ruleOf, key, derived, provider: "AWS" });
    const constant = (input: string, value: unknown, ruleOf: ProviderRule) =>
        add(input, value, ruleOf, "eks", { from: value, fix: "this program sets it: report it as a tf-serving bug" });

    add("aws.eks.Cluster name", eks.clusterName, AWS_RULES.clusterName, "eks.clusterName");
    eks.apiAccessCidrs.forEach((cidr, i) => add("aws.eks.Cluster vpcConfig.publicAccessCidrs", cidr, AWS_RULES.publicAccessCidr, `eks.apiAccessCidrs[${i}]`));
    (eks.adminPrincipalArns ?? []).forEach((arn, i) => add("aws.eks.AccessEntry principalArn", arn, AWS_RULES.principalArn, `eks.adminPrincipalArns[${i}]`));
    if (eks.network.kind === "create") {
        add("aws.ec2.Vpc cidrBlock", eks.network.cidr, AWS_RULES.vpcCidr, "eks.vpcCidr");
    }

    const tags = eks.clusterAutoscaler ? autoscalerDiscoveryTags(eks.clusterName) : undefined;
    const at = { clusterName: eks.clusterName, nodeRoleArn: "arn:aws:iam::123456789012:role/nodes", subnetIds: [], kubernetesVersion: eks.kubernetesVersion ?? "", tags };
    const groups = [{ kind: "cpu" as const, key: "eks.cpuNodeGroup", settings: eks.cpuNodeGroup }, ...(eks.gpuNodeGroup ? [{ kind: "gpu" as const, key: "eks.gpuNodeGroup", settings: eks.gpuNodeGroup }] : [])];
    for (const { kind, key, settings } of groups) {
        const group = nodeGroupArgs(kind, settings, at);
        constant("aws.eks.NodeGroup amiType", group.amiType, AWS_RULES.amiType);
        add("aws.eks.NodeGroup capacityType", group.capacityType, AWS_RULES.capacityType, `${key}.capacityType`);
        const scaling = plain(group.scalingConfig);
        add("aws.eks.NodeGroup scalingConfig.desiredSize", scaling?.desiredSize, AWS_RULES.desiredOrMinSize, `${key}.desiredNodes`);
        add("aws.eks.NodeGroup scalingConfig.minSize", scaling?.minSize, AWS_RULES.desiredOrMinSize, `${key}.minNodes`);
        add("aws.eks.NodeGroup scalingConfig.maxSize", scaling?.maxSize, AWS_RULES.maxSize, `${key}.maxNodes`);
        constant("aws.eks.NodeGroup updateConfig.maxUnavailable", plain(group.updateConfig)?.maxUnavailable, AWS_RULES.maxUnavailable);
        for (const taint of plain(group.taints) ?? []) {
            const t = plain(taint);
            constant("aws.eks.NodeGroup taints.key", t?.key, AWS_RULES.taintKey);
            constant("aws.eks.NodeGroup taints.value", t?.value ?? "", AWS_RULES.taintValue);
            constant("aws.eks.NodeGroup taints.effect", t?.effect, AWS_RULES.taintEffect);
        }
        for (const [label, value] of Object.entries(plain(group.labels) ?? {})) {
            constant("aws.eks.NodeGroup labels (key)", label, AWS_RULES.labelKey);
            constant(`aws.eks.NodeGroup labels.${label}`, value, AWS_RULES.labelValue);
        }
        for (const [tag, value] of Object.entries(plain(group.tags) ?? {})) {
            // The discovery tags carry the cluster's name.
            add("aws.eks.NodeGroup tags (key)", tag, AWS_RULES.tagKey, "eks.clusterName", { from: eks.clusterName, fix: "shorten eks.clusterName" });
            constant(`aws.eks.NodeGroup tags.${tag}`, value, AWS_RULES.tagValue);
        }
    }

    const mutability = tagMutability();
    constant("aws.ecr.Repository imageTagMutability", mutability.imageTagMutability, AWS_RULES.imageTagMutability);
    for (const filter of mutability.imageTagMutabilityExclusionFilters) {
        constant("aws.ecr.Repository imageTagMutabilityExclusionFilters.filter", filter.filter, AWS_RULES.exclusionFilter);
        constant("aws.ecr.Repository imageTagMutabilityExclusionFilters.filterType", filter.filterType, AWS_RULES.exclusionFilterType);
    }
    for (const model of models) {
        const name = ecrRepositoryName(eks.registry.repositoryPrefix, model.name);
        add(`aws.ecr.Repository name (model ${model.name})`, name, AWS_RULES.ecrRepositoryName, "eks.registry.repositoryPrefix", {
            from: eks.registry.repositoryPrefix,
            fix: `the name is eks.registry.repositoryPrefix, '/', and the model's name (${model.key}): keep the two within 256 characters of ECR's pattern`,
        });
    }
    add("aws.ecr.LifecyclePolicy policy", lifecyclePolicy(eks.registry.keepImages), AWS_RULES.lifecyclePolicyText, "eks.registry.keepImages",
        { from: eks.registry.keepImages, fix: "this program writes the policy from it: report it as a tf-serving bug" });
    for (const addon of [vpcCniAddonArgs, metricsServerAddonArgs, podIdentityAgentAddonArgs].map((args) => args(eks.clusterName, "v0"))) {
        constant(`aws.eks.Addon resolveConflictsOnCreate (${plain(addon.addonName)})`, addon.resolveConflictsOnCreate, AWS_RULES.resolveConflicts);
        constant(`aws.eks.Addon resolveConflictsOnUpdate (${plain(addon.addonName)})`, addon.resolveConflictsOnUpdate, AWS_RULES.resolveConflicts);
    }
    for (const role of ROLE_RESOURCES) {
        constant(`the IAM role name Pulumi gives ${role}`, autoName(role), AWS_RULES.roleName);
    }
    return inputs;
}

/** The issues of every value an EKS stack sends to the AWS provider that the provider (or the API behind it) would refuse. */
export function awsProviderIssues(config: AwsStackConfig): ConfigIssue[] {
    const models = config.models.map((m, i) => ({ name: m.name, key: m.configKey("path") === "modelPath" ? "modelName" : `models[${i}].name` }));
    return providerIssues(awsProviderInputs(config.eks, models));
}

