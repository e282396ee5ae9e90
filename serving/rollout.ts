/**
 * How a model server's pods are replaced, and how long a rollout may take before Pulumi gives up.
 *
 * - `surge` adds one pod before it stops an old one, so serving capacity never drops: right
 *   wherever the cluster has room for one more pod (CPU pools, GPU pools with a spare GPU).
 * - `oneAtATime` stops one pod, then starts its replacement on the GPU it freed: the only rollout
 *   that progresses on a GPU pool sized exactly for the replicas, where a surge pod would stay
 *   Pending forever. It costs one pod's capacity during the rollout, and with one replica every
 *   rollout is an outage for as long as the new pod takes to load.
 *
 * Timing: `@pulumi/kubernetes` waits for a Deployment's rollout and fails it after 10 minutes by
 * default. A first GPU rollout can take longer than that before any pod is Ready: the autoscaler
 * adds a GPU node (from zero), the node installs its driver or starts the device plugin before it
 * advertises `nvidia.com/gpu`, the node pulls a multi-GB `-gpu` image, then the model loads.
 */
import { Sizing } from "./sizing";

/** Seconds the pod keeps serving after it is marked terminating, so endpoints and load balancers drain first. */
export const PRESTOP_SLEEP_SECONDS = 10;
/** Seconds TF Serving gets after SIGTERM to finish in-flight requests. */
export const SHUTDOWN_SECONDS = 20;

export type RolloutStrategy = "surge" | "oneAtATime";

/** Seconds a new pod must stay Ready before it counts as available (a pod that crashes at once does not count). */
export const MIN_READY_SECONDS = 10;

/** The Deployment's `strategy.rollingUpdate` for a strategy. */
export function rollingUpdate(strategy: RolloutStrategy): { maxUnavailable: number; maxSurge: number } {
    return strategy === "surge" ? { maxUnavailable: 0, maxSurge: 1 } : { maxUnavailable: 1, maxSurge: 0 };
}

const MI = 2 ** 20;

/**
 * Seconds budgeted for a node to join and be able to run the pod: a CPU node boots and joins in a
 * few minutes; a GPU node also installs its NVIDIA driver (GKE) or starts the device plugin (EKS)
 * before it advertises `nvidia.com/gpu`.
 */
export const NODE_READY_SECONDS = { cpu: 300, gpu: 600 };
/** Compressed size budgeted for the `tensorflow/serving` base (the `-gpu` one carries CUDA: several GB). */
export const BASE_IMAGE_BYTES = { cpu: 1024 * MI, gpu: 6 * 1024 * MI };
/** Pull and unpack rate budgeted for a fresh node (bytes per second): slow on purpose. */
export const PULL_BYTES_PER_SECOND = 20 * MI;
/** Never wait less than `@pulumi/kubernetes`' own default. */
export const PROVIDER_DEFAULT_SECONDS = 600;

export interface RolloutTimingInput {
    sizing: Pick<Sizing, "startupBudgetSeconds">;
    gpu: boolean;
    /** Bytes on disk of the served versions (the image's model layers). */
    modelBytes: number;
    /** The most pods the Deployment runs: `replicas`, or the HPA's `maxReplicas`. */
    pods: number;
    /** The pod's `terminationGracePeriodSeconds`: a replaced pod may hold its GPU that long. */
    terminationGraceSeconds: number;
}

export interface RolloutTiming {
    /** One pod from creation to available on a fresh node: node, pull, load, `minReadySeconds`. */
    podSeconds: number;
    /** `progressDeadlineSeconds`: the longest one rollout step may go without progress (a pod waiting for its node included). */
    progressDeadlineSeconds: number;
    /** Pulumi's create timeout: every pod starts at once, each may wait for a node. */
    createSeconds: number;
    /** Pulumi's update timeout: one node may have to join, then pods are replaced one at a time. */
    updateSeconds: number;
}

export function rolloutTiming(input: RolloutTimingInput): RolloutTiming {
    const kind = input.gpu ? "gpu" : "cpu";
    const pullSeconds = Math.ceil((BASE_IMAGE_BYTES[kind] + input.modelBytes) / PULL_BYTES_PER_SECOND);
    const loadSeconds = pullSeconds + input.sizing.startupBudgetSeconds + MIN_READY_SECONDS;
    const podSeconds = NODE_READY_SECONDS[kind] + loadSeconds;
    // A step of an update: the replaced pod exits (it may hold the GPU its successor needs), the new one loads.
    const stepSeconds = input.terminationGraceSeconds + loadSeconds;
    return {
        podSeconds,
        progressDeadlineSeconds: podSeconds + input.terminationGraceSeconds,
        createSeconds: Math.max(PROVIDER_DEFAULT_SECONDS, podSeconds),
        updateSeconds: Math.max(PROVIDER_DEFAULT_SECONDS, NODE_READY_SECONDS[kind] + stepSeconds * Math.max(1, input.pods)),
    };
}

/** Pulumi `customTimeouts` for the Deployment, in whole minutes (rounded up). */
export function deploymentTimeouts(timing: RolloutTiming): { create: string; update: string } {
    const minutes = (seconds: number) => `${Math.ceil(seconds / 60)}m`;
    return { create: minutes(timing.createSeconds), update: minutes(timing.updateSeconds) };
}
