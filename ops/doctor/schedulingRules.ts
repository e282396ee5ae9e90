/**
 * Pods the scheduler cannot place: no free `nvidia.com/gpu`, a taint the pod does not tolerate,
 * no node with enough CPU or memory or with the labels the pod selects.
 */
import { Finding, FindingKind, Rule, describeEvent, podFinding } from "./findings";
import { Pod, Toleration, eventsFor } from "./snapshot";

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
    const m = /nodes are available: (.*?)(?:\.\s*preemption:|\.?\s*$)/s.exec(message);
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

function untoleratedTaints(reasons: NodeReason[]): string[] {
    return reasons.flatMap((r) => {
        const m = /untolerated taint(?:\(s\))? (\{.*\})/.exec(r.text);
        return m ? [m[1]] : [];
    });
}

export const unschedulable: Rule = (snapshot) => snapshot.pods.flatMap((pod): Finding[] => {
    const scheduled = pod.status?.conditions?.find((c) => c.type === "PodScheduled");
    if (pod.spec?.nodeName || pod.status?.phase !== "Pending" || scheduled?.status !== "False") {
        return [];
    }
    const event = eventsFor(snapshot.events, "Pod", pod.metadata).find((e) => e.reason === "FailedScheduling");
    const message = event?.message ?? scheduled.message ?? "";
    const reasons = parseSchedulingMessage(message);
    const taints = untoleratedTaints(reasons);
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

    let kind: FindingKind;
    let fix: string;
    if (gpuTaints.length > 0 && gpus > 0) {
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
            + "when none is spare (README, GPU capacity).";
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
    return [podFinding(pod, {
        kind,
        severity: "error",
        summary: `the pod is Pending: no node can take it (${reasons.map((r) => `${r.nodes} ${r.text}`).join(", ") || message || "no reason given"})`,
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

function otherFix(reasons: NodeReason[], message: string): string {
    const text = reasons.map((r) => r.text).join("\n") || message;
    if (/Insufficient (cpu|memory)/.test(text)) {
        return "No node has the CPU or memory the pod requests free: add or enlarge nodes, or lower cpu/memoryRequest in "
            + "the stack config (not below what the model needs: `tfs plan` shows it).";
    }
    if (/node affinity|selector/.test(text)) {
        return "No node has the labels the pod selects (nodeSelector above; TF Serving needs kubernetes.io/arch=amd64): "
            + "add such nodes or fix the selector.";
    }
    if (/0\/0 nodes|no nodes available/.test(message)) {
        return "The cluster has no nodes: create a node pool.";
    }
    return "Read the scheduler's message above; `kubectl describe pod` and `kubectl get nodes` show the nodes' state.";
}
