/**
 * Does one model pod fit on one node of the pool the stack creates? Pure arithmetic over the
 * config, the pod's sizing and the cloud's catalog, run by `prepareModels` at preview.
 *
 * A pod whose CPU or memory request exceeds what a node can allocate is never scheduled: it stays
 * Pending forever, whatever the autoscaler does. A node allocates its machine's vCPUs and memory less
 * what the kubelet and the system reserve and the hard eviction threshold, by each cloud's documented
 * formula. These are upper bounds (the kernel keeps some memory out of the node's capacity, and
 * DaemonSets take their share), so a config refused here cannot fit; one accepted may still not.
 * Existing clusters (cloud `local`) and machine types the catalog does not know are not checked. Each
 * cloud's node formula and catalog are in its folder (`nodes.ts`), which builds on this module; the
 * stack's cloud is asked for its nodes through its `CloudRules` in `config/poolNodes.ts`.
 */
import { humanBytes } from "../contract/quantity";

export const MI = 2 ** 20;
export const GI = 2 ** 30;
/** The kubelet's hard eviction threshold on GKE and on the EKS AMIs (`memory.available<100Mi`). */
export const EVICTION_BYTES = 100 * MI;

/** What pods may request on one node, and how it was reached (for messages). */
export interface NodeAllocatable {
    cpuMillis: number;
    memoryBytes: number;
    vcpus: number;
    capacityBytes: number;
    /** What the rest goes to, for messages. */
    reservedBy: { cpu: string; memory: string };
}

/**
 * CPU kept for the kubelet and the system, in millicores: 6% of the first core, 1% of the second,
 * 0.5% of the next two, 0.25% of every core above four (GKE's table; the EKS AMIs use the same).
 */
export function reservedCpuMillis(vcpus: number): number {
    const tiers: [number, number][] = [[1, 0.06], [1, 0.01], [2, 0.005], [Infinity, 0.0025]];
    let left = vcpus;
    let reserved = 0;
    for (const [cores, share] of tiers) {
        const inTier = Math.min(left, cores);
        reserved += inTier * 1000 * share;
        left -= inTier;
    }
    return reserved;
}

/** A node of the pool a model's pods run on, in the terms of its config key. */
export interface PoolNode {
    /** "the CPU pool", "the GPU node group". */
    pool: string;
    /** The key that chose the machine (`gke.cpuPool.machineType`) and its value. */
    key: string;
    machineType: string;
    allocatable: NodeAllocatable;
}

/** A pool the stack creates whose machine type the cloud's catalog does not know. */
export interface UnsizedPool {
    gpu: boolean;
    /** The key that chose the machine type, and its value. */
    key: string;
    type: string;
    /** The command that shows the machine type's vCPUs and memory. */
    command: string;
}

/** One pod's requests, with the config keys that set them. */
export interface PodRequests {
    model: string;
    cpu: string;
    cpuMillis: number;
    cpuKey: string;
    memoryRequest: string;
    memoryBytes: number;
    memoryKey: string;
}

export interface FitProblem {
    key: string;
    message: string;
}

/** What of the pod's requests no node of the pool can give; empty when it fits. */
export function nodeFitProblems(pod: PodRequests, node: PoolNode): FitProblem[] {
    const a = node.allocatable;
    const machine = `${node.key} = ${node.machineType}`;
    const pending = "so its pods would stay Pending forever";
    const problems: FitProblem[] = [];
    if (pod.memoryBytes > a.memoryBytes) {
        problems.push({ key: pod.memoryKey, message: `model "${pod.model}" requests ${pod.memoryRequest} (${humanBytes(pod.memoryBytes)}) of memory per pod `
            + `(${pod.memoryKey}; unset, it is derived from the model's size), but a node of ${node.pool} (${machine}: ${humanBytes(a.capacityBytes)}) `
            + `can allocate at most ${humanBytes(a.memoryBytes)} to pods after ${a.reservedBy.memory}, ${pending}: `
            + `set ${node.key} to a machine type with more memory, or lower ${pod.memoryKey} if the model needs less` });
    }
    if (pod.cpuMillis > a.cpuMillis) {
        problems.push({ key: pod.cpuKey, message: `model "${pod.model}" requests ${pod.cpu} CPU per pod (${pod.cpuKey}), but a node of ${node.pool} `
            + `(${machine}: ${a.vcpus} vCPUs) can allocate at most ${Math.floor(a.cpuMillis)}m to pods after ${a.reservedBy.cpu}, ${pending}: `
            + `set ${node.key} to a machine type with more vCPUs, or lower ${pod.cpuKey} to at most ${Math.floor(a.cpuMillis)}m` });
    }
    return problems;
}

/** The nodes a pool runs at most, in the terms of its config key; undefined where nothing bounds them here. */
export interface PoolSize {
    nodes: number;
    /** `eks.cpuNodeGroup.desiredNodes` (nothing adds nodes) or `eks.cpuNodeGroup.maxNodes` (the Cluster Autoscaler adds them up to it). */
    nodesKey: string;
    /** Other keys to raise with `nodesKey` (`eks.cpuNodeGroup.maxNodes`, which bounds desiredNodes). */
    alsoRaise?: string;
    /** The key that would have nodes added as pods need them (`eks.clusterAutoscaler`), where it is off. */
    autoscalerKey?: string;
}

/** One model's pods on a pool at their most: the serving pods (`replicas` or the HPA's maximum) and the canary's, with their keys. */
export interface PoolDemand {
    requests: PodRequests;
    pods: number;
    podsKey: string;
    canaryPods: number;
    canaryPodsKey?: string;
}

/**
 * Whether the models' pods, at their most, can fit on the pool's nodes; a message when they cannot.
 * Two necessary conditions, so a refusal is certain: all pods' requests together within all nodes'
 * allocatable, and each model's pods within the nodes times the pods one node holds (pods are not
 * split across nodes). DaemonSets and system pods take their share too, so an accepted plan may still
 * leave a pod Pending.
 */
export function poolCapacityProblem(demand: PoolDemand[], node: PoolNode, size: PoolSize): FitProblem | undefined {
    const a = node.allocatable;
    const total = (pick: (d: PoolDemand) => number) => demand.reduce((sum, d) => sum + (d.pods + d.canaryPods) * pick(d), 0);
    const cpuNeeded = total((d) => d.requests.cpuMillis);
    const memoryNeeded = total((d) => d.requests.memoryBytes);
    const perNode = (d: PoolDemand) => Math.min(Math.floor(a.cpuMillis / d.requests.cpuMillis), Math.floor(a.memoryBytes / d.requests.memoryBytes));
    const crowded = demand.find((d) => d.pods + d.canaryPods > size.nodes * perNode(d));
    if (cpuNeeded <= size.nodes * a.cpuMillis && memoryNeeded <= size.nodes * a.memoryBytes && crowded === undefined) {
        return undefined;
    }
    const podsOf = (d: PoolDemand) => `${d.pods} pods (${d.podsKey})${d.canaryPods > 0 ? ` + ${d.canaryPods} canary (${d.canaryPodsKey})` : ""}`;
    const models = demand.map((d) => `model "${d.requests.model}" ${podsOf(d)} x ${d.requests.cpu} CPU (${d.requests.cpuKey}) and ${d.requests.memoryRequest} (${d.requests.memoryKey})`).join("; ");
    const nodesNeeded = Math.max(
        Math.ceil(cpuNeeded / a.cpuMillis), Math.ceil(memoryNeeded / a.memoryBytes),
        ...demand.map((d) => Math.ceil((d.pods + d.canaryPods) / Math.max(1, perNode(d)))),
    );
    return {
        key: size.nodesKey,
        message: `${node.pool} runs at most ${size.nodes} nodes of ${node.key} = ${node.machineType} (${size.nodesKey}), each allocating ${Math.floor(a.cpuMillis)}m CPU and ${humanBytes(a.memoryBytes)} to pods, `
            + `but the models' pods at their most need more: ${models}; the pods past what the nodes hold would stay Pending forever. `
            + `Set ${size.nodesKey}${size.alsoRaise ? ` (and ${size.alsoRaise})` : ""} to at least ${nodesNeeded}, lower the pods `
            + `${size.autoscalerKey ? `or turn on ${size.autoscalerKey} with a maxNodes that holds them ` : "or lower the pods' requests "}(see docs/concepts/model-server.md#node-capacity)`,
    };
}
