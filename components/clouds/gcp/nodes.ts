/**
 * GKE's nodes as the node-fit check sees them (`config/nodeFit.ts`): what a machine type of the
 * catalog leaves pods (GKE's documented reservations), and the pools the stack creates.
 */
import type { GcpStackConfig } from "./config";
import { EVICTION_BYTES, GI, MI, NodeAllocatable, PoolNode, UnsizedPool, reservedCpuMillis } from "../../../config/nodeFit";
import { MachineShape, machineShape } from "./machines";

/**
 * GKE's memory reservation: 255 MiB on machines under 1 GiB; else 25% of the first 4 GiB, 20% of
 * the next 4, 10% of the next 8, 6% of the next 112 and 2% of the rest.
 */
export function gkeReservedMemoryBytes(memoryBytes: number): number {
    if (memoryBytes < GI) {
        return 255 * MI;
    }
    const tiers: [number, number][] = [[4 * GI, 0.25], [4 * GI, 0.2], [8 * GI, 0.1], [112 * GI, 0.06], [Infinity, 0.02]];
    let left = memoryBytes;
    let reserved = 0;
    for (const [bytes, share] of tiers) {
        const inTier = Math.min(left, bytes);
        reserved += inTier * share;
        left -= inTier;
    }
    return reserved;
}

/**
 * What GKE reserves on a shared-core E2 node (e2-micro, e2-small, e2-medium) instead of the per-core
 * table: 1060 millicores of the 2 vCPUs the node reports, leaving pods 940m (GKE's "Plan GKE Standard
 * node sizes", node allocatable resources).
 */
const GKE_SHARED_CORE_RESERVED_CPU_MILLIS = 1060;


export function gkeAllocatable(shape: MachineShape): NodeAllocatable {
    const capacityBytes = shape.memoryGib * GI;
    return {
        cpuMillis: shape.vcpus * 1000 - (shape.sharedCore ? GKE_SHARED_CORE_RESERVED_CPU_MILLIS : reservedCpuMillis(shape.vcpus)),
        memoryBytes: capacityBytes - gkeReservedMemoryBytes(capacityBytes) - EVICTION_BYTES,
        vcpus: shape.vcpus,
        capacityBytes,
        reservedBy: { cpu: "GKE's kubelet and system reservation", memory: "GKE's kubelet and system reservation and the 100 MiB eviction threshold" },
    };
}

/** The node a model's pods land on (`gpu`: the GPU pool's); undefined without that pool or for an unknown machine type. */
export function gkePoolNode(config: GcpStackConfig, gpu: boolean): PoolNode | undefined {
    const pool = gpu ? config.gke.gpuPool : config.gke.cpuPool;
    const shape = pool && machineShape(pool.machineType);
    return pool && shape && {
        pool: gpu ? "the GPU pool" : "the CPU pool", key: `gke.${gpu ? "gpuPool" : "cpuPool"}.machineType`,
        machineType: pool.machineType, allocatable: gkeAllocatable(shape),
    };
}

/** The pools whose machine type the catalog does not know. */
export function gkeUnsizedPools(config: GcpStackConfig): UnsizedPool[] {
    const pools: UnsizedPool[] = [];
    const describe = (t: string) => `\`gcloud compute machine-types describe ${t} --zone ZONE\``;
    for (const [gpu, pool] of [[false, config.gke.cpuPool], [true, config.gke.gpuPool]] as const) {
        if (pool !== undefined && machineShape(pool.machineType) === undefined) {
            pools.push({ gpu, key: `gke.${gpu ? "gpuPool" : "cpuPool"}.machineType`, type: pool.machineType, command: describe(pool.machineType) });
        }
    }
    return pools;
}
