/**
 * EKS managed node group settings and the `aws.eks.NodeGroup` arguments they turn into (pure:
 * tested without Pulumi mocks). Both groups run Amazon Linux 2023 on x86; the GPU group uses the
 * NVIDIA AMI (driver and container toolkit, but not the device plugin) and is tainted so that only
 * pods tolerating `nvidia.com/gpu` land there.
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import { GPU_TAINT_KEY, PoolKind, poolLabels } from "../../nodePlacement";

export const CAPACITY_TYPES = ["ON_DEMAND", "SPOT"] as const;
export type CapacityType = (typeof CAPACITY_TYPES)[number];

export interface EksNodeGroupSettings {
    /** EC2 instance type, e.g. `m6i.xlarge` (CPU) or `g5.xlarge` (GPU). x86 only: TF Serving has no arm64 image. */
    instanceType: string;
    /**
     * Nodes EKS keeps running: the group's size, or with the Cluster Autoscaler (`eks.clusterAutoscaler`)
     * its size at creation only (the autoscaler owns it afterwards).
     */
    desiredNodes: number;
    /** Lower bound of the group: the Cluster Autoscaler never goes below it (0 lets the GPU group scale to nothing). */
    minNodes: number;
    /** Upper bound of the group: the Cluster Autoscaler never goes above it. */
    maxNodes: number;
    /** Root volume in GiB; the serving image (model included) is pulled onto it. */
    diskSizeGb: number;
    /** `ON_DEMAND` or `SPOT` (cheaper, reclaimable). */
    capacityType: CapacityType;
}

export const AMI_TYPES: Record<PoolKind, string> = {
    cpu: "AL2023_x86_64_STANDARD",
    gpu: "AL2023_x86_64_NVIDIA",
};

export interface NodeGroupPlacement {
    clusterName: pulumi.Input<string>;
    nodeRoleArn: pulumi.Input<string>;
    /** Private subnets the nodes run in. */
    subnetIds: pulumi.Input<string>[];
    /**
     * The control plane's Kubernetes version (the cluster's `version` output). EKS leaves a node group
     * without it on its version when the control plane moves, and then refuses the next control plane
     * upgrade while the nodes lag behind; with it, a bump rolls the nodes right after the control plane.
     */
    kubernetesVersion: pulumi.Input<string>;
    /** Tags of the node group (the Cluster Autoscaler's discovery tags, `autoscalerDiscoveryTags`); default none, as before they existed. */
    tags?: Record<string, string>;
    /** Node labels beside the pool's (the GPU nodes' `ACCELERATOR_LABEL` for the Cluster Autoscaler); default none. */
    extraLabels?: Record<string, string>;
}

/** Arguments for the CPU or GPU managed node group. */
export function nodeGroupArgs(kind: PoolKind, settings: EksNodeGroupSettings, at: NodeGroupPlacement): aws.eks.NodeGroupArgs {
    return {
        clusterName: at.clusterName,
        nodeRoleArn: at.nodeRoleArn,
        subnetIds: at.subnetIds,
        version: at.kubernetesVersion,
        amiType: AMI_TYPES[kind],
        instanceTypes: [settings.instanceType],
        capacityType: settings.capacityType,
        diskSize: settings.diskSizeGb,
        scalingConfig: { desiredSize: settings.desiredNodes, minSize: settings.minNodes, maxSize: settings.maxNodes },
        updateConfig: { maxUnavailable: 1 },
        labels: { ...poolLabels(kind), ...at.extraLabels },
        taints: kind === "gpu" ? [{ key: GPU_TAINT_KEY, value: "true", effect: "NO_SCHEDULE" }] : undefined,
        ...(at.tags ? { tags: at.tags } : {}),
    };
}

/**
 * A managed node group's bounds and size as the stack's last checkpoint recorded them (the NodeGroup's
 * outputs), and the names that find it in EKS.
 */
export interface RecordedNodeGroup {
    clusterName: string;
    nodeGroupName: string;
    minSize?: number;
    maxSize?: number;
}

/** The desired size an update of a group the Cluster Autoscaler sizes sends, and whether the engine keeps the last one sent instead. */
export interface AutoscaledSize {
    desiredSize: number;
    /**
     * True: `ignoreChanges` on `scalingConfig.desiredSize`, so the engine sends the desired size of the last
     * update and, with the bounds unchanged, no scaling change at all: the size stays the autoscaler's.
     */
    keepLiveSize: boolean;
}

/** True when the update changes the group's bounds from what the checkpoint recorded (an unreadable record counts as a change). */
export function boundsChanged(settings: EksNodeGroupSettings, recorded: RecordedNodeGroup): boolean {
    return recorded.minSize !== settings.minNodes || recorded.maxSize !== settings.maxNodes;
}

/**
 * The size to send for a node group the Cluster Autoscaler sizes. The provider sends the whole scaling
 * block whenever any of its fields changes (terraform-provider-aws `internal/service/eks/node_group.go`,
 * `UpdateNodegroupConfig` with `scalingConfig` from the inputs), and `ignoreChanges` keeps the desired size
 * the last update sent (the engine copies the old *input*, pulumi/pulumi `step_generator.go`,
 * `processIgnoreChanges`), not the live one: a new `maxNodes` would reset a group the autoscaler grew, and
 * a `minNodes` above that old size is refused by EKS ("Minimum capacity N can't be greater than desired
 * size M"). So:
 *
 * - bounds unchanged (or a new group): keep the live size, `ignoreChanges` as before; no read, no diff;
 * - bounds changed: send the live size (`liveDesiredSize`, read at preview) moved into the new bounds, so
 *   a group the autoscaler grew keeps its nodes, and a `minNodes` above it raises it to `minNodes`.
 */
export function autoscaledSize(settings: EksNodeGroupSettings, liveDesiredSize: number | undefined): AutoscaledSize {
    if (liveDesiredSize === undefined) {
        return { desiredSize: settings.desiredNodes, keepLiveSize: true };
    }
    return { desiredSize: Math.min(Math.max(liveDesiredSize, settings.minNodes), settings.maxNodes), keepLiveSize: false };
}
