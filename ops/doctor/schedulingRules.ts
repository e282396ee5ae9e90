/**
 * Pods the scheduler cannot place: no free `nvidia.com/gpu`, a taint the pod does not tolerate,
 * no node with enough CPU or memory or with the labels the pod selects.
 */
import { humanBytes, parseQuantity } from "../../contract/quantity";
import { Finding, FindingKind, Rule, describeEvent, podFinding } from "./findings";
import { ClusterSnapshot, Node, Pod, Toleration, eventsFor } from "./snapshot";
import { tolerates } from "../../serving/imageVolumeSupport";

const GPU_RESOURCE = "nvidia.com/gpu";

/** One reason of a FailedScheduling message: "1 Insufficient nvidia.com/gpu" → {nodes: 1, text: "Insufficient nvidia.com/gpu"}. */
export interface NodeReason {
    nodes: number;
    text: string;
}

/**
 * Splits the scheduler's "0/3 nodes are available: 1 Insufficient nvidia.com/gpu, 2 node(s) had
 * untolerated taint {nvidia.com/gpu: present}. preemption: ..." into its per-node reasons.
 */
export function parseSchedulingMessage(message: string): NodeReason[] {
    // The reasons end at the first sentence's end: "preemption: ..." follows, and from 1.35 "no new
    // claims to deallocate," before it (the dynamic resources plugin's PostFilter).
    const m = /nodes are available: (.*?)(?:\.\s+|\.?\s*$)/s.exec(message);
    if (!m) {
        return [];
    }
    return m[1].split(/,\s*(?=\d+\s)/).flatMap((part) => {
        const r = /^(\d+)\s+(.*?)\.?$/s.exec(part.trim());
        return r ? [{ nodes: Number(r[1]), text: r[2] }] : [];
    });
}

function gpuRequest(pod: Pod): number {
    return (pod.spec?.containers ?? []).reduce((sum, c) =>
        sum + Number(c.resources?.limits?.[GPU_RESOURCE] ?? c.resources?.requests?.[GPU_RESOURCE] ?? 0), 0);
}

/**
 * The taints the scheduler found the pod does not tolerate. Up to Kubernetes 1.34 its message names
 * one ("node(s) had untolerated taint {nvidia.com/gpu: present}"); from 1.35 it says only "node(s)
 * had untolerated taint(s)" (kubernetes pkg/scheduler/framework/plugins/tainttoleration/
 * taint_toleration.go, Filter), so they are read from the nodes: those of their NoSchedule and
 * NoExecute taints the pod does not tolerate. Without the nodes (not readable with the credentials),
 * a GPU pod that does not tolerate `nvidia.com/gpu` is taken to meet the GPU nodes' taint.
 */
export function untoleratedTaints(reasons: NodeReason[], pod: Pod, nodes: Node[] | undefined): string[] {
    const found = new Set<string>();
    for (const r of reasons) {
        const m = /untolerated taint(?:\(s\))?(?: (\{.*\}))?$/.exec(r.text);
        if (!m) {
            continue;
        }
        if (m[1] !== undefined) {
            found.add(m[1]);
            continue;
        }
        const fromNodes = (nodes ?? []).flatMap((n) => n.spec?.taints ?? [])
            .filter((t) => (t.effect === "NoSchedule" || t.effect === "NoExecute") && !tolerated(pod, t))
            .map((t) => `{${t.key ?? ""}: ${t.value ?? ""}}`);
        fromNodes.forEach((t) => found.add(t));
        if (fromNodes.length === 0 && nodes === undefined && gpuRequest(pod) > 0 && !tolerated(pod, { key: GPU_RESOURCE, effect: "NoSchedule" })) {
            found.add(`{${GPU_RESOURCE}: present}`);
        }
    }
    return [...found];
}

/** Whether one of the pod's tolerations matches the taint. */
function tolerated(pod: Pod, taint: { key?: string; value?: string; effect?: string }): boolean {
    return tolerates(pod.spec?.tolerations ?? [], taint);
}

export const unschedulable: Rule = (snapshot) => snapshot.pods.flatMap((pod): Finding[] => {
    const scheduled = pod.status?.conditions?.find((c) => c.type === "PodScheduled");
    if (pod.spec?.nodeName || pod.status?.phase !== "Pending" || scheduled?.status !== "False") {
        return [];
    }
    const event = eventsFor(snapshot.events, "Pod", pod.metadata).find((e) => e.reason === "FailedScheduling");
    const message = event?.message ?? scheduled.message ?? "";
    const reasons = parseSchedulingMessage(message);
    const taints = untoleratedTaints(reasons, pod, snapshot.nodes);
    const gpuTaints = taints.filter((t) => t.startsWith(`{${GPU_RESOURCE}`));
    const gpus = gpuRequest(pod);
    const gpuShort = reasons.some((r) => r.text === `Insufficient ${GPU_RESOURCE}`);

    const evidence = [
        event ? describeEvent(event) : `condition PodScheduled False (${scheduled.reason ?? "?"}): ${message}`,
        `pod requests ${describeRequests(pod)}`,
        `pod tolerates ${(pod.spec?.tolerations ?? []).filter((t) => !isDefaultToleration(t)).map((t) => `${t.key ?? "*"} ${t.operator ?? "Equal"}${t.value ? ` ${t.value}` : ""} ${t.effect ?? ""}`.trim()).join("; ") || "no taints"}`,
    ];
    if (pod.spec?.nodeSelector) {
        evidence.push(`pod nodeSelector ${Object.entries(pod.spec.nodeSelector).map(([k, v]) => `${k}=${v}`).join(", ")}`);
    }

    const short = shortResources(reasons);
    let kind: FindingKind;
    let fix: string;
    if (short.length > 0 && !(gpus > 0 && (gpuTaints.length > 0 || gpuShort))) {
        // Checked before the taints: the tainted nodes were never candidates, the nodes that were lack CPU or memory.
        kind = "insufficient-resources";
        evidence.push(...nodeEvidence(snapshot, pod, short));
        fix = resourceFix(pod, short, snapshot.nodes);
    } else if (gpuTaints.length > 0 && gpus > 0) {
        kind = "untolerated-taint";
        fix = `The pod asks for ${GPU_RESOURCE} but does not tolerate the GPU nodes' taint ${gpuTaints[0]}: add the toleration `
            + `{key: ${GPU_RESOURCE}, operator: Exists, effect: NoSchedule} (the stack adds it when the model has gpu: true; `
            + "a Deployment edited by hand may have lost it).";
    } else if (gpuShort && gpus > 0) {
        kind = "gpu-unavailable";
        fix = `No node has ${gpus} free ${GPU_RESOURCE}: add GPU nodes or grow the GPU pool. Nodes advertise ${GPU_RESOURCE} only `
            + "once the driver and device plugin run (EKS: NVIDIA's k8s-device-plugin DaemonSet; GKE installs its own); check "
            + "`kubectl get nodes -o custom-columns=NAME:.metadata.name,GPU:.status.allocatable.nvidia\\.com/gpu`. A rolling update "
            + "with maxSurge 1 needs a free GPU for its extra pod too; on the GPU pools it creates, the stack rolls one pod at a time "
            + "when none is spare (docs/concepts/model-server.md#gpu-capacity).";
    } else if (taints.length > 0) {
        kind = "untolerated-taint";
        fix = gpuTaints.length > 0
            ? "Only GPU nodes could take this CPU pod, and their taint keeps CPU pods off (as it should): add CPU nodes, "
                + "or set gpu: true for this model if it is meant to run on GPUs."
            : `Nodes carry taints the pod does not tolerate (${taints.join(", ")}): add nodes without them, or a toleration if the pod belongs there.`;
    } else {
        kind = "unschedulable";
        fix = otherFix(reasons, message);
    }
    const why = reasons.map((r) => `${r.nodes} ${r.text}`).join(", ") || message || "no reason given";
    return [podFinding(pod, {
        kind,
        severity: "error",
        summary: kind === "insufficient-resources"
            ? `the pod is Pending: no node it may run on has the ${short.join(" and ")} it requests free (${why})`
            : `the pod is Pending: no node can take it (${why})`,
        evidence,
        fix,
    })];
});

/** The not-ready/unreachable tolerations admission adds to every pod; they do not bear on scheduling. */
function isDefaultToleration(t: Toleration): boolean {
    return t.effect === "NoExecute" && (t.key === "node.kubernetes.io/not-ready" || t.key === "node.kubernetes.io/unreachable");
}

function describeRequests(pod: Pod): string {
    const totals = new Map<string, string[]>();
    for (const c of pod.spec?.containers ?? []) {
        for (const [resource, quantity] of Object.entries(c.resources?.requests ?? c.resources?.limits ?? {})) {
            totals.set(resource, [...(totals.get(resource) ?? []), quantity]);
        }
    }
    return [...totals].map(([r, q]) => `${r} ${q.join("+")}`).join(", ") || "nothing";
}

/** The resources the scheduler found short ("Insufficient cpu", "Insufficient memory"), GPUs aside: their rules are above. */
export function shortResources(reasons: NodeReason[]): string[] {
    return reasons.flatMap((r) => {
        const m = /^Insufficient (\S+)$/.exec(r.text);
        return m && m[1] !== GPU_RESOURCE ? [m[1]] : [];
    });
}

/** A pod's request of one resource, summed over its containers (a container with only a limit requests its limit). */
export function podRequest(pod: Pod, resource: string): number | undefined {
    let total: number | undefined;
    for (const c of pod.spec?.containers ?? []) {
        const quantity = c.resources?.requests?.[resource] ?? c.resources?.limits?.[resource];
        const value = quantity === undefined ? undefined : parseQuantity(quantity);
        if (value !== undefined) {
            total = (total ?? 0) + value;
        }
    }
    return total;
}

function formatAmount(resource: string, value: number): string {
    if (resource === "memory") {
        return humanBytes(value);
    }
    return resource === "cpu" ? `${Number(value.toFixed(3))} CPU` : String(value);
}

/** Whether the scheduler could have put the pod on the node at all: no taint it does not tolerate, its selector met. */
function candidate(pod: Pod, node: Node): boolean {
    const tolerations = pod.spec?.tolerations ?? [];
    const tainted = (node.spec?.taints ?? []).some((t) => (t.effect === "NoSchedule" || t.effect === "NoExecute")
        && !tolerations.some((tol) => (tol.key === undefined && tol.operator === "Exists")
            || (tol.key === t.key && (tol.operator === "Exists" || tol.value === t.value) && (tol.effect === undefined || tol.effect === "" || tol.effect === t.effect))));
    const labels = node.metadata?.labels ?? {};
    const selected = Object.entries(pod.spec?.nodeSelector ?? {}).every(([k, v]) => labels[k] === v);
    return !tainted && selected && node.spec?.unschedulable !== true;
}

/** The request against each candidate node's allocatable, from the snapshot's nodes when it has them. */
function nodeEvidence(snapshot: ClusterSnapshot, pod: Pod, short: string[]): string[] {
    if (snapshot.nodes === undefined) {
        return ["nodes: not readable with these credentials (`kubectl describe nodes` shows their allocatable and what is requested)"];
    }
    return snapshot.nodes.filter((n) => candidate(pod, n)).map((n) => `node ${n.metadata?.name ?? "?"} allocatable ${short.map((r) => {
        const value = parseQuantity(n.status?.allocatable?.[r] ?? "");
        return `${r} ${value === undefined ? "?" : formatAmount(r, value)}`;
    }).join(", ")} (before what its other pods request)`);
}

const RESOURCE_KEYS: Record<string, string> = { cpu: "cpu", memory: "memoryRequest" };

function resourceFix(pod: Pod, short: string[], nodes: Node[] | undefined): string {
    const parts = short.map((r) => {
        const request = podRequest(pod, r);
        const largest = Math.max(...(nodes ?? []).filter((n) => candidate(pod, n))
            .map((n) => parseQuantity(n.status?.allocatable?.[r] ?? "") ?? 0));
        const asked = request === undefined ? `${r}` : `${formatAmount(r, request)}`;
        const room = Number.isFinite(largest) && largest > 0
            ? request !== undefined && request > largest
                ? `, more than any node it may run on can allocate at all (the largest: ${formatAmount(r, largest)})`
                : `; the largest node it may run on allocates ${formatAmount(r, largest)}, and its other pods hold the rest`
            : "";
        return `the pod requests ${asked}${room}`;
    });
    const keys = [...new Set(short.map((r) => RESOURCE_KEYS[r]).filter((k) => k !== undefined))].map((k) => `\`${k}\``);
    return `Not enough ${short.join(" and ")} free: ${parts.join("; ")}. Add or enlarge nodes (a larger machine type), free the `
        + `nodes of other pods, or lower ${keys.join(" / ") || "the request"} in the stack config (not below what the model needs: `
        + "`tfs plan` shows the sizing derived from it). A rolling update needs room for one extra pod too.";
}

function otherFix(reasons: NodeReason[], message: string): string {
    const text = reasons.map((r) => r.text).join("\n") || message;
    if (/node affinity|selector/.test(text)) {
        return "No node has the labels the pod selects (nodeSelector above; TF Serving needs kubernetes.io/arch=amd64): "
            + "add such nodes or fix the selector.";
    }
    if (/0\/0 nodes|no nodes available/.test(message)) {
        return "The cluster has no nodes: create a node pool.";
    }
    return "Read the scheduler's message above; `kubectl describe pod` and `kubectl get nodes` show the nodes' state.";
}
