import * as assert from "assert";
import { EksNodeGroupSettings, RecordedNodeGroup } from "../../../components/clouds/aws/nodeGroup";
import { liveDesiredSizes, recordedNodeGroup } from "../../../stacks/eksNodeGroupSizes";
import { CheckpointResource } from "../../../stacks/previousOutputs";

const settings = (minNodes: number, maxNodes: number): EksNodeGroupSettings =>
    ({ instanceType: "g5.xlarge", desiredNodes: Math.max(minNodes, 1), minNodes, maxNodes, diskSizeGb: 100, capacityType: "ON_DEMAND" });

/** A checkpoint as the engine answers it: the NodeGroup's outputs under its URN (child of the EksCluster component). */
function checkpoint(kind: "cpu" | "gpu", scaling: Record<string, number>): Record<string, CheckpointResource> {
    return {
        [`urn:pulumi:prod::tf-serving::tf-serving:index:EksCluster$aws:eks/nodeGroup:NodeGroup::eks-${kind}`]: {
            type: "aws:eks/nodeGroup:NodeGroup",
            outputs: { clusterName: "tf-serving", nodeGroupName: `eks-${kind}-1234567`, scalingConfig: scaling },
        },
        "urn:pulumi:prod::tf-serving::aws:eks/cluster:Cluster::eks-gpu": { type: "aws:eks/cluster:Cluster", outputs: { name: "not a node group" } },
    };
}

describe("live size of autoscaled EKS node groups (stacks/eksNodeGroupSizes)", () => {
    it("finds a group in the checkpoint by type and resource name, with the bounds it was given", () => {
        assert.deepStrictEqual(recordedNodeGroup(checkpoint("gpu", { desiredSize: 1, minSize: 0, maxSize: 2 }), "eks-gpu"),
            { clusterName: "tf-serving", nodeGroupName: "eks-gpu-1234567", minSize: 0, maxSize: 2 });
        assert.strictEqual(recordedNodeGroup(checkpoint("cpu", { desiredSize: 1, minSize: 0, maxSize: 2 }), "eks-gpu"), undefined);
        assert.strictEqual(recordedNodeGroup({}, "eks-gpu"), undefined, "a new stack");
    });

    it("asks EKS only for a group whose bounds change", async () => {
        const asked: RecordedNodeGroup[] = [];
        const read = async (g: RecordedNodeGroup) => { asked.push(g); return 3; };
        const resources = { ...checkpoint("gpu", { desiredSize: 1, minSize: 0, maxSize: 2 }), ...checkpoint("cpu", { desiredSize: 2, minSize: 1, maxSize: 4 }) };
        const unchanged = await liveDesiredSizes("eks", [{ kind: "cpu", key: "eks.cpuNodeGroup", settings: settings(1, 4) }, { kind: "gpu", key: "eks.gpuNodeGroup", settings: settings(0, 2) }], resources, read);
        assert.deepStrictEqual([unchanged, asked], [{}, []]);
        const changed = await liveDesiredSizes("eks", [{ kind: "cpu", key: "eks.cpuNodeGroup", settings: settings(1, 4) }, { kind: "gpu", key: "eks.gpuNodeGroup", settings: settings(0, 5) }], resources, read);
        assert.deepStrictEqual(changed, { gpu: 3 });
        assert.deepStrictEqual(asked.map((g) => g.nodeGroupName), ["eks-gpu-1234567"]);
    });

    it("stops with one line naming the key, the group and the way out when EKS cannot be read", async () => {
        const read = async () => { throw new Error("ResourceNotFoundException: No node group found for name: eks-gpu-1234567."); };
        await assert.rejects(liveDesiredSizes("eks", [{ kind: "gpu", key: "eks.gpuNodeGroup", settings: settings(0, 5) }], checkpoint("gpu", { desiredSize: 1, minSize: 0, maxSize: 2 }), read),
            (err: Error) => {
                assert.match(err.message, /^eks\.gpuNodeGroup: minNodes\/maxNodes change, .* EKS node group eks-gpu-1234567 of cluster tf-serving could not be read: ResourceNotFoundException/);
                assert.match(err.message, /Nothing was changed\. .*`pulumi refresh`.*docs\/guides\/autoscaling\.md#changing-node-group-bounds-with-the-cluster-autoscaler$/);
                assert.ok(!err.message.includes("\n"));
                return true;
            });
    });
});
