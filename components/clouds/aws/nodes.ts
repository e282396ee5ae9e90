/**
 * EKS's nodes as the node-fit check sees them (`config/nodeFit.ts`): what an instance type leaves
 * pods (the EKS AMIs' reservations), the node groups the stack creates and the CPU group's size.
 */
import type { AwsStackConfig } from "./config";
import { EVICTION_BYTES, GI, MI, NodeAllocatable, PoolNode, PoolSize, UnsizedPool, reservedCpuMillis } from "../../../config/nodeFit";
import { InstanceShape, instanceShape } from "./instanceTypes";

/** The EKS AMIs' kube-reserved memory: 255 MiB + 11 MiB per pod the node may run. */
export function eksAllocatable(shape: InstanceShape): NodeAllocatable {
    const capacityBytes = shape.memoryGib * GI;
    return {
        cpuMillis: shape.vcpus * 1000 - reservedCpuMillis(shape.vcpus),
        memoryBytes: capacityBytes - (255 + 11 * shape.maxPods) * MI - EVICTION_BYTES,
        vcpus: shape.vcpus,
        capacityBytes,
        reservedBy: {
            cpu: "the EKS AMI's kubelet reservation",
            memory: `the EKS AMI's kubelet reservation (255 MiB + 11 MiB x ${shape.maxPods} pods) and the 100 MiB eviction threshold`,
        },
    };
}

/** The node a model's pods land on (`gpu`: the GPU node group's); undefined without that group or for an unknown instance type. */
export function eksPoolNode(config: AwsStackConfig, gpu: boolean): PoolNode | undefined {
    const group = gpu ? config.eks.gpuNodeGroup : config.eks.cpuNodeGroup;
    const shape = group && instanceShape(group.instanceType);
    return group && shape && {
        pool: gpu ? "the GPU node group" : "the CPU node group", key: `eks.${gpu ? "gpuNodeGroup" : "cpuNodeGroup"}.instanceType`,
        machineType: group.instanceType, allocatable: eksAllocatable(shape),
    };
}

/** The node groups whose instance type the catalog does not know. */
export function eksUnsizedPools(config: AwsStackConfig): UnsizedPool[] {
    const pools: UnsizedPool[] = [];
    const describe = (t: string) => `\`aws ec2 describe-instance-types --instance-types ${t}\``;
    for (const [gpu, group] of [[false, config.eks.cpuNodeGroup], [true, config.eks.gpuNodeGroup]] as const) {
        if (group !== undefined && instanceShape(group.instanceType) === undefined) {
            pools.push({ gpu, key: `eks.${gpu ? "gpuNodeGroup" : "cpuNodeGroup"}.instanceType`, type: group.instanceType, command: describe(group.instanceType) });
        }
    }
    return pools;
}

/** How many nodes the CPU node group can have: its maximum under the Cluster Autoscaler, else its desired size. */
export function eksCpuPoolSize(config: AwsStackConfig): PoolSize {
    const group = config.eks.cpuNodeGroup;
    return config.eks.clusterAutoscaler
        ? { nodes: group.maxNodes, nodesKey: "eks.cpuNodeGroup.maxNodes" }
        : { nodes: group.desiredNodes, nodesKey: "eks.cpuNodeGroup.desiredNodes", alsoRaise: "eks.cpuNodeGroup.maxNodes", autoscalerKey: "eks.clusterAutoscaler" };
}
