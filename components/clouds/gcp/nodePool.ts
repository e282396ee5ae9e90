/**
 * GKE node pool settings and the `gcp.container.NodePool` arguments they turn into (pure: tested
 * without Pulumi mocks). GPU pools get their accelerator and driver from GKE itself; GKE also taints
 * GPU nodes `nvidia.com/gpu=present:NoSchedule` and runs the NVIDIA device plugin, so nothing here
 * adds a taint or a device plugin.
 */
import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { PoolKind, poolLabels } from "../../nodePlacement";

/** Node boot disk types GKE accepts. */
export const GKE_BOOT_DISK_TYPES = ["pd-balanced", "pd-standard", "pd-ssd", "hyperdisk-balanced"] as const;
export type GkeBootDiskType = (typeof GKE_BOOT_DISK_TYPES)[number];

export interface GkeNodePoolSettings {
    /** Compute Engine machine type, e.g. `e2-standard-4`. x86 only: TF Serving has no arm64 image. */
    machineType: string;
    /** Fewest nodes across all the pool's zones; the autoscaler keeps at least this many. 0 lets a GPU pool scale to nothing while no GPU pod is pending. */
    minNodes: number;
    /** Most nodes across all the pool's zones. */
    maxNodes: number;
    /** Boot disk size in GB; the serving image (model included) is pulled onto it. */
    diskSizeGb: number;
    /**
     * Boot disk type. Undefined lets GKE pick one the machine type supports: a Persistent Disk on most
     * series, Hyperdisk Balanced on the Hyperdisk-only ones (C4, N4, A3 Ultra, ...), which refuse `pd-*`.
     */
    diskType?: GkeBootDiskType;
    /** Spot VMs: much cheaper, reclaimable at any time (replicas >= 2 and the PodDisruptionBudget soften that). */
    spot: boolean;
}

export interface GkeGpuPoolSettings extends GkeNodePoolSettings {
    /** GKE accelerator type, e.g. `nvidia-l4` or `nvidia-tesla-t4`; also the value of the node label `cloud.google.com/gke-accelerator`. */
    acceleratorType: string;
    /** GPUs per node (>= 1); a model's `gpuCount` must fit in it. */
    acceleratorCount: number;
    /** NVIDIA driver GKE installs: `DEFAULT` or `LATEST` for the node version. Changing it replaces the pool. */
    driverVersion: "DEFAULT" | "LATEST";
}

export interface NodePoolPlacement {
    /** The cluster's name or id. */
    cluster: pulumi.Input<string>;
    /** The cluster's location (its region). */
    location: string;
    project: string;
    /** Email of the node service account. */
    serviceAccount: pulumi.Input<string>;
    /** Zones the nodes run in: the configured ones, or the cluster's default node locations (the zones GKE picked). */
    zones: pulumi.Input<string[]>;
}

/** The node service account reaches everything through IAM, so the scope is the broad one Google recommends. */
export const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";

/** Arguments for a CPU or GPU node pool. */
export function nodePoolArgs(kind: PoolKind, settings: GkeNodePoolSettings | GkeGpuPoolSettings, at: NodePoolPlacement): gcp.container.NodePoolArgs {
    const gpu = kind === "gpu" ? (settings as GkeGpuPoolSettings) : undefined;
    return {
        cluster: at.cluster,
        location: at.location,
        project: at.project,
        nodeLocations: at.zones,
        // Per zone, at creation only (ignored afterwards, see `ignoreChanges` in GkeCluster): the autoscaler owns the count.
        initialNodeCount: settings.minNodes > 0 ? 1 : 0,
        autoscaling: {
            totalMinNodeCount: settings.minNodes,
            totalMaxNodeCount: settings.maxNodes,
            // GPUs are scarce: take them in any zone that has them; spread CPU nodes evenly.
            locationPolicy: gpu ? "ANY" : "BALANCED",
        },
        management: { autoRepair: true, autoUpgrade: true },
        upgradeSettings: { maxSurge: 1, maxUnavailable: 0 },
        nodeConfig: {
            machineType: settings.machineType,
            diskSizeGb: settings.diskSizeGb,
            diskType: settings.diskType,
            spot: settings.spot,
            serviceAccount: at.serviceAccount,
            oauthScopes: [CLOUD_PLATFORM_SCOPE],
            labels: poolLabels(kind),
            workloadMetadataConfig: { mode: "GKE_METADATA" },
            guestAccelerators: gpu && [{
                type: gpu.acceleratorType,
                count: gpu.acceleratorCount,
                gpuDriverInstallationConfig: { gpuDriverVersion: gpu.driverVersion },
            }],
        },
    };
}
