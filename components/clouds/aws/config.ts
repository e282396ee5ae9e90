/**
 * The `eks` configuration section (cloud: aws): the EKS cluster, its network, node groups and the
 * ECR repositories. Set keys with `pulumi config set --path eks.region us-west-2`. Every value is
 * checked here, before anything is registered; docs/reference/configuration.md#eks-cloud-aws lists the keys.
 */
import { EksClusterArgs, EksNetworkSettings } from "./cluster";
import { EKS_CLUSTER_DEFAULTS, resolveEksClusterArgs } from "./clusterArgs";
import { CapacityType, EksNodeGroupSettings } from "./nodeGroup";
import { prometheusEndpoint } from "./prometheusAdapter";
import { NatGatewayMode } from "./vpc";
import { EcrSettings, ecrSettingsIssues } from "./ecr";
import { NEWEST_EKS_VERSION } from "./kubernetesVersions";
import { readNodeBounds, recordArgsIssues, section } from "../../../config/cloudConfig";
import { ConfigIssue, ConfigReader } from "../../../config/configReader";
import type { StackConfig } from "../../../config/settings";

/** A stack's whole configuration on aws (the registry's `ConfigFor<"aws">`), as its rules read it. */
export type AwsStackConfig = StackConfig<"aws", { eks: AwsConfig }>;

export interface AwsConfig extends Omit<EksClusterArgs, "adminPrincipalArns" | "callerArn" | "metricsServer" | "prometheusAdapter" | keyof typeof EKS_CLUSTER_DEFAULTS>,
    Required<Pick<EksClusterArgs, keyof typeof EKS_CLUSTER_DEFAULTS>> {
    /** The in-cluster URL of the Prometheus that scrapes the model pods, for prometheus-adapter (a request-rate HPA); checked against the models in `readConfig`. */
    prometheusUrl?: string;
    /** Cluster administrators as configured; required, but checked against the caller by `adminAccessIssues` (the caller's ARN makes the message). */
    adminPrincipalArns?: string[];
    /** Where the model images go. */
    registry: EcrSettings;
}

const EKS_KEYS = [
    "region", "profile", "zones", "clusterName", "kubernetesVersion", "deletionProtection", "vpcCidr", "natGateways",
    "privateSubnetIds", "publicSubnetIds", "apiAccessCidrs", "adminPrincipalArns", "cpuNodeGroup", "gpuNodeGroup",
    "devicePluginImage", "registry", "clusterAutoscaler", "prometheusUrl",
];
const GROUP_KEYS = ["instanceType", "desiredNodes", "minNodes", "maxNodes", "diskSizeGb", "capacityType"];

/** The config key of an `EksClusterArgs` field: the network's fields sit at the section's top, the VPC range as `vpcCidr`. */
const configField = (field: string) => field.replace(/^network\.cidr$/, "vpcCidr").replace(/^network\./, "");

/**
 * The section, read as `EksCluster` takes it: the keys are its Args' fields (the network's flattened),
 * so this reads their types and the section's own defaults, and `resolveEksClusterArgs` checks every
 * value (its issues are recorded under these keys). The administrators are checked against the
 * identity running Pulumi later (`adminAccessIssues`).
 */
export function readAwsConfig(top: ConfigReader): AwsConfig {
    const r = section(top, "eks");
    r.rejectUnknown(EKS_KEYS);

    const region = r.required("region", "the AWS region, e.g. `pulumi config set --path eks.region us-west-2`");
    const apiAccessCidrs = readList(r, "apiAccessCidrs");
    const settings: AwsConfig = {
        region,
        profile: r.string("profile"),
        clusterName: r.string("clusterName", "tf-serving"),
        kubernetesVersion: readKubernetesVersion(r),
        deletionProtection: r.bool("deletionProtection", EKS_CLUSTER_DEFAULTS.deletionProtection),
        network: readNetwork(r, region),
        apiAccessCidrs: apiAccessCidrs ?? [...EKS_CLUSTER_DEFAULTS.apiAccessCidrs],
        adminPrincipalArns: readList(r, "adminPrincipalArns"),
        cpuNodeGroup: readCpuNodeGroup(section(r, "cpuNodeGroup")),
        gpuNodeGroup: readGpuNodeGroup(r),
        devicePluginImage: r.string("devicePluginImage"),
        // Off unless asked: turning it on adds resources and tags to a running stack's node groups.
        clusterAutoscaler: r.bool("clusterAutoscaler", false),
        prometheusUrl: readPrometheusUrl(r),
        registry: readRegistry(section(r, "registry")),
    };
    const { issues } = resolveEksClusterArgs({ ...settings, apiAccessCidrs, adminPrincipalArns: settings.adminPrincipalArns as string[] },
        { key: (field) => r.key(configField(field)), adminsCheckedLater: true });
    recordArgsIssues(r, issues, configField);
    return settings;
}

/** A list of strings as written, or undefined when it holds none that are strings (each refused already, not an empty list). */
function readList(r: ConfigReader, name: string): string[] | undefined {
    const read = r.stringList(name);
    return read !== undefined && read.length === 0 && (r.listLength(name) ?? 0) > 0 ? undefined : read;
}

/**
 * Whether the identity running Pulumi keeps its access to the cluster. `callerArn` is its IAM role (the
 * session's issuer, path included) or user ARN, as EKS access entries name principals; undefined when
 * it cannot be known (the offline `tfs plan`). Every principal listed keeps its own access entry
 * whoever runs `up`; a list without the caller would create, or keep, a cluster the caller cannot
 * reach (every Kubernetes resource then fails as Unauthorized), so it is refused before anything is
 * registered.
 */
export function adminAccessIssues(adminPrincipalArns: string[] | undefined, callerArn: string | undefined): ConfigIssue[] {
    const key = "eks.adminPrincipalArns";
    const set = (arn: string, index: number) => `\`pulumi config set --path 'eks.adminPrincipalArns[${index}]' ${arn}\``;
    if (adminPrincipalArns === undefined) {
        const who = callerArn === undefined
            ? "including the identity running Pulumi (`pulumi preview` names its ARN)"
            : `including the identity running Pulumi now, ${callerArn}: ${set(callerArn, 0)}`;
        return [{
            key, value: undefined,
            expected: `list the IAM roles or users that administer the cluster, each of them given its own access entry, ${who}; ` +
                "add CI's role too, so a laptop and CI never revoke each other",
        }];
    }
    if (callerArn === undefined || adminPrincipalArns.includes(callerArn)) {
        return [];
    }
    const sameName = adminPrincipalArns.find((arn) => arn.split("/").pop() === callerArn.split("/").pop());
    const hint = sameName ? ` (${sameName} names the same role without its path; EKS needs the exact ARN)` : "";
    return [{
        key, value: adminPrincipalArns,
        expected: `does not include ${callerArn}, the identity running Pulumi${hint}: it would be locked out of the cluster and every ` +
            `Kubernetes resource would fail as Unauthorized; add it (${set(callerArn, adminPrincipalArns.length)}), or run Pulumi as one of the listed principals`,
    }];
}

function readPrometheusUrl(r: ConfigReader): string | undefined {
    const url = r.string("prometheusUrl");
    const endpoint = url === undefined ? undefined : prometheusEndpoint(url);
    if (typeof endpoint === "string") {
        r.fail("prometheusUrl", endpoint);
    }
    return url;
}

/** The version as text; a YAML number (1.30 read as 1.3) is refused here with why quoting matters. */
function readKubernetesVersion(r: ConfigReader): string | undefined {
    const before = r.issues.length;
    const value = r.string("kubernetesVersion");
    if (r.issues.length > before) {
        r.issues[r.issues.length - 1].expected = `must be a Kubernetes minor version in quotes, such as "${NEWEST_EKS_VERSION}" (unquoted, YAML reads 1.30 as the number 1.3)`;
    }
    return value;
}

/** Existing subnets, or the VPC to create; keys of the other kind are refused here, as the Args' union cannot hold both. */
function readNetwork(r: ConfigReader, region: string): EksNetworkSettings {
    const privateSubnetIds = r.stringList("privateSubnetIds");
    const publicSubnetIds = r.stringList("publicSubnetIds");
    if (privateSubnetIds !== undefined) {
        for (const key of ["zones", "vpcCidr", "natGateways"]) {
            if (r.has(key)) {
                r.fail(key, "does not apply with eks.privateSubnetIds (existing subnets): remove one or the other");
            }
        }
        return { kind: "existing", privateSubnetIds, publicSubnetIds: publicSubnetIds ?? [] };
    }
    if (publicSubnetIds !== undefined) {
        r.fail("publicSubnetIds", "needs eks.privateSubnetIds too (the nodes run in private subnets)");
    }
    const zones = r.stringList("zones");
    if (zones === undefined) {
        r.fail("zones", `required: the availability zones for the VPC's subnets, at least two, e.g. \`pulumi config set --path 'eks.zones[0]' ${region || "us-west-2"}a\` and '[1]' ${region || "us-west-2"}b; or existing subnets in eks.privateSubnetIds`, undefined);
    }
    return { kind: "create", cidr: r.string("vpcCidr", "10.0.0.0/16"), zones: zones ?? [], natGateways: r.string("natGateways", "single") as NatGatewayMode };
}

function readGroup(r: ConfigReader, instanceType: string, defaults: { desiredNodes: number; minNodes: number; maxNodes: number; diskSizeGb: number }): EksNodeGroupSettings {
    r.rejectUnknown(GROUP_KEYS);
    const { minNodes, maxNodes } = readNodeBounds(r, defaults);
    return {
        instanceType: r.string("instanceType", instanceType),
        desiredNodes: r.int("desiredNodes", Math.min(Math.max(defaults.desiredNodes, minNodes), maxNodes)),
        minNodes,
        maxNodes,
        diskSizeGb: r.int("diskSizeGb", defaults.diskSizeGb),
        capacityType: r.string("capacityType", "ON_DEMAND") as CapacityType,
    };
}

function readCpuNodeGroup(r: ConfigReader): EksNodeGroupSettings {
    return readGroup(r, "m6i.xlarge", { desiredNodes: 2, minNodes: 1, maxNodes: 4, diskSizeGb: 50 });
}

function readGpuNodeGroup(eks: ConfigReader): EksNodeGroupSettings | undefined {
    const r = eks.nested("gpuNodeGroup");
    return r === undefined ? undefined : readGroup(r, "g4dn.xlarge", { desiredNodes: 1, minNodes: 0, maxNodes: 2, diskSizeGb: 100 });
}

function readRegistry(r: ConfigReader): EcrSettings {
    r.rejectUnknown(["repositoryPrefix", "keepImages", "forceDelete"]);
    const settings: EcrSettings = {
        repositoryPrefix: r.string("repositoryPrefix", "tf-serving"),
        keepImages: r.int("keepImages", 10),
        forceDelete: r.bool("forceDelete", false),
    };
    recordArgsIssues(r, ecrSettingsIssues(settings));
    return settings;
}
