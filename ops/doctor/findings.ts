/**
 * A finding names one known failure of the model server, shows the evidence that proves it (the
 * exact log line, event message, container state and numbers) and says how to fix it.
 */
import { humanBytes } from "../../contract/quantity";
import { memoryBytes } from "../../serving/sizing";
import { MEMORY_PEAK_ANNOTATION, MODEL_BYTES_ANNOTATION } from "../../contract/labels";
import { ClusterSnapshot, Container, ContainerStateTerminated, Event, Pod, Probe, eventCount, eventTime, modelOf, timeMs } from "./snapshot";

/** `error`: the model is not served as deployed. `warning`: it may be, but not as intended. `info`: worth knowing. */
export type Severity = "error" | "warning" | "info";

export type FindingKind =
    | "not-deployed"
    | "model-not-found"
    | "model-load-failed"
    | "permission-denied"
    | "oom-killed"
    | "image-pull"
    | "image-volume"
    | "container-config-error"
    | "crash-loop"
    | "startup-probe-killed"
    | "probe-failed"
    | "gpu-unavailable"
    | "untolerated-taint"
    | "insufficient-resources"
    | "unschedulable"
    | "load-balancer-pending"
    | "replica-failure"
    | "rollout-stuck"
    | "canary-rolled-back"
    | "canary-running"
    | "autoscaler-blind"
    | "endpoint-refused"
    | "not-ready";

export interface Finding {
    kind: FindingKind;
    severity: Severity;
    /** What it is about: `pod/NAME`, `service/NAME`, `deployment/NAME`, `namespace/NAME`. */
    object: string;
    /** The model the object serves (its `app.kubernetes.io/instance` label). */
    model?: string;
    /** One sentence naming the failure. */
    summary: string;
    /** Log lines, event messages, container states and numbers, each quoted as the cluster gave them. */
    evidence: string[];
    fix: string;
}

export interface RuleContext {
    /** The time of the snapshot, in milliseconds since the epoch. */
    now: number;
    /** How long a LoadBalancer Service may go without an address before it is a problem. */
    loadBalancerGraceSeconds: number;
}

/** A diagnosis rule: a pure function from the snapshot to what it recognizes. */
export type Rule = (snapshot: ClusterSnapshot, context: RuleContext) => Finding[];

export function podName(pod: Pod): string {
    return pod.metadata?.name ?? "(unnamed)";
}

export function podFinding(pod: Pod, finding: Omit<Finding, "object" | "model">): Finding {
    return { object: `pod/${podName(pod)}`, model: modelOf(pod), ...finding };
}

export function containerSpec(pod: Pod, name: string): Container | undefined {
    return pod.spec?.containers?.find((c) => c.name === name);
}

/** Limits an untrusted line (a log line, an event message) to one line of at most `max` characters. */
export function clip(text: string, max = 1000): string {
    const oneLine = text.replace(/\s*\n\s*/g, " ").trim();
    return oneLine.length > max ? `${oneLine.slice(0, max - 3)}...` : oneLine;
}

export function describeEvent(event: Event): string {
    const count = eventCount(event);
    const when = eventTime(event);
    return `event ${event.type ?? "Normal"} ${event.reason ?? "?"}${count > 1 ? ` x${count}` : ""}`
        + `${when ? ` (last ${when})` : ""}: ${clip(event.message ?? "")}`;
}

export function describeTermination(container: string, which: "state" | "lastState", t: ContainerStateTerminated): string {
    const parts = [
        t.reason ?? "terminated",
        t.exitCode !== undefined ? `exit code ${t.exitCode}` : undefined,
        t.signal ? `signal ${t.signal}` : undefined,
        t.finishedAt ? `finished ${t.finishedAt}` : undefined,
    ].filter((p) => p !== undefined);
    const message = t.message ? `: ${clip(t.message)}` : "";
    return `container ${container} ${which}.terminated: ${parts.join(", ")}${message}`;
}

export function quoteLog(podName: string, container: string, line: string): string {
    return `log ${podName}/${container}: "${clip(line)}"`;
}

/** "3m20s" for durations in messages. */
export function duration(seconds: number): string {
    const s = Math.max(0, Math.round(seconds));
    if (s < 60) {
        return `${s}s`;
    }
    if (s < 3600) {
        return `${Math.floor(s / 60)}m${s % 60 ? `${s % 60}s` : ""}`;
    }
    const m = Math.floor((s % 3600) / 60);
    return `${Math.floor(s / 3600)}h${m ? `${m}m` : ""}`;
}

export function secondsSince(time: string | undefined, context: RuleContext): number | undefined {
    const ms = timeMs(time);
    return ms === 0 ? undefined : (context.now - ms) / 1000;
}

/** Seconds a container may take to start before its startup probe gives up (Kubernetes defaults for unset fields). */
export function probeBudgetSeconds(probe: Probe): number {
    return (probe.initialDelaySeconds ?? 0) + (probe.periodSeconds ?? 10) * (probe.failureThreshold ?? 3);
}

export function describeProbe(kind: string, probe: Probe): string {
    const target = probe.httpGet
        ? `GET ${probe.httpGet.path ?? "/"} on port ${probe.httpGet.port}`
        : probe.grpc ? `gRPC health on port ${probe.grpc.port}`
            : probe.tcpSocket ? `TCP port ${probe.tcpSocket.port}` : "exec";
    return `${kind} probe: ${target}, initialDelay ${probe.initialDelaySeconds ?? 0}s, period ${probe.periodSeconds ?? 10}s, `
        + `timeout ${probe.timeoutSeconds ?? 1}s, failureThreshold ${probe.failureThreshold ?? 3}`;
}

/** "512Mi (512 MiB)", or the raw quantity when it does not parse. */
export function describeMemory(quantity: string): { text: string; bytes?: number } {
    try {
        const bytes = memoryBytes(quantity);
        return { text: `${quantity} (${humanBytes(bytes)})`, bytes };
    } catch {
        return { text: quantity };
    }
}

/** The model's recorded size and reload peak, from the pod's annotations or its Deployment's template. */
export function modelMemory(pod: Pod, snapshot: ClusterSnapshot): { modelBytes?: number; peakBytes?: number } {
    const model = modelOf(pod);
    const deployment = snapshot.deployments.find((d) => modelOf(d) === model);
    const sources = [
        pod.metadata?.annotations,
        deployment?.spec?.template?.metadata?.annotations,
        deployment?.metadata?.annotations,
    ];
    const read = (key: string): number | undefined => {
        for (const annotations of sources) {
            const n = Number(annotations?.[key]);
            if (annotations?.[key] !== undefined && Number.isFinite(n) && n > 0) {
                return n;
            }
        }
        return undefined;
    };
    return { modelBytes: read(MODEL_BYTES_ANNOTATION), peakBytes: read(MEMORY_PEAK_ANNOTATION) };
}

/** "pod phase Running, Ready False for 12m (since 2025-06-01T11:48:00Z)" */
export function readinessEvidence(pod: Pod, context: RuleContext): string {
    const ready = pod.status?.conditions?.find((c) => c.type === "Ready");
    const since = secondsSince(ready?.lastTransitionTime, context);
    return `pod phase ${pod.status?.phase ?? "?"}, Ready ${ready?.status ?? "?"}`
        + (ready?.status !== "True" && since !== undefined ? ` for ${duration(since)} (since ${ready!.lastTransitionTime})` : "");
}

/** The user the container runs as, for permission findings. */
export function runAsEvidence(pod: Pod, container: string): string {
    const c = containerSpec(pod, container)?.securityContext;
    const p = pod.spec?.securityContext;
    const user = c?.runAsUser ?? p?.runAsUser;
    const group = c?.runAsGroup ?? p?.runAsGroup;
    return `pod runs as user ${user ?? "(image default)"}, group ${group ?? "(image default)"}, fsGroup ${p?.fsGroup ?? "unset"}`;
}
