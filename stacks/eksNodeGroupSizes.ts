/**
 * The live desired size of the EKS node groups whose bounds an update changes, with the Cluster
 * Autoscaler on (`autoscaledSize` in `components/clouds/aws/nodeGroup.ts` says why the update needs it). The
 * stack's checkpoint says which groups exist and the bounds they were given; EKS says their size now,
 * read only for a group whose `minNodes` or `maxNodes` changes, so a preview that changes no bounds asks
 * AWS nothing.
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import { nodeGroupResourceName } from "../components/clouds/aws/cluster";
import { EksNodeGroupSettings, RecordedNodeGroup, boundsChanged } from "../components/clouds/aws/nodeGroup";
import { PoolKind } from "../components/nodePlacement";
import { CheckpointResource } from "./previousOutputs";

const NODE_GROUP_TYPE = "aws:eks/nodeGroup:NodeGroup";

/** Where the size changes of an autoscaled group are explained (docs layout of this repository). */
export const NODE_GROUP_BOUNDS_DOC = "docs/guides/autoscaling.md#changing-node-group-bounds-with-the-cluster-autoscaler";

const asNumber = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** The node group `resourceName` (`eks-gpu`) as the checkpoint recorded it; undefined when it has none (a new group). */
export function recordedNodeGroup(resources: Record<string, CheckpointResource>, resourceName: string): RecordedNodeGroup | undefined {
    const found = Object.entries(resources).find(([urn, r]) => r.type === NODE_GROUP_TYPE && urn.endsWith(`::${resourceName}`));
    const outputs = found?.[1].outputs;
    if (outputs === undefined || typeof outputs.clusterName !== "string" || typeof outputs.nodeGroupName !== "string") {
        return undefined;
    }
    const scaling = (outputs.scalingConfig ?? {}) as Record<string, unknown>;
    return { clusterName: outputs.clusterName, nodeGroupName: outputs.nodeGroupName, minSize: asNumber(scaling.minSize), maxSize: asNumber(scaling.maxSize) };
}

/** Reads a group's desired size from EKS. */
export type DesiredSizeReader = (group: RecordedNodeGroup) => Promise<number>;

export interface AutoscaledGroup {
    kind: PoolKind;
    /** Its config key, for the message when EKS cannot be read (`eks.gpuNodeGroup`). */
    key: string;
    settings: EksNodeGroupSettings;
}

/**
 * The live desired size of each group in `groups` that the checkpoint records with other bounds than its
 * settings; groups that are new or keep their bounds are left out (they keep their live size untouched).
 */
export async function liveDesiredSizes(
    clusterResourceName: string, groups: AutoscaledGroup[], resources: Record<string, CheckpointResource>, read: DesiredSizeReader,
): Promise<Partial<Record<PoolKind, number>>> {
    const sizes: Partial<Record<PoolKind, number>> = {};
    for (const group of groups) {
        const recorded = recordedNodeGroup(resources, nodeGroupResourceName(clusterResourceName, group.kind));
        if (recorded === undefined || !boundsChanged(group.settings, recorded)) {
            continue;
        }
        try {
            sizes[group.kind] = await read(recorded);
        } catch (err) {
            throw new pulumi.RunError(`${group.key}: minNodes/maxNodes change, and the update must send the group's live size with them ` +
                `(or reset what the Cluster Autoscaler scaled), but EKS node group ${recorded.nodeGroupName} of cluster ${recorded.clusterName} could not be read: ` +
                `${err instanceof Error ? err.message : String(err)}. Nothing was changed. If the group was deleted outside Pulumi, run \`pulumi refresh\` first; ` +
                `see ${NODE_GROUP_BOUNDS_DOC}`);
        }
    }
    return sizes;
}

/** Reads the desired size through `aws.eks.getNodeGroup` (DescribeNodegroup) with the stack's provider. */
export function eksDesiredSizeReader(provider: aws.Provider): DesiredSizeReader {
    return async (group) => {
        const live = await aws.eks.getNodeGroup({ clusterName: group.clusterName, nodeGroupName: group.nodeGroupName }, { provider });
        const desired = live.scalingConfigs?.[0]?.desiredSize;
        if (typeof desired !== "number") {
            throw new Error("its scaling configuration has no desired size");
        }
        return desired;
    };
}
