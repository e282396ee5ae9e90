/**
 * Do the GPU models fit their GPU pool, through a rollout too? Pure arithmetic over the config, run
 * by `readConfig` before anything is registered.
 *
 * A GPU pod that finds no free GPU stays Pending forever. The pool holds `nodes x gpusPerNode` GPUs:
 * on GKE `gke.gpuPool.maxNodes x acceleratorCount` (the autoscaler adds nodes up to maxNodes); on EKS
 * `eks.gpuNodeGroup.maxNodes x` the instance type's GPUs with `eks.clusterAutoscaler` (it adds nodes up
 * to maxNodes), `desiredNodes x` them without it (nothing scales the group then, so desiredNodes is what
 * runs). The models need `pods x gpuCount` each, summed, where `pods` is
 * `replicas` or the HPA's `maxReplicas`. A surge rollout needs one more pod's GPUs per model at once
 * (a `pulumi up` may roll them all together); when the pool has no such room, GPU models roll one pod
 * at a time instead (`oneAtATime`), which fits an exactly sized pool.
 */
import { plural } from "../contract/quantity";
import { RolloutStrategy } from "../serving/rollout";
import { ConfigIssue } from "./configReader";

export interface GpuPool {
    /** Nodes the pool can have, and the key that sets them (`gke.gpuPool.maxNodes`). */
    nodes: number;
    nodesKey: string;
    /** `nvidia.com/gpu` per node, the key that decides it, and what the node is (`g5.xlarge`, `nvidia-l4`). */
    gpusPerNode: number;
    gpusPerNodeKey: string;
    nodeName: string;
    /** Other keys to raise with `nodesKey` (`eks.gpuNodeGroup.maxNodes`, which bounds desiredNodes). */
    alsoRaise?: string;
}

export interface GpuServer {
    name: string;
    /** The most pods it runs: `replicas`, or `autoscaling.maxReplicas`; and the key that sets it. */
    pods: number;
    podsKey: string;
    /** The canary's pods at its last step (`canary.replicas`, scaled up with `canary.steps`), which run beside `pods` during a release; 0 or unset without a canary. */
    canaryPods?: number;
    canaryPodsKey?: string;
    gpuCount: number;
    gpuCountKey: string;
}

export interface GpuCapacityPlan {
    rollouts: Record<string, RolloutStrategy>;
    issues: ConfigIssue[];
}

export function planGpuCapacity(pool: GpuPool, servers: GpuServer[]): GpuCapacityPlan {
    const issues: ConfigIssue[] = [];
    for (const s of servers.filter((s) => s.gpuCount > pool.gpusPerNode)) {
        issues.push({ key: s.gpuCountKey, value: s.gpuCount,
            expected: `model "${s.name}" asks for ${plural(s.gpuCount, "GPU")} per pod, but a GPU node (${pool.nodeName}) has ${pool.gpusPerNode} (${pool.gpusPerNodeKey}), `
                + `so its pods could never be scheduled: lower ${s.gpuCountKey}, or choose a node with more GPUs` });
    }
    const capacity = pool.nodes * pool.gpusPerNode;
    const podsOf = (s: GpuServer) => s.pods + (s.canaryPods ?? 0);
    const steady = servers.reduce((sum, s) => sum + podsOf(s) * s.gpuCount, 0);
    const surge = servers.reduce((sum, s) => sum + s.gpuCount, 0);
    const nodesFor = (gpus: number) => Math.ceil(gpus / pool.gpusPerNode);
    const raise = (n: number) => `${pool.nodesKey}${pool.alsoRaise ? ` (and ${pool.alsoRaise})` : ""} to at least ${n}`;

    if (issues.length === 0 && steady > capacity) {
        const pods = (s: GpuServer) => `${plural(s.pods, "pod")} (${s.podsKey})${s.canaryPods ? ` + ${plural(s.canaryPods, "canary pod")} (${s.canaryPodsKey})` : ""}`;
        const demand = servers.map((s) => `model "${s.name}" ${s.canaryPods ? `(${pods(s)})` : pods(s)} x ${plural(s.gpuCount, "GPU")} (${s.gpuCountKey})`).join(" + ");
        issues.push({ key: pool.nodesKey, value: pool.nodes,
            expected: `the GPU pool holds ${plural(pool.nodes, "node")} x ${plural(pool.gpusPerNode, "GPU")} (${pool.nodeName}, ${pool.gpusPerNodeKey}) = ${plural(capacity, "GPU")}, `
                + `but the GPU models need ${steady}: ${demand}; the pods past ${plural(capacity, "GPU")} would stay Pending forever. `
                + `Set ${raise(nodesFor(steady))} (${nodesFor(steady + surge)} to keep full capacity during rollouts), or lower the replicas (see docs/concepts/model-server.md#gpu-capacity)` });
    }
    const strategy: RolloutStrategy = capacity - steady >= surge ? "surge" : "oneAtATime";
    return { rollouts: Object.fromEntries(servers.map((s) => [s.name, strategy])), issues };
}
