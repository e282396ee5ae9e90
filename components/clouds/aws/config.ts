/**
 * The `eks` configuration section (cloud: aws): the EKS cluster, its network, node groups and the
 * ECR repositories. Set keys with `pulumi config set --path eks.region us-west-2`. Every value is
 * checked here, before anything is registered; docs/reference/configuration.md#eks-cloud-aws lists the keys.
 */
import { EKS_CLUSTER_DEFAULTS, EksClusterArgs, EksNetworkSettings } from "./cluster";
import { eksClusterIssues } from "./clusterChecks";
import { DIGEST_PINNED_IMAGE } from "./devicePlugin";
import { instanceSizeProblem, isAcceleratedInstanceType, isArm64InstanceType, isNvidiaGpuInstanceType, NVIDIA_GPU_FAMILIES } from "./instanceTypes";
import { eksKubernetesVersionProblem, utcDay } from "./kubernetesVersions";
import { CAPACITY_TYPES, EksNodeGroupSettings } from "./nodeGroup";
import { prometheusEndpoint } from "./prometheusAdapter";
import { NAT_GATEWAY_MODES, subnetLayout } from "./vpc";
import { EcrSettings } from "./ecr";
import { REPOSITORY_PATH } from "../../../contract/registry";
import { NO_ARM64, escapeRegExp, readIpv4Cidrs, readNodeBounds, readZones, section } from "../../../config/cloudConfig";
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

const REGION = /^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-[0-9]+$/;
const CLUSTER_NAME = /^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/;
const INSTANCE_TYPE = /^[a-z][a-z0-9-]*\.[a-z0-9]+(-[a-z0-9]+)?$/;
const SUBNET_ID = /^subnet-([0-9a-f]{8}|[0-9a-f]{17})$/;
const IAM_PRINCIPAL = /^arn:aws[a-z-]*:iam::[0-9]{12}:(role|user)\/[\w+=,.@/-]+$/;
const STS_SESSION = /^arn:(aws[a-z-]*):sts::([0-9]{12}):assumed-role\/([^/]+)\/.+$/;

export function readAwsConfig(top: ConfigReader): AwsConfig {
    const r = section(top, "eks");
    r.rejectUnknown(EKS_KEYS);

    const region = r.required("region", "the AWS region, e.g. `pulumi config set --path eks.region us-west-2`");
    if (region && !REGION.test(region)) {
        r.fail("region", "must be an AWS region such as \"us-west-2\" (a region, not a zone like \"us-west-2a\")");
    }
    const clusterName = r.string("clusterName", "tf-serving");
    if (!CLUSTER_NAME.test(clusterName)) {
        r.fail("clusterName", "must be 1-100 letters, digits, '-' and '_', starting with a letter or digit");
    }

    const kubernetesVersion = readKubernetesVersion(r);
    const adminPrincipalArns = r.stringList("adminPrincipalArns", (arn) => {
        const session = STS_SESSION.exec(arn);
        if (session) {
            return `is an STS session ARN, which changes with every session; use the role ARN arn:${session[1]}:iam::${session[2]}:role/${session[3]} ` +
                "(with the role's path if it has one, e.g. aws-reserved/sso.amazonaws.com/ for SSO roles: `pulumi preview` names the exact ARN)";
        }
        return IAM_PRINCIPAL.test(arn) ? undefined : "must be an IAM role or user ARN such as arn:aws:iam::123456789012:role/deployer";
    });
    const apiAccessCidrs = readIpv4Cidrs(r, "apiAccessCidrs") ?? [...EKS_CLUSTER_DEFAULTS.apiAccessCidrs];
    // The checks `EksCluster` runs on its Args, on the lists as written (a list whose entries were all refused is not empty).
    const asWritten = (name: string, read: string[] | undefined) => (read !== undefined && read.length === 0 && (r.listLength(name) ?? 0) > 0 ? undefined : read);
    eksClusterIssues({ adminPrincipalArns: asWritten("adminPrincipalArns", adminPrincipalArns), apiAccessCidrs: r.has("apiAccessCidrs") ? asWritten("apiAccessCidrs", apiAccessCidrs) : undefined },
        (field) => r.key(field)).forEach((i) => r.fail(i.field, i.message, i.value));

    const devicePluginImage = r.string("devicePluginImage");
    const gpuNodeGroup = readGpuNodeGroup(r);
    if (devicePluginImage !== undefined && gpuNodeGroup === undefined) {
        r.fail("devicePluginImage", "applies only with eks.gpuNodeGroup");
    } else if (devicePluginImage !== undefined && !DIGEST_PINNED_IMAGE.test(devicePluginImage)) {
        r.fail("devicePluginImage", "must be pinned by digest, e.g. \"mirror.example/k8s-device-plugin:v0.17.1@sha256:<64 hex digits>\" " +
            "(`docker buildx imagetools inspect IMAGE` prints it): a tag can be moved, and the policy pack refuses unpinned images");
    }

    return {
        region,
        profile: r.string("profile"),
        clusterName,
        kubernetesVersion,
        deletionProtection: r.bool("deletionProtection", EKS_CLUSTER_DEFAULTS.deletionProtection),
        network: readNetwork(r, region),
        apiAccessCidrs,
        adminPrincipalArns,
        cpuNodeGroup: readCpuNodeGroup(section(r, "cpuNodeGroup")),
        gpuNodeGroup,
        devicePluginImage,
        // Off unless asked: turning it on adds resources and tags to a running stack's node groups.
        clusterAutoscaler: r.bool("clusterAutoscaler", false),
        prometheusUrl: readPrometheusUrl(r),
        registry: readRegistry(section(r, "registry")),
    };
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

function readKubernetesVersion(r: ConfigReader): string | undefined {
    const expected = "must be a Kubernetes minor version in quotes, such as \"1.33\" (unquoted, YAML reads 1.30 as the number 1.3)";
    const before = r.issues.length;
    const value = r.string("kubernetesVersion");
    if (r.issues.length > before) {
        // A YAML number, not a string: say why quoting matters instead of the generic message.
        r.issues[r.issues.length - 1].expected = expected;
    } else if (value !== undefined && !/^1\.[0-9]{2}$/.test(value)) {
        r.fail("kubernetesVersion", expected);
    } else if (value !== undefined) {
        const problem = eksKubernetesVersionProblem(value, utcDay());
        if (problem !== undefined) {
            r.fail("kubernetesVersion", problem);
        }
    }
    return value;
}

function readNetwork(r: ConfigReader, region: string): EksNetworkSettings {
    const subnetCheck = (id: string) => (SUBNET_ID.test(id) ? undefined : "must be a subnet id such as subnet-0123456789abcdef0");
    const privateSubnetIds = r.stringList("privateSubnetIds", subnetCheck);
    const publicSubnetIds = r.stringList("publicSubnetIds", subnetCheck);
    if (privateSubnetIds !== undefined) {
        for (const key of ["zones", "vpcCidr", "natGateways"]) {
            if (r.has(key)) {
                r.fail(key, "does not apply with eks.privateSubnetIds (existing subnets): remove one or the other");
            }
        }
        if ((r.listLength("privateSubnetIds") ?? 0) < 2) {
            r.fail("privateSubnetIds", "must list at least two subnets, in different availability zones (EKS requires two zones)");
        }
        return { kind: "existing", privateSubnetIds, publicSubnetIds: publicSubnetIds ?? [] };
    }
    if (publicSubnetIds !== undefined) {
        r.fail("publicSubnetIds", "needs eks.privateSubnetIds too (the nodes run in private subnets)");
    }
    // Lists are counted as written: a refused entry is reported as itself, not as a list too short.
    const zones = readZones(r, "zones", region, new RegExp(`^${escapeRegExp(region)}[a-z]$`), `${region || "us-west-2"}a`);
    if (zones === undefined) {
        r.fail("zones", `required: the availability zones for the VPC's subnets, at least two, e.g. \`pulumi config set --path 'eks.zones[0]' ${region || "us-west-2"}a\` and '[1]' ${region || "us-west-2"}b; or existing subnets in eks.privateSubnetIds`, undefined);
    } else if ((r.listLength("zones") ?? 0) < 2 || (r.listLength("zones") ?? 0) > 6) {
        r.fail("zones", "must list 2 to 6 availability zones (EKS requires two)");
    }
    const cidr = r.string("vpcCidr", "10.0.0.0/16");
    const layout = subnetLayout(cidr, Math.max(zones?.length ?? 2, 2));
    if (typeof layout === "string") {
        r.fail("vpcCidr", layout);
    }
    return { kind: "create", cidr, zones: zones ?? [], natGateways: r.oneOf("natGateways", NAT_GATEWAY_MODES, "single") };
}

function readInstanceType(r: ConfigReader, fallback: string): string {
    const instanceType = r.string("instanceType", fallback);
    if (!INSTANCE_TYPE.test(instanceType)) {
        r.fail("instanceType", "must be an EC2 instance type such as \"m6i.xlarge\"");
    } else if (isArm64InstanceType(instanceType)) {
        r.fail("instanceType", `${NO_ARM64} such as "m6i.xlarge" (CPU) or "g5.xlarge" (GPU)`);
    } else if (instanceSizeProblem(instanceType) !== undefined) {
        r.fail("instanceType", instanceSizeProblem(instanceType) ?? "");
    }
    return instanceType;
}

function readGroup(r: ConfigReader, instanceType: string, defaults: { desiredNodes: number; minNodes: number; maxNodes: number; diskSizeGb: number }, floor: number): EksNodeGroupSettings {
    const { minNodes, maxNodes } = readNodeBounds(r, defaults, floor);
    const desiredNodes = r.int("desiredNodes", Math.min(Math.max(defaults.desiredNodes, minNodes), maxNodes), { min: 0, max: 1000 });
    if (desiredNodes < minNodes || desiredNodes > maxNodes) {
        r.fail("desiredNodes", `must be between ${r.key("minNodes")} (${minNodes}) and ${r.key("maxNodes")} (${maxNodes})`);
    }
    return {
        instanceType,
        desiredNodes,
        minNodes,
        maxNodes,
        diskSizeGb: r.int("diskSizeGb", defaults.diskSizeGb, { min: 20, max: 16384 }),
        capacityType: r.oneOf("capacityType", CAPACITY_TYPES, "ON_DEMAND"),
    };
}

function readCpuNodeGroup(r: ConfigReader): EksNodeGroupSettings {
    r.rejectUnknown(GROUP_KEYS);
    const instanceType = readInstanceType(r, "m6i.xlarge");
    if (isAcceleratedInstanceType(instanceType)) {
        r.fail("instanceType", "is an accelerated (GPU) type; the CPU node group should be a general-purpose type such as \"m6i.xlarge\", with GPUs in eks.gpuNodeGroup");
    }
    return readGroup(r, instanceType, { desiredNodes: 2, minNodes: 1, maxNodes: 4, diskSizeGb: 50 }, 1);
}

function readGpuNodeGroup(eks: ConfigReader): EksNodeGroupSettings | undefined {
    const r = eks.nested("gpuNodeGroup");
    if (r === undefined) {
        return undefined;
    }
    r.rejectUnknown(GROUP_KEYS);
    const instanceType = readInstanceType(r, "g4dn.xlarge");
    if (INSTANCE_TYPE.test(instanceType) && !isArm64InstanceType(instanceType) && !isNvidiaGpuInstanceType(instanceType)) {
        r.fail("instanceType", `must be an NVIDIA GPU instance type (families ${NVIDIA_GPU_FAMILIES.join(", ")}), such as "g4dn.xlarge" or "g5.xlarge"; ` +
            "TF Serving's GPU image needs CUDA");
    }
    return readGroup(r, instanceType, { desiredNodes: 1, minNodes: 0, maxNodes: 2, diskSizeGb: 100 }, 0);
}

function readRegistry(r: ConfigReader): EcrSettings {
    r.rejectUnknown(["repositoryPrefix", "keepImages", "forceDelete"]);
    const repositoryPrefix = r.string("repositoryPrefix", "tf-serving");
    if (!REPOSITORY_PATH.test(repositoryPrefix)) {
        r.fail("repositoryPrefix", "must be a lowercase ECR repository path such as \"tf-serving\" or \"team/models\"");
    }
    return {
        repositoryPrefix,
        keepImages: r.int("keepImages", 10, { min: 1, max: 1000 }),
        forceDelete: r.bool("forceDelete", false),
    };
}
