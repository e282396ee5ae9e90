/**
 * How model pods find their nodes on the clusters this project creates: every node pool carries
 * the label `tf-serving/pool: cpu|gpu`, and GPU nodes carry the taint `nvidia.com/gpu` (GKE adds it
 * itself; the EKS GPU node group sets it). CPU pods select the CPU pool, so they never take a GPU
 * node even where the taint would let them; GPU pods select the GPU pool and tolerate the taint.
 */
import type * as k8s from "@pulumi/kubernetes";

/** Where a model server's pods may run (`ModelServerArgs.placement`). */
export interface NodePlacement {
    /**
     * Node labels the pod's node must have (e.g. the CPU pool, or `cloud.google.com/gke-accelerator`).
     * Merged over `kubernetes.io/arch: amd64` and `kubernetes.io/os: linux`, which are always set
     * (TF Serving has no arm64 image). Default: those two only.
     */
    nodeSelector?: Record<string, string>;
    /**
     * Taints the pod tolerates. GPU nodes are tainted `nvidia.com/gpu` (GKE always, the EKS GPU group
     * here), so a GPU model needs `GPU_TOLERATION`. Default: none.
     */
    tolerations?: k8s.types.input.core.v1.Toleration[];
}

/** Node label naming the pool a node belongs to. */
export const NODE_POOL_LABEL = "tf-serving/pool";

export type PoolKind = "cpu" | "gpu";

/** The taint on GPU nodes; the NVIDIA device plugin and GPU model pods tolerate it. */
export const GPU_TAINT_KEY = "nvidia.com/gpu";

export const GPU_TOLERATION = { key: GPU_TAINT_KEY, operator: "Exists", effect: "NoSchedule" };

/** The labels a node pool of `kind` carries. */
export function poolLabels(kind: PoolKind): Record<string, string> {
    return { [NODE_POOL_LABEL]: kind };
}

/**
 * Where CPU and GPU model pods go. `gpuNodeLabels` are extra labels the GPU nodes are known to have
 * (GKE's `cloud.google.com/gke-accelerator`), so a pod cannot land on some other GPU pool by accident.
 */
export function poolPlacement(gpuNodeLabels: Record<string, string> = {}): { cpu: NodePlacement; gpu: NodePlacement } {
    return {
        cpu: { nodeSelector: poolLabels("cpu") },
        gpu: { nodeSelector: { ...poolLabels("gpu"), ...gpuNodeLabels }, tolerations: [{ ...GPU_TOLERATION }] },
    };
}
