/**
 * Runs every rule over a snapshot and shapes the answer: one finding per root cause (its symptoms'
 * evidence folded in), one finding for replicas that fail the same way, causes first.
 */
import { cannotStart, crashLoop, imagePull, oomKilled } from "./containerRules";
import { imageVolume } from "./imageVolumeRules";
import { Finding, FindingKind, Rule, RuleContext, Severity } from "./findings";
import { modelFilesDenied, modelLoadFailed, modelNotFound } from "./logRules";
import { startupProbeKilled, probeFailed } from "./probeRules";
import { canaryRolledBack, notReady, replicaFailure, rolloutStuck } from "./rolloutRules";
import { autoscalerBlind, canaryLeftOver } from "./autoscalingRules";
import { endpointRefused } from "./endpointRules";
import { unschedulable } from "./schedulingRules";
import { loadBalancerPending } from "./serviceRules";
import { INSTANCE_LABEL, MODEL_SERVER_SELECTOR, isModelServerLabelled } from "../../contract/labels";
import { ClusterSnapshot, ObjectMeta, isCanary, isPodReady, modelOf, servedModelOf } from "./snapshot";

export const RULES: readonly Rule[] = [
    imagePull, imageVolume, cannotStart, oomKilled, modelNotFound, modelLoadFailed, modelFilesDenied, unschedulable,
    startupProbeKilled, crashLoop, probeFailed, replicaFailure, rolloutStuck, canaryRolledBack, canaryLeftOver, autoscalerBlind, loadBalancerPending, endpointRefused, notReady,
];

/**
 * How strongly a kind names a cause. On one pod, a finding absorbs the evidence of findings ranked
 * below it unless they are causes themselves (3): a CrashLoopBackOff is what an OOMKill looks like from outside.
 */
const RANK: Record<FindingKind, number> = {
    "not-deployed": 3, "image-pull": 3, "image-volume": 3, "container-config-error": 3, "permission-denied": 3, "model-not-found": 3,
    "model-load-failed": 3, "oom-killed": 3, "gpu-unavailable": 3, "untolerated-taint": 3, "insufficient-resources": 3, "unschedulable": 3,
    "replica-failure": 3, "load-balancer-pending": 3,
    // A crash loop absorbs a probe that failed while the container was up between crashes (nothing
    // listened yet); a startup probe that killed the container absorbs the crash loop it causes.
    "startup-probe-killed": 2, "crash-loop": 1.5, "probe-failed": 1, "not-ready": 0, "rollout-stuck": 0, "canary-rolled-back": 3,
    "canary-running": 3, "autoscaler-blind": 3, "endpoint-refused": 3,
};
const SEVERITY_ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

export interface DiagnoseOptions {
    /** Only this model's objects (the `app.kubernetes.io/instance` label); default every model server in the namespace. */
    model?: string;
    /** The snapshot's time, in milliseconds since the epoch. */
    now: number;
    /** Seconds a LoadBalancer may go without an address before it is an error. Default 300. */
    loadBalancerGraceSeconds?: number;
}

export interface ModelChecked {
    model: string;
    pods: number;
    readyPods: number;
    /** Desired replicas of its Deployment, if there is one. */
    desiredReplicas?: number;
    service?: { name: string; type: string; address?: string };
}

export interface Diagnosis {
    /** True when no finding is an error or a warning. */
    healthy: boolean;
    findings: Finding[];
    checked: {
        namespace: string;
        selector: string;
        models: ModelChecked[];
        pods: number;
        deployments: number;
        services: number;
        /** Events about the checked objects. */
        events: number;
        /** Container logs read (current and previous runs). */
        logs: number;
        /** Each model status call to a model's endpoint and its answer. */
        endpoints: { model: string; call: string; answer: string }[];
    };
}

export const DEFAULT_LB_GRACE_SECONDS = 300;

export function diagnose(full: ClusterSnapshot, options: DiagnoseOptions): Diagnosis {
    const snapshot = selectModelServer(full, options.model);
    const context: RuleContext = { now: options.now, loadBalancerGraceSeconds: options.loadBalancerGraceSeconds ?? DEFAULT_LB_GRACE_SECONDS };
    const selector = options.model ? `${MODEL_SERVER_SELECTOR},${INSTANCE_LABEL}=${options.model}` : MODEL_SERVER_SELECTOR;
    const nothing = snapshot.pods.length + snapshot.deployments.length + snapshot.services.length === 0;
    const raw = nothing ? [notDeployed(full, selector)] : RULES.flatMap((rule) => rule(snapshot, context));
    const findings = groupReplicas(foldSymptoms(raw)).sort((a, b) =>
        SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || RANK[b.kind] - RANK[a.kind] || a.object.localeCompare(b.object));
    return {
        healthy: !findings.some((f) => f.severity !== "info"),
        findings,
        checked: {
            namespace: snapshot.namespace,
            selector,
            models: modelsChecked(snapshot),
            pods: snapshot.pods.length,
            deployments: snapshot.deployments.length,
            services: snapshot.services.length,
            events: snapshot.events.length,
            logs: Object.keys(snapshot.logs).length + Object.keys(snapshot.previousLogs).length,
            endpoints: (snapshot.endpoints ?? []).map(({ model, call, answer }) => ({ model, call, answer })),
        },
    };
}

/** A model server's object, of `model` when given; a model's canary counts as the model's. */
function isModelServer(meta: ObjectMeta | undefined, model: string | undefined): boolean {
    return isModelServerLabelled(meta?.labels ?? {}) && (model === undefined || servedModelOf({ metadata: meta }) === model);
}

/** The model server's objects, and only the events about them. */
export function selectModelServer(snapshot: ClusterSnapshot, model: string | undefined): ClusterSnapshot {
    const pods = snapshot.pods.filter((p) => isModelServer(p.metadata, model));
    const services = snapshot.services.filter((s) => isModelServer(s.metadata, model));
    const deployments = snapshot.deployments.filter((d) => isModelServer(d.metadata, model));
    const replicaSets = snapshot.replicaSets.filter((r) => isModelServer(r.metadata, model));
    const hpas = snapshot.hpas?.filter((h) => isModelServer(h.metadata, model));
    const subjects = new Set([
        ...(hpas ?? []).map((o) => `HorizontalPodAutoscaler/${o.metadata?.name}`),
        ...pods.map((o) => `Pod/${o.metadata?.name}`),
        ...services.map((o) => `Service/${o.metadata?.name}`),
        ...deployments.map((o) => `Deployment/${o.metadata?.name}`),
        ...replicaSets.map((o) => `ReplicaSet/${o.metadata?.name}`),
    ]);
    const podNames = new Set(pods.map((p) => `${p.metadata?.name}/`));
    const ofPods = (logs: Record<string, string>) =>
        Object.fromEntries(Object.entries(logs).filter(([key]) => podNames.has(key.slice(0, key.indexOf("/") + 1))));
    return {
        namespace: snapshot.namespace,
        pods,
        services,
        deployments,
        replicaSets,
        ...(hpas === undefined ? {} : { hpas }),
        events: snapshot.events.filter((e) => subjects.has(`${e.involvedObject?.kind}/${e.involvedObject?.name}`)),
        logs: ofPods(snapshot.logs),
        previousLogs: ofPods(snapshot.previousLogs),
        ...(snapshot.nodes === undefined ? {} : { nodes: snapshot.nodes }),
        ...(snapshot.endpoints === undefined ? {} : { endpoints: snapshot.endpoints.filter((e) => model === undefined || e.model === model) }),
    };
}

/** The models the snapshot's model servers serve (a canary's counted as its model's), of `model` when given. */
export function servedModels(snapshot: ClusterSnapshot, model: string | undefined): string[] {
    return modelNames(selectModelServer(snapshot, model));
}

function modelNames(snapshot: ClusterSnapshot): string[] {
    return [...new Set([...snapshot.pods, ...snapshot.deployments, ...snapshot.services].map((o) => servedModelOf(o)))]
        .filter((m): m is string => m !== undefined).sort();
}

function notDeployed(full: ClusterSnapshot, selector: string): Finding {
    const models = [...new Set([...full.pods, ...full.deployments, ...full.services]
        .filter((o) => isModelServer(o.metadata, undefined)).map((o) => modelOf(o)))].filter((m) => m !== undefined).sort();
    return {
        kind: "not-deployed",
        severity: "error",
        object: `namespace/${full.namespace}`,
        summary: "no model server found",
        evidence: [
            `no Deployment, Pod or Service labelled ${selector} in namespace ${full.namespace}`,
            models.length ? `model servers in this namespace: ${models.join(", ")}` : "no model server at all in this namespace",
        ],
        fix: models.length
            ? `Pass --model with one of: ${models.join(", ")}.`
            : "Check --namespace (or the stack), or deploy first with `pulumi up`.",
    };
}

/** On each pod, symptoms join the evidence of the cause they follow from; so does a stuck rollout, on its model. */
function foldSymptoms(findings: Finding[]): Finding[] {
    const absorbed = new Set<Finding>();
    const fold = (group: Finding[], absorbable: (f: Finding) => boolean) => {
        const live = group.filter((f) => !absorbed.has(f));
        const top = Math.max(...live.map((f) => RANK[f.kind]));
        const head = live.find((f) => RANK[f.kind] === top);
        for (const f of live) {
            if (head && f !== head && absorbable(f) && RANK[f.kind] < 3 && RANK[f.kind] < top) {
                absorbed.add(f);
                // The not-ready fallback only restates what the cause's own evidence shows.
                if (f.kind !== "not-ready") {
                    head.evidence = [...new Set([...head.evidence, ...f.evidence])];
                }
            }
        }
    };
    const pods = new Set(findings.filter((f) => f.object.startsWith("pod/")).map((f) => f.object));
    for (const pod of pods) {
        fold(findings.filter((f) => f.object === pod), () => true);
    }
    for (const model of new Set(findings.map((f) => f.model))) {
        fold(findings.filter((f) => f.model === model), (f) => !f.object.startsWith("pod/"));
    }
    // Two rules may find the same kind on one object (permission denied on exec and in the log).
    const merged = new Map<string, Finding>();
    for (const f of findings.filter((x) => !absorbed.has(x))) {
        const key = `${f.kind} ${f.object}`;
        const same = merged.get(key);
        if (same) {
            same.evidence = [...new Set([...same.evidence, ...f.evidence])];
            same.fix = same.fix === f.fix ? same.fix : `${same.fix} ${f.fix}`;
        } else {
            merged.set(key, { ...f, evidence: [...f.evidence] });
        }
    }
    return [...merged.values()];
}

/** Replicas failing the same way make one finding, naming the other pods. */
function groupReplicas(findings: Finding[]): Finding[] {
    const groups = new Map<string, Finding[]>();
    for (const f of findings) {
        const key = f.object.startsWith("pod/") ? `${f.kind}\n${f.model}\n${f.summary}\n${f.fix}` : `${f.kind}\n${f.object}`;
        groups.set(key, [...(groups.get(key) ?? []), f]);
    }
    return [...groups.values()].map(([first, ...others]) => others.length === 0 ? first : {
        ...first,
        evidence: [...first.evidence, `the same on ${others.map((o) => o.object).join(", ")}`],
    });
}

/** One row per model; a canary's objects are its model's (their own finding says so), never a model of their own. */
function modelsChecked(snapshot: ClusterSnapshot): ModelChecked[] {
    return modelNames(snapshot).map((model) => {
        const pods = snapshot.pods.filter((p) => modelOf(p) === model && !isCanary(p));
        const deployment = snapshot.deployments.find((d) => modelOf(d) === model && !isCanary(d));
        const service = snapshot.services.find((s) => modelOf(s) === model && !isCanary(s));
        const ingress = service?.status?.loadBalancer?.ingress?.find((i) => i.ip || i.hostname);
        return {
            model,
            pods: pods.length,
            readyPods: pods.filter(isPodReady).length,
            desiredReplicas: deployment ? deployment.spec?.replicas ?? 1 : undefined,
            service: service && {
                name: service.metadata?.name ?? "?",
                type: service.spec?.type ?? "ClusterIP",
                address: ingress?.ip ?? ingress?.hostname ?? (service.spec?.type === "LoadBalancer" ? undefined : service.spec?.clusterIP),
            },
        };
    });
}
