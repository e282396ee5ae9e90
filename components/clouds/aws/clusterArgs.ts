/**
 * `EksCluster`'s resolver, pure: its Args with every default filled in, and every value EKS, EC2 or
 * TF Serving would refuse, keyed by field path. `EksCluster` throws what it finds before it registers
 * anything; the `eks` config section maps its keys onto these fields and records the issues under
 * them (`components/argsIssues.ts`).
 */
import type { PoolKind } from "../../nodePlacement";
import type { PrometheusEndpoint } from "./prometheusAdapter";
import type { NatGatewayMode, SubnetScheme } from "./vpc";
import { DIGEST_PINNED_IMAGE } from "../../../contract/registry";
import type { ArgsIssue } from "../../argsIssues";
import {
    FieldKey, NO_ARM64, firstPerField, ipv4ListIssues, nodeBoundsIssues, oneOfIssue, sameField, wholeNumberIssue,
} from "../../clusterRules";
import { eksClusterIssues } from "./clusterChecks";
import { NVIDIA_GPU_FAMILIES, instanceSizeProblem, isAcceleratedInstanceType, isArm64InstanceType, isNvidiaGpuInstanceType } from "./instanceTypes";
import { NEWEST_EKS_VERSION, eksKubernetesVersionProblem, utcDay } from "./kubernetesVersions";
import { CAPACITY_TYPES, EksNodeGroupSettings } from "./nodeGroup";
import { EKS_CLUSTER_NAME, EKS_ZONES, vpcIssues } from "./vpc";
import { AWS_REGION, awsRegionIssue } from "./partition";

/** Either a VPC this component creates, or subnets that already exist (tagged for load balancers by their owner). */
export type EksNetworkSettings =
    | {
        kind: "create";
        /** VPC range, e.g. `10.0.0.0/16`. */
        cidr: string;
        /** Availability zones (at least two), e.g. `us-west-2a`, `us-west-2b`. */
        zones: string[];
        natGateways: NatGatewayMode;
        /** How the range is carved into subnets (`subnetLayout`); default `slots`, a fixed slot per zone. */
        subnetScheme?: SubnetScheme;
        /**
         * The zones whose subnets the control plane uses: the zones it was created with (EKS accepts no
         * others); zones appended later serve the nodes and load balancers only. Default: all of `zones`.
         */
        clusterZones?: string[];
    }
    | {
        kind: "existing";
        /** Subnets for the nodes (with a route to a NAT or ECR endpoints), in at least two zones. */
        privateSubnetIds: string[];
        /** Subnets for internet-facing load balancers (tagged `kubernetes.io/role/elb=1`). */
        publicSubnetIds: string[];
    };

export interface EksClusterArgs {
    /** AWS region, e.g. `us-west-2`; also written into the kubeconfig's `aws eks get-token`. */
    region: string;
    /** AWS CLI profile for `aws eks get-token`; undefined means the ambient credentials. */
    profile?: string;
    /** EKS cluster name (also used in subnet tags and resource names). */
    clusterName: string;
    /**
     * Kubernetes minor version, e.g. `1.35`; undefined means EKS's default for a new cluster and the
     * running version for an existing one. Node groups and add-ons follow the control plane's version.
     */
    kubernetesVersion?: string;
    /** When true, EKS refuses to delete the cluster until it is set to false and applied. Default true. */
    deletionProtection?: boolean;
    /**
     * `create`: an `EksVpc` (public and private subnets per zone, NAT) made here. `existing`: your
     * subnets, tagged for load balancers and routed to the internet (NAT) or to ECR endpoints.
     */
    network: EksNetworkSettings;
    /** CIDRs allowed to reach the public Kubernetes API endpoint (`pulumi up` runs from one of them). Default `["0.0.0.0/0"]`: any address (still authenticated). */
    apiAccessCidrs?: string[];
    /**
     * IAM role or user ARNs (roles with their path, never STS session ARNs) given cluster-admin access
     * entries, one per principal and named after it; list every identity that runs `pulumi up`.
     */
    adminPrincipalArns: string[];
    /**
     * The IAM role or user running Pulumi, when known (one of `adminPrincipalArns`). Its entry adopts the
     * single `ADMIN-deployer` entry earlier versions made for whoever ran last, instead of creating a
     * second entry for the same principal (which EKS refuses).
     */
    callerArn?: string;
    /** The node group every CPU model and cluster add-on runs on. */
    cpuNodeGroup: EksNodeGroupSettings;
    /** Optional GPU node group (NVIDIA AMI, tainted `nvidia.com/gpu`), for models with GPUs (`ModelServer` `placement`: this cluster's `placement.gpu`); brings NVIDIA's device plugin. Default: none. */
    gpuNodeGroup?: EksNodeGroupSettings;
    /** Device plugin image override (e.g. a mirror), pinned by digest (`NAME@sha256:...`); only with `gpuNodeGroup`. Default the pinned NVIDIA release (`NVIDIA_DEVICE_PLUGIN_IMAGE`). */
    devicePluginImage?: string;
    /** Install the metrics-server add-on, which an HPA needs and EKS does not install; default false. The EKS stack sets it when a model autoscales. */
    metricsServer?: boolean;
    /**
     * Install the AWS Load Balancer Controller (the Gateway API on EKS: ALBs for Gateways) with its IAM
     * role through EKS Pod Identity, and the Pod Identity agent add-on; with `gatewayClassName`, also a
     * GatewayClass of the controller's ALBs by that name. Default none. The EKS stack sets it with
     * `endpoint: gateway`.
     */
    loadBalancerController?: { gatewayClassName?: string };
    /**
     * Install the Cluster Autoscaler (`clusterAutoscaler.ts`) with its IAM role through EKS Pod Identity
     * (and the Pod Identity agent add-on): the node groups then scale between their `minNodes` and
     * `maxNodes` (the GPU group down to zero when idle, up when a GPU pod is pending), carry its
     * discovery tags, and `desiredNodes` is their size at creation only. Default false: the groups stay
     * at `desiredNodes`, with their inputs as before this option existed.
     */
    clusterAutoscaler?: boolean;
    /**
     * With `clusterAutoscaler`: the live desired size of each group whose `minNodes` or `maxNodes` this update
     * changes, read from EKS before it (`autoscaledSize`): that size, moved into the new bounds, is what the
     * update sends. A group not listed keeps its live size (`ignoreChanges`). Default none.
     */
    liveDesiredSizes?: Partial<Record<PoolKind, number>>;
    /**
     * Install prometheus-adapter (`prometheusAdapter.ts`) over this Prometheus, so a request-rate HPA
     * reads the model pods' inference rate. Default none; the EKS stack sets it from `eks.prometheusUrl`
     * when a model has `targetRequestsPerSecond`.
     */
    prometheusAdapter?: { prometheus: PrometheusEndpoint };
}

/** What `EksCluster` sets for a field its Args leave out: also the `eks` config section's defaults. */
export const EKS_CLUSTER_DEFAULTS: { readonly deletionProtection: boolean; readonly apiAccessCidrs: readonly string[] } = Object.freeze({
    deletionProtection: true,
    apiAccessCidrs: Object.freeze(["0.0.0.0/0"]),
});

/** `EksClusterArgs` with every default filled in. */
export type ResolvedEksClusterArgs = EksClusterArgs & { deletionProtection: boolean; apiAccessCidrs: string[] };

export { AWS_REGION };
const INSTANCE_TYPE = /^[a-z][a-z0-9-]*\.[a-z0-9]+(-[a-z0-9]+)?$/;
const SUBNET_ID = /^subnet-([0-9a-f]{8}|[0-9a-f]{17})$/;
const IAM_PRINCIPAL = /^arn:aws[a-z-]*:iam::[0-9]{12}:(role|user)\/[\w+=,.@/-]+$/;
const STS_SESSION = /^arn:(aws[a-z-]*):sts::([0-9]{12}):assumed-role\/([^/]+)\/.+$/;

export { EKS_ZONES };

export interface EksClusterResolveOptions {
    /** Names another field in a message; default the field itself. */
    key?: FieldKey;
    /** Today (UTC, YYYY-MM-DD), for the versions EKS creates clusters on; default the clock's. */
    today?: string;
    /**
     * Leave a missing `adminPrincipalArns` to the caller: the `eks` config section checks it against the
     * identity running Pulumi later (`adminAccessIssues`), so its message can name that identity.
     */
    adminsCheckedLater?: boolean;
}

/** What `resolveEksClusterArgs` returns: the settings `EksCluster` builds from, and what is wrong with them. */
export interface EksClusterResolution {
    args: ResolvedEksClusterArgs;
    issues: ArgsIssue[];
}


/** `given` resolved: its defaults (`EKS_CLUSTER_DEFAULTS`) and its issues, at most one per field. */
export function resolveEksClusterArgs(given: EksClusterArgs, options: EksClusterResolveOptions = {}): EksClusterResolution {
    const key = options.key ?? sameField;
    const args: ResolvedEksClusterArgs = {
        ...given,
        deletionProtection: given.deletionProtection ?? EKS_CLUSTER_DEFAULTS.deletionProtection,
        apiAccessCidrs: given.apiAccessCidrs ?? [...EKS_CLUSTER_DEFAULTS.apiAccessCidrs],
    };
    const issues: ArgsIssue[] = [];
    const push = (issue: ArgsIssue | undefined) => issue && issues.push(issue);
    const region = args.region ?? "";
    push(awsRegionIssue("region", args.region));
    if (!EKS_CLUSTER_NAME.test(args.clusterName ?? "")) {
        push({ field: "clusterName", value: args.clusterName, message: "must be 1-100 letters, digits, '-' and '_', starting with a letter or digit" });
    }
    if (args.kubernetesVersion !== undefined) {
        push(kubernetesVersionIssue(args.kubernetesVersion, options.today ?? utcDay()));
    }
    issues.push(...ipv4ListIssues("apiAccessCidrs", given.apiAccessCidrs));
    if (args.adminPrincipalArns === undefined && !options.adminsCheckedLater) {
        push({
            field: "adminPrincipalArns", value: undefined,
            message: "is required: list the IAM roles or users that administer the cluster (each gets its own access entry), including the identity running Pulumi and CI's",
        });
    }
    (args.adminPrincipalArns ?? []).forEach((arn, i) => push(principalIssue(`adminPrincipalArns[${i}]`, arn)));
    issues.push(...networkIssues(args.network, region, key));
    issues.push(...groupIssues("cpuNodeGroup", args.cpuNodeGroup, 1, key));
    if (args.gpuNodeGroup !== undefined) {
        issues.push(...groupIssues("gpuNodeGroup", args.gpuNodeGroup, 0, key));
    }
    if (args.devicePluginImage !== undefined) {
        if (args.gpuNodeGroup === undefined) {
            push({ field: "devicePluginImage", value: args.devicePluginImage, message: `applies only with ${key("gpuNodeGroup")}` });
        } else if (!DIGEST_PINNED_IMAGE.test(args.devicePluginImage)) {
            push({
                field: "devicePluginImage", value: args.devicePluginImage,
                message: "must be pinned by digest, e.g. \"mirror.example/k8s-device-plugin:v0.17.1@sha256:<64 hex digits>\" " +
                    "(`docker buildx imagetools inspect IMAGE` prints it): a tag can be moved, and the policy pack refuses unpinned images",
            });
        }
    }
    issues.push(...eksClusterIssues({ adminPrincipalArns: args.adminPrincipalArns, apiAccessCidrs: given.apiAccessCidrs, callerArn: args.callerArn }, key));
    return { args, issues: firstPerField(issues) };
}

/** Why EKS would not create a cluster on `version` today, as an issue. */
function kubernetesVersionIssue(version: string, today: string): ArgsIssue | undefined {
    if (!/^1\.[0-9]{2}$/.test(version)) {
        return { field: "kubernetesVersion", value: version, message: `must be a Kubernetes minor version such as "${NEWEST_EKS_VERSION}" (no patch, no "v")` };
    }
    const problem = eksKubernetesVersionProblem(version, today);
    return problem === undefined ? undefined : { field: "kubernetesVersion", value: version, message: problem };
}

/** An IAM role or user ARN, as an access entry names a principal; an STS session ARN names its role. */
function principalIssue(field: string, arn: string): ArgsIssue | undefined {
    const session = STS_SESSION.exec(arn);
    if (session) {
        return {
            field, value: arn,
            message: `is an STS session ARN, which changes with every session; use the role ARN arn:${session[1]}:iam::${session[2]}:role/${session[3]} ` +
                "(with the role's path if it has one, e.g. aws-reserved/sso.amazonaws.com/ for SSO roles: `pulumi preview` names the exact ARN)",
        };
    }
    return IAM_PRINCIPAL.test(arn) ? undefined : { field, value: arn, message: "must be an IAM role or user ARN such as arn:aws:iam::123456789012:role/deployer" };
}

/** The VPC made here (zones of the region, two to six; a range the subnets fit in) or the subnets given (two or more). */
function networkIssues(network: EksNetworkSettings, region: string, key: FieldKey): ArgsIssue[] {
    const issues: ArgsIssue[] = [];
    const push = (issue: ArgsIssue | undefined) => issue && issues.push(issue);
    if (network.kind === "existing") {
        const subnetIssue = (field: string) => (id: string, i: number) =>
            push(SUBNET_ID.test(id) ? undefined : { field: `network.${field}[${i}]`, value: id, message: "must be a subnet id such as subnet-0123456789abcdef0" });
        (network.privateSubnetIds ?? []).forEach(subnetIssue("privateSubnetIds"));
        (network.publicSubnetIds ?? []).forEach(subnetIssue("publicSubnetIds"));
        if ((network.privateSubnetIds ?? []).length < 2) {
            push({ field: "network.privateSubnetIds", value: network.privateSubnetIds, message: "must list at least two subnets, in different availability zones (EKS requires two zones)" });
        }
        return issues;
    }
    issues.push(...vpcIssues("network.", network, region, key));
    (network.clusterZones ?? []).forEach((zone, i) => push((network.zones ?? []).includes(zone) ? undefined : {
        field: `network.clusterZones[${i}]`, value: zone, message: `is not one of ${key("network.zones")}: the control plane's zones are some of the VPC's`,
    }));
    return issues;
}

/** A node group (under `at`): an x86 type of the right kind (NVIDIA for the GPU group), bounds, size, disk, capacity type. */
function groupIssues(at: "cpuNodeGroup" | "gpuNodeGroup", group: EksNodeGroupSettings, floor: number, key: FieldKey): ArgsIssue[] {
    const issues: ArgsIssue[] = [];
    const push = (issue: ArgsIssue | undefined) => issue && issues.push(issue);
    const instanceType = group.instanceType ?? "";
    const field = `${at}.instanceType`;
    if (!INSTANCE_TYPE.test(instanceType)) {
        push({ field, value: instanceType, message: "must be an EC2 instance type such as \"m6i.xlarge\"" });
    } else if (isArm64InstanceType(instanceType)) {
        push({ field, value: instanceType, message: `${NO_ARM64} such as "m6i.xlarge" (CPU) or "g5.xlarge" (GPU)` });
    } else if (instanceSizeProblem(instanceType) !== undefined) {
        push({ field, value: instanceType, message: instanceSizeProblem(instanceType) ?? "" });
    } else if (at === "cpuNodeGroup" && isAcceleratedInstanceType(instanceType)) {
        push({ field, value: instanceType, message: `is an accelerated (GPU) type; the CPU node group should be a general-purpose type such as "m6i.xlarge", with GPUs in ${key("gpuNodeGroup")}` });
    } else if (at === "gpuNodeGroup" && !isNvidiaGpuInstanceType(instanceType)) {
        push({
            field, value: instanceType,
            message: `must be an NVIDIA GPU instance type (families ${NVIDIA_GPU_FAMILIES.join(", ")}), such as "g4dn.xlarge" or "g5.xlarge"; TF Serving's GPU image needs CUDA`,
        });
    }
    const bounds = nodeBoundsIssues(at, group, floor, key);
    issues.push(...bounds);
    const desired = wholeNumberIssue(`${at}.desiredNodes`, group.desiredNodes, 0, 1000);
    if (desired !== undefined) {
        issues.push(desired);
    } else if (bounds.length === 0 && (group.desiredNodes < group.minNodes || group.desiredNodes > group.maxNodes)) {
        push({
            field: `${at}.desiredNodes`, value: group.desiredNodes,
            message: `must be between ${key(`${at}.minNodes`)} (${group.minNodes}) and ${key(`${at}.maxNodes`)} (${group.maxNodes})`,
        });
    }
    push(wholeNumberIssue(`${at}.diskSizeGb`, group.diskSizeGb, 20, 16384));
    push(oneOfIssue(`${at}.capacityType`, group.capacityType, CAPACITY_TYPES));
    return issues;
}
