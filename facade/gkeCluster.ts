/**
 * `GkeCluster` for every Pulumi language: the library's `GkeCluster` (components/gke/cluster.ts)
 * with named enums for the release channel, disk type and GPU driver. Its Kubernetes provider is not
 * an output: a program makes its own from `kubeconfig` (docs/guides/other-languages.md).
 */
import * as pulumi from "@pulumi/pulumi";
import * as library from "../lib/gke";
import { BootDiskType, GpuDriverVersion, ReleaseChannel } from "./enums";
import { oneOf } from "./values";

const DRIVER_VERSIONS: readonly library.GkeGpuPoolSettings["driverVersion"][] = ["DEFAULT", "LATEST"];

/** A GKE node pool (autoscaled between `minNodes` and `maxNodes`). */
export interface GkeNodePool {
    /** Compute Engine machine type, e.g. `e2-standard-4` (x86 only: TF Serving has no arm64 image). */
    machineType: string;
    /** Fewest nodes across the pool's zones (0 lets a GPU pool scale to nothing). */
    minNodes: number;
    /** Most nodes across the pool's zones. */
    maxNodes: number;
    /** Boot disk size in GB; the serving image is pulled onto it. */
    diskSizeGb: number;
    /** Boot disk type. Default: one the machine type supports, picked by GKE. */
    diskType?: BootDiskType;
    /** Spot VMs: cheaper, reclaimable at any time. */
    spot: boolean;
}

/** A GKE GPU node pool. */
export interface GkeGpuPool extends GkeNodePool {
    /** GKE accelerator type, e.g. `nvidia-l4`. */
    acceleratorType: string;
    /** GPUs per node (at least 1). */
    acceleratorCount: number;
    /** NVIDIA driver GKE installs; changing it replaces the pool. */
    driverVersion: GpuDriverVersion;
}

export interface GkeClusterArgs {
    /** Google Cloud project id. */
    project: string;
    /** Region of the regional cluster, e.g. `us-central1`. */
    region: string;
    /** Zones the node pools use. Default: GKE picks. */
    zones?: string[];
    /** GKE cluster name (1-40 characters: lowercase letters, digits, '-'). */
    clusterName: string;
    /** Release channel. Default `REGULAR`. */
    releaseChannel?: ReleaseChannel;
    /** GKE refuses to delete the cluster while true. Default true. */
    deletionProtection?: boolean;
    /** Nodes without external IPs (egress through Cloud NAT). Default false. */
    privateNodes?: boolean;
    /** Primary range of the node subnetwork. Default `10.0.0.0/20`. */
    subnetCidr?: string;
    /** The control plane's /28 range, with `privateNodes`. Default `172.16.0.0/28`. */
    masterCidr?: string;
    /** CIDRs allowed to reach the Kubernetes API. Default any address (still authenticated). */
    apiAccessCidrs?: string[];
    /** The pool every CPU model and add-on runs on. */
    cpuPool: GkeNodePool;
    /** A GPU pool (tainted by GKE, which runs the device plugin itself). Default none. */
    gpuPool?: GkeGpuPool;
    /** Managed Service for Prometheus' managed collection. Default true. */
    managedPrometheus?: boolean;
    /** The Custom Metrics Stackdriver Adapter's image, pinned by digest: installs the adapter (request-rate autoscaling). Default none. */
    customMetricsAdapterImage?: string;
}

function pool(value: GkeNodePool, where: string): library.GkeNodePoolSettings {
    return {
        machineType: value.machineType, minNodes: value.minNodes, maxNodes: value.maxNodes, diskSizeGb: value.diskSizeGb, spot: value.spot,
        diskType: value.diskType === undefined ? undefined : oneOf(value.diskType, library.GKE_BOOT_DISK_TYPES, `${where} diskType`),
    };
}

/** The library's arguments for these. */
export function toGkeClusterArgs(name: string, args: GkeClusterArgs): library.GkeClusterArgs {
    const where = `GkeCluster "${name}"`;
    const gpuPool = args.gpuPool === undefined ? undefined : {
        ...pool(args.gpuPool, `${where} gpuPool`),
        acceleratorType: args.gpuPool.acceleratorType,
        acceleratorCount: args.gpuPool.acceleratorCount,
        driverVersion: oneOf(args.gpuPool.driverVersion, DRIVER_VERSIONS, `${where} gpuPool.driverVersion`),
    };
    return {
        project: args.project,
        region: args.region,
        zones: args.zones,
        clusterName: args.clusterName,
        releaseChannel: args.releaseChannel === undefined ? undefined : oneOf(args.releaseChannel, library.GKE_RELEASE_CHANNELS, `${where} releaseChannel`),
        deletionProtection: args.deletionProtection,
        privateNodes: args.privateNodes,
        subnetCidr: args.subnetCidr,
        masterCidr: args.masterCidr,
        apiAccessCidrs: args.apiAccessCidrs,
        cpuPool: pool(args.cpuPool, `${where} cpuPool`),
        gpuPool,
        managedPrometheus: args.managedPrometheus,
        customMetricsAdapter: args.customMetricsAdapterImage === undefined ? undefined : { image: args.customMetricsAdapterImage },
    };
}

/** A regional GKE cluster with a CPU pool and an optional GPU pool, its network and node service account. */
export class GkeCluster extends pulumi.ComponentResource {
    /** The cluster's name. */
    readonly clusterName: pulumi.Output<string>;
    /** A kubeconfig for the cluster (gke-gcloud-auth-plugin credentials), secret. */
    readonly kubeconfig: pulumi.Output<string>;
    /** The nodes' service account: grant it pull access to your registry. */
    readonly nodeServiceAccountEmail: pulumi.Output<string>;

    constructor(name: string, args: GkeClusterArgs, opts?: pulumi.ComponentResourceOptions) {
        // Mapped before anything is registered: a refused argument registers nothing.
        const libraryArgs = toGkeClusterArgs(name, args);
        super("tf-serving:index:GkeCluster", name, {}, opts);
        const cluster = new library.GkeCluster(name, libraryArgs, { parent: this });
        this.clusterName = cluster.clusterName;
        this.kubeconfig = pulumi.secret(cluster.kubeconfig);
        this.nodeServiceAccountEmail = cluster.nodeServiceAccountEmail;
        this.registerOutputs({ clusterName: this.clusterName, kubeconfig: this.kubeconfig, nodeServiceAccountEmail: this.nodeServiceAccountEmail });
    }
}
