/**
 * The `eks` configuration section (cloud: aws): the EKS cluster, its network, node groups and the
 * ECR repositories. Set keys with `pulumi config set --path eks.region us-west-2`. Every value is
 * checked here, before anything is registered; README "EKS" lists the keys.
 */
import { EksClusterArgs, EksNetworkSettings } from "../components/eks/cluster";
import { DIGEST_PINNED_IMAGE } from "../components/eks/devicePlugin";
import { isAcceleratedInstanceType, isArm64InstanceType, isNvidiaGpuInstanceType, NVIDIA_GPU_FAMILIES } from "../components/eks/instanceTypes";
import { CAPACITY_TYPES, EksNodeGroupSettings } from "../components/eks/nodeGroup";
import { NAT_GATEWAY_MODES, subnetLayout } from "../components/eks/vpc";
import { EcrSettings } from "../components/registry/ecr";
import { NO_ARM64, escapeRegExp, readIpv4Cidrs, readNodeBounds, readZones, section } from "./cloudConfig";
import { ConfigReader } from "./configReader";

export interface AwsConfig extends EksClusterArgs {
    /** Where the model images go. */
    registry: EcrSettings;
}

const EKS_KEYS = [
    "region", "profile", "zones", "clusterName", "kubernetesVersion", "deletionProtection", "vpcCidr", "natGateways",
    "privateSubnetIds", "publicSubnetIds", "apiAccessCidrs", "adminPrincipalArns", "cpuNodeGroup", "gpuNodeGroup",
    "devicePluginImage", "registry",
];
const GROUP_KEYS = ["instanceType", "desiredNodes", "minNodes", "maxNodes", "diskSizeGb", "capacityType"];

const REGION = /^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-[0-9]+$/;
const CLUSTER_NAME = /^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/;
const INSTANCE_TYPE = /^[a-z][a-z0-9-]*\.[a-z0-9]+$/;
const SUBNET_ID = /^subnet-([0-9a-f]{8}|[0-9a-f]{17})$/;
const IAM_PRINCIPAL = /^arn:aws[a-z-]*:iam::[0-9]{12}:(role|user)\/[\w+=,.@/-]+$/;
const STS_SESSION = /^arn:(aws[a-z-]*):sts::([0-9]{12}):assumed-role\/([^/]+)\/.+$/;
const ECR_PREFIX = /^[a-z0-9]+([._-][a-z0-9]+)*(\/[a-z0-9]+([._-][a-z0-9]+)*)*$/;

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
            return `is an STS session ARN, which changes with every session; use the role ARN arn:${session[1]}:iam::${session[2]}:role/${session[3]}`;
        }
        return IAM_PRINCIPAL.test(arn) ? undefined : "must be an IAM role or user ARN such as arn:aws:iam::123456789012:role/deployer";
    });
    if (adminPrincipalArns?.length === 0) {
        r.fail("adminPrincipalArns", "is empty, which would leave the cluster without an administrator; list ARNs, or remove the key to make the deploying identity the administrator");
    }
    const apiAccessCidrs = readIpv4Cidrs(r, "apiAccessCidrs") ?? ["0.0.0.0/0"];
    if (apiAccessCidrs.length === 0) {
        r.fail("apiAccessCidrs", "is empty; list the CIDRs allowed to reach the Kubernetes API, or remove the key to allow any address");
    }

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
        deletionProtection: r.bool("deletionProtection", true),
        network: readNetwork(r, region),
        apiAccessCidrs,
        adminPrincipalArns,
        cpuNodeGroup: readCpuNodeGroup(section(r, "cpuNodeGroup")),
        gpuNodeGroup,
        devicePluginImage,
        registry: readRegistry(section(r, "registry")),
    };
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
        if (privateSubnetIds.length < 2) {
            r.fail("privateSubnetIds", "must list at least two subnets, in different availability zones (EKS requires two zones)");
        }
        return { kind: "existing", privateSubnetIds, publicSubnetIds: publicSubnetIds ?? [] };
    }
    if (publicSubnetIds !== undefined) {
        r.fail("publicSubnetIds", "needs eks.privateSubnetIds too (the nodes run in private subnets)");
    }
    const zones = readZones(r, "zones", region, new RegExp(`^${escapeRegExp(region)}[a-z]$`), `${region || "us-west-2"}a`);
    if (zones === undefined) {
        r.fail("zones", `required: the availability zones for the VPC's subnets, at least two, e.g. \`pulumi config set --path 'eks.zones[0]' ${region || "us-west-2"}a\` and '[1]' ${region || "us-west-2"}b; or existing subnets in eks.privateSubnetIds`, undefined);
    } else if (zones.length < 2 || zones.length > 6) {
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
    if (!ECR_PREFIX.test(repositoryPrefix)) {
        r.fail("repositoryPrefix", "must be a lowercase ECR repository path such as \"tf-serving\" or \"team/models\"");
    }
    return {
        repositoryPrefix,
        keepImages: r.int("keepImages", 10, { min: 1, max: 1000 }),
        forceDelete: r.bool("forceDelete", false),
    };
}
