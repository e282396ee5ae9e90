/**
 * `EksCluster` for every Pulumi language: the library's `EksCluster` (components/eks/cluster.ts) with
 * its network's discriminated union as one interface and a `kind` enum (the schema carries no
 * unions), checked here field by field. Its Kubernetes provider is not an output: a program makes
 * its own from `kubeconfig`.
 */
import * as pulumi from "@pulumi/pulumi";
import * as library from "../lib/eks";
import { CapacityType, NatGateways, NetworkKind, SubnetScheme } from "./enums";
import { oneOf } from "./values";

const DOCS = "docs/guides/other-languages.md#arguments";

/** An EKS managed node group. */
export interface EksNodeGroup {
    /** EC2 instance type, e.g. `m6i.xlarge` or `g5.xlarge` (x86 only). */
    instanceType: string;
    /** Nodes EKS keeps running (with `clusterAutoscaler`, the size at creation). */
    desiredNodes: number;
    /** Lower bound of the group. */
    minNodes: number;
    /** Upper bound of the group. */
    maxNodes: number;
    /** Root volume in GiB. */
    diskSizeGb: number;
    /** On-demand or spot capacity. */
    capacityType: CapacityType;
}

/**
 * The cluster's network. `create`: a VPC made here (`cidr`, `zones`, `natGateways`; `subnetScheme` and
 * `clusterZones` optional). `existing`: your subnets (`privateSubnetIds`, `publicSubnetIds`).
 */
export interface EksNetwork {
    /** Create a VPC or use existing subnets. */
    kind: NetworkKind;
    /** `create`: the VPC range, e.g. `10.0.0.0/16`. */
    cidr?: string;
    /** `create`: availability zones (at least two). */
    zones?: string[];
    /** `create`: NAT gateways. */
    natGateways?: NatGateways;
    /** `create`: how the range is carved. Default `slots`. */
    subnetScheme?: SubnetScheme;
    /** `create`: the zones the control plane uses. Default all of `zones`. */
    clusterZones?: string[];
    /** `existing`: subnets for the nodes, in at least two zones. */
    privateSubnetIds?: string[];
    /** `existing`: subnets for internet-facing load balancers. */
    publicSubnetIds?: string[];
}

export interface EksClusterArgs {
    /** AWS region, e.g. `us-west-2`. */
    region: string;
    /** AWS CLI profile for `aws eks get-token`. Default: the ambient credentials. */
    profile?: string;
    /** EKS cluster name. */
    clusterName: string;
    /** Kubernetes minor version, e.g. `1.35`. Default: EKS's default. */
    kubernetesVersion?: string;
    /** EKS refuses to delete the cluster while true. Default true. */
    deletionProtection?: boolean;
    /** The cluster's network. */
    network: EksNetwork;
    /** CIDRs allowed to reach the Kubernetes API. Default any address (still authenticated). */
    apiAccessCidrs?: string[];
    /** IAM role or user ARNs given cluster-admin access entries: every identity that runs `pulumi up`. */
    adminPrincipalArns: string[];
    /** The node group every CPU model and add-on runs on. */
    cpuNodeGroup: EksNodeGroup;
    /** A GPU node group (NVIDIA AMI, tainted), with NVIDIA's device plugin. Default none. */
    gpuNodeGroup?: EksNodeGroup;
    /** Install the metrics-server add-on (an HPA needs it). Default false. */
    metricsServer?: boolean;
    /** Install the AWS Load Balancer Controller (the Gateway API on EKS). Default false. */
    loadBalancerController?: boolean;
    /** With `loadBalancerController`: a GatewayClass of its ALBs by this name. */
    gatewayClassName?: string;
    /** Install the Cluster Autoscaler. Default false. */
    clusterAutoscaler?: boolean;
}

function nodeGroup(value: EksNodeGroup, where: string): library.EksNodeGroupSettings {
    return { ...value, capacityType: oneOf(value.capacityType, library.CAPACITY_TYPES, `${where} capacityType`) };
}

/** The library's network for the facade's: the fields of its kind, and none of the other kind's. */
export function eksNetwork(network: EksNetwork, where: string): library.EksNetworkSettings {
    const kind = oneOf(network.kind, ["create", "existing"] as const, `${where} kind`);
    const fields: Record<typeof kind, (keyof EksNetwork)[]> = {
        create: ["cidr", "zones", "natGateways", "subnetScheme", "clusterZones"],
        existing: ["privateSubnetIds", "publicSubnetIds"],
    };
    const other = kind === "create" ? "existing" : "create";
    const stray = fields[other].filter((f) => network[f] !== undefined);
    if (stray.length > 0) {
        throw new pulumi.RunError(`${where}: ${stray.join(", ")} only go with kind ${other}, and this network is kind ${kind}; remove them (see ${DOCS})`);
    }
    const required = (field: keyof EksNetwork) => {
        const value = network[field];
        if (value === undefined) {
            throw new pulumi.RunError(`${where}: kind ${kind} needs ${field} (see ${DOCS})`);
        }
        return value;
    };
    if (kind === "existing") {
        return { kind, privateSubnetIds: required("privateSubnetIds") as string[], publicSubnetIds: required("publicSubnetIds") as string[] };
    }
    return {
        kind,
        cidr: required("cidr") as string,
        zones: required("zones") as string[],
        natGateways: oneOf(required("natGateways") as string, library.NAT_GATEWAY_MODES, `${where} natGateways`),
        subnetScheme: network.subnetScheme === undefined ? undefined : oneOf(network.subnetScheme, library.SUBNET_SCHEMES, `${where} subnetScheme`),
        clusterZones: network.clusterZones,
    };
}

/** The library's arguments for these. */
export function toEksClusterArgs(name: string, args: EksClusterArgs): library.EksClusterArgs {
    const where = `EksCluster "${name}"`;
    if (args.gatewayClassName !== undefined && args.loadBalancerController !== true) {
        throw new pulumi.RunError(`${where}: gatewayClassName needs loadBalancerController: true (see ${DOCS})`);
    }
    return {
        region: args.region,
        profile: args.profile,
        clusterName: args.clusterName,
        kubernetesVersion: args.kubernetesVersion,
        deletionProtection: args.deletionProtection,
        network: eksNetwork(args.network, `${where} network`),
        apiAccessCidrs: args.apiAccessCidrs,
        adminPrincipalArns: args.adminPrincipalArns,
        cpuNodeGroup: nodeGroup(args.cpuNodeGroup, `${where} cpuNodeGroup`),
        gpuNodeGroup: args.gpuNodeGroup === undefined ? undefined : nodeGroup(args.gpuNodeGroup, `${where} gpuNodeGroup`),
        metricsServer: args.metricsServer,
        loadBalancerController: args.loadBalancerController === true ? { gatewayClassName: args.gatewayClassName } : undefined,
        clusterAutoscaler: args.clusterAutoscaler,
    };
}

/** An EKS cluster with a CPU node group and an optional GPU node group, its VPC or your subnets, and its add-ons. */
export class EksCluster extends pulumi.ComponentResource {
    /** The cluster's name. */
    readonly clusterName: pulumi.Output<string>;
    /** The control plane's Kubernetes version. */
    readonly kubernetesVersion: pulumi.Output<string>;
    /** A kubeconfig for the cluster (`aws eks get-token` credentials), secret. */
    readonly kubeconfig: pulumi.Output<string>;

    constructor(name: string, args: EksClusterArgs, opts?: pulumi.ComponentResourceOptions) {
        // Mapped before anything is registered: a refused argument registers nothing.
        const libraryArgs = toEksClusterArgs(name, args);
        super("tf-serving:index:EksCluster", name, {}, opts);
        const cluster = new library.EksCluster(name, libraryArgs, { parent: this });
        this.clusterName = cluster.clusterName;
        this.kubernetesVersion = cluster.kubernetesVersion;
        this.kubeconfig = pulumi.secret(cluster.kubeconfig);
        this.registerOutputs({ clusterName: this.clusterName, kubernetesVersion: this.kubernetesVersion, kubeconfig: this.kubeconfig });
    }
}
