/**
 * Which clusters can mount a model artifact by an `image` volume (`modelDelivery: imageVolume`), pure:
 * the Kubernetes version and the node's container runtime, each rule from its source.
 *
 * - Kubernetes: the `ImageVolume` gate is alpha in 1.31, beta and off by default in 1.33 and 1.34,
 *   beta and on by default from 1.35, GA in 1.36 (KEP-4639: kubernetes/enhancements#4639, its
 *   targets "Beta 1.33-1.34, Stable 1.36"; kubernetes.io/docs/tasks/configure-pod-container/image-volumes,
 *   "FEATURE STATE: Kubernetes v1.35 [beta] (enabled by default)"). Managed clusters do not let the gate
 *   be turned on, and an existing cluster's gates cannot be read, so below 1.35 is refused.
 * - containerd: image volumes from 2.1.0 (its release notes, "Add OCI/Image Volume Source support
 *   (#10579)"); `subPath` of one only from 2.2, which this program never uses (the artifact is mounted
 *   at its root).
 * - CRI-O: from 1.31 (cri-o/cri-o#8317, merged for 1.31; the requirements of CloudNativePG's Image
 *   Volume Extensions page: "containerd v2.1.0 or later, or CRI-O v1.31 or later").
 * - Any other runtime (cri-dockerd, an unknown name): refused with the reason, not guessed.
 */

/** The first Kubernetes minor with image volumes on by default. */
export const IMAGE_VOLUME_KUBERNETES = { major: 1, minor: 35 } as const;

/** The first release of each runtime known to mount image volumes, by the name a node reports. */
export const IMAGE_VOLUME_RUNTIMES: Readonly<Record<string, readonly [number, number]>> = {
    "containerd": [2, 1],
    "cri-o": [1, 31],
};

/** What image volumes need, in one phrase for messages. */
export const IMAGE_VOLUME_NEEDS = "Kubernetes 1.35 or later and nodes on containerd 2.1 or later (or CRI-O 1.31 or later)";

/** `[major, minor]` of a Kubernetes version as clusters write it (`1.35`, `v1.35.2`, `v1.35.1-eks-4d1e5c8`, `v1.34.3-gke.100`), or undefined. */
export function kubernetesMinor(version: string): [number, number] | undefined {
    const m = /^v?(\d+)\.(\d+)(?:$|[.+-])/.exec(version.trim());
    return m === null ? undefined : [Number(m[1]), Number(m[2])];
}

const atLeast = (have: readonly number[], need: readonly number[]) => have[0] > need[0] || (have[0] === need[0] && have[1] >= need[1]);

/** Why Kubernetes `version` gives no image volumes, or undefined. */
export function kubernetesImageVolumeProblem(version: string): string | undefined {
    const minor = kubernetesMinor(version);
    if (minor === undefined) {
        return `Kubernetes version "${version}" cannot be read as MAJOR.MINOR, so whether it has image volumes is not known`;
    }
    const { major, minor: least } = IMAGE_VOLUME_KUBERNETES;
    if (atLeast(minor, [major, least])) {
        return undefined;
    }
    const state = minor[1] >= 33 ? "beta and off by default" : minor[1] >= 31 ? "alpha and off by default" : "absent";
    return `Kubernetes ${minor.join(".")} has the ImageVolume feature gate ${state} (on by default from ${major}.${least}, GA in 1.36: KEP-4639)`;
}

/** A node's `status.nodeInfo.containerRuntimeVersion` (`containerd://1.6.20`) read as its runtime and `[major, minor]`, or undefined. */
export function parseRuntimeVersion(reported: string): { runtime: string; version?: [number, number]; text: string } | undefined {
    const m = /^([a-z0-9.-]+):\/\/v?(.*)$/i.exec(reported.trim());
    if (m === null) {
        return undefined;
    }
    const v = /^(\d+)\.(\d+)/.exec(m[2]);
    return { runtime: m[1].toLowerCase(), text: m[2], ...(v === null ? {} : { version: [Number(v[1]), Number(v[2])] as [number, number] }) };
}

/** Why a node whose runtime reports `reported` cannot mount an image volume, or undefined. */
export function runtimeImageVolumeProblem(reported: string): string | undefined {
    const parsed = parseRuntimeVersion(reported);
    const known = Object.entries(IMAGE_VOLUME_RUNTIMES).map(([name, [major, minor]]) => `${name === "cri-o" ? "CRI-O" : name} ${major}.${minor}`).join(" or ");
    if (parsed === undefined) {
        return `its runtime reports "${reported}", which names no runtime, so whether it mounts image volumes is not known (${known} or later do)`;
    }
    const need = IMAGE_VOLUME_RUNTIMES[parsed.runtime];
    const shown = `${parsed.runtime} ${parsed.text}`;
    if (need === undefined) {
        return `it runs ${shown}, a runtime not known to mount image volumes (${known} or later do)`;
    }
    if (parsed.version === undefined) {
        return `it runs ${shown}, whose version cannot be read (${known} or later mount image volumes)`;
    }
    return atLeast(parsed.version, need) ? undefined : `it runs ${shown}, and image volumes need ${parsed.runtime === "cri-o" ? "CRI-O" : parsed.runtime} ${need.join(".")} or later`;
}

/** A node's taint (`spec.taints[]`). */
export interface NodeTaint { key: string; value?: string; effect: string }

/** A pod's toleration (`spec.tolerations[]`). */
export interface PodToleration { key?: string; operator?: string; value?: string; effect?: string }

/** What an existing cluster says about itself: the API server's version and each node's kubelet, runtime and taints. */
export interface ClusterRuntime {
    /** The API server's `gitVersion` (`v1.35.2`). */
    serverVersion: string;
    nodes: { name: string; kubeletVersion: string; containerRuntimeVersion: string; taints?: NodeTaint[] }[];
}

/** Does one of `tolerations` tolerate `taint` (Kubernetes' ToleratesTaint: key, `Exists` or `Equal` value, effect or any)? */
export function tolerates(tolerations: readonly PodToleration[], taint: { key?: string; value?: string; effect?: string }): boolean {
    return tolerations.some((t) => (t.effect === undefined || t.effect === "" || t.effect === taint.effect)
        && ((t.key ?? "") === "" ? t.operator === "Exists" : t.key === taint.key)
        && (t.operator === "Exists" || (t.value ?? "") === (taint.value ?? "")));
}

/**
 * The nodes a pod with `tolerations` may be scheduled on: those whose every `NoSchedule` and
 * `NoExecute` taint it tolerates (`PreferNoSchedule` keeps no pod off). A node its pods cannot land on
 * has no say in whether they can mount an image volume: the loopback environment's kwok GPU node,
 * tainted `nvidia.com/gpu`, runs no containerd, and a CPU model's pods never go there.
 */
export function schedulableNodes<N extends ClusterRuntime["nodes"][number]>(nodes: readonly N[], tolerations: readonly PodToleration[]): N[] {
    return nodes.filter((n) => (n.taints ?? []).every((taint) => taint.effect === "PreferNoSchedule" || tolerates(tolerations, taint)));
}

/** At most this many nodes are named in a message; the rest are counted. */
const NAMED_NODES = 3;

/**
 * Why `cluster` cannot mount image volumes for pods with `tolerations` (the first reason: its version,
 * else its nodes'), or undefined: the API server and the kubelet of every node such a pod may land on
 * (`schedulableNodes`) on Kubernetes 1.35 or later, each such node's runtime one that mounts them. A
 * cluster without such nodes to read is refused: nothing says what a pod would land on.
 */
export function clusterImageVolumeProblem(all: ClusterRuntime, tolerations: readonly PodToleration[] = []): string | undefined {
    const server = kubernetesImageVolumeProblem(all.serverVersion);
    if (server !== undefined) {
        return `the cluster's API server runs ${all.serverVersion}: ${server}`;
    }
    const cluster = { ...all, nodes: schedulableNodes(all.nodes, tolerations) };
    if (cluster.nodes.length === 0) {
        return all.nodes.length === 0
            ? "the cluster lists no amd64 Linux node, so what a pod would run on is not known"
            : `the cluster's ${all.nodes.length} amd64 Linux node(s) all carry a taint the model's pods do not tolerate, so what a pod would run on is not known`;
    }
    const named = (bad: { name: string; why: string }[], what: string) => {
        const shown = bad.slice(0, NAMED_NODES).map((n) => `${n.name}: ${n.why}`).join("; ");
        const more = bad.length > NAMED_NODES ? `; and ${bad.length - NAMED_NODES} more` : "";
        return `${bad.length} of ${cluster.nodes.length} node(s) ${what} (${shown}${more})`;
    };
    const kubelets = cluster.nodes.flatMap((n) => {
        const why = kubernetesImageVolumeProblem(n.kubeletVersion);
        return why === undefined ? [] : [{ name: n.name, why: `kubelet ${n.kubeletVersion}` }];
    });
    if (kubelets.length > 0) {
        return named(kubelets, `run a kubelet older than ${IMAGE_VOLUME_KUBERNETES.major}.${IMAGE_VOLUME_KUBERNETES.minor}, where the ImageVolume gate is off by default`);
    }
    const runtimes = cluster.nodes.flatMap((n) => {
        const why = runtimeImageVolumeProblem(n.containerRuntimeVersion);
        return why === undefined ? [] : [{ name: n.name, why }];
    });
    return runtimes.length > 0 ? named(runtimes, "cannot mount an image volume") : undefined;
}
