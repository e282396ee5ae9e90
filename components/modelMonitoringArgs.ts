/**
 * `ModelMonitoring`'s resolver, pure: its Args with every default filled in, and every value whose
 * alert could never fire or would always fire, keyed by field path. `ModelMonitoring` throws what it
 * finds before it registers anything; the `monitoring` config section maps its keys onto these fields
 * and records the issues under them (`components/argsIssues.ts`).
 */
import type * as pulumi from "@pulumi/pulumi";
import { labelKeyProblem, labelValueProblem, modelServerLabels } from "../contract/labels";
import { AlertThresholds, DEFAULT_THRESHOLDS } from "../observability/alerts";
import { RULES_CONFIGMAP_LABEL } from "../observability/collectors";
import type { ArgsIssue } from "./argsIssues";
import { COLLECTORS, Collector } from "./clouds/collectors";
import { modelNameProblem } from "../serving/modelConfig";

export interface ModelMonitoringArgs {
    /** The model's name: its pods carry it as `app.kubernetes.io/instance` and its Deployment is named after it. */
    model: string;
    /** The namespace the model's pods run in (the rules and the dashboard query it). */
    namespace: string;
    /**
     * The same namespace as a resource output (e.g. the Namespace's `metadata.name`), so the objects
     * wait for it. Default `namespace`.
     */
    namespaceRef?: pulumi.Input<string>;
    /** Who scrapes and evaluates: `gke`, `prometheus-operator`, `annotations` or `none` (nothing registered). */
    collector: Collector;
    /**
     * Alert thresholds, whole numbers: `errorRatioPercent` and `memoryLimitPercent` at most 99 (at 100
     * the alert could never fire), `memoryLimitPercent` at least 50, and every one at least 1 (below, it
     * would fire always); each one left out is `DEFAULT_THRESHOLDS`'.
     */
    thresholds?: Partial<AlertThresholds>;
    /** Extra labels on the scrape and rule objects (a Prometheus' `podMonitorSelector`/`ruleSelector`). Default none. */
    labels?: Record<string, string>;
    /**
     * Record the model's inference request rate per pod (`observability/requestRate.ts`) in the `gke`
     * collector's `Rules`, for a request-rate HPA on GKE (the Custom Metrics Stackdriver Adapter reads
     * what GMP's rule evaluator records). Default false; ignored by the other collectors.
     */
    recordRequestRate?: boolean;
}

/**
 * The alert thresholds' bounds. A rule fires when its figure is above the threshold
 * (`observability/alerts.ts`), so a percent of 100 (no more than all calls fail, no more than the
 * limit is used: the kernel kills the container there) would switch the alert off: the percents stop
 * at 99. A threshold of 0 or below would fire on every call (any latency, any error, any restart).
 */
export const THRESHOLD_BOUNDS: Readonly<Record<keyof AlertThresholds, { min: number; max: number }>> = {
    errorRatioPercent: { min: 1, max: 99 },
    p99LatencyMs: { min: 1, max: 600_000 },
    memoryLimitPercent: { min: 50, max: 99 },
    notReadyMinutes: { min: 1, max: 120 },
    restarts: { min: 1, max: 100 },
};

/** The collectors whose scrape and rule objects carry `labels`. */
const LABELLED_COLLECTORS = COLLECTORS.filter((c) => c !== "annotations" && c !== "none");

/** The monitoring settings the resolver checks: the config section's, and `ModelMonitoringArgs`'. */
export interface MonitoringChecked {
    collector: Collector;
    thresholds?: Partial<AlertThresholds>;
    labels?: Record<string, string>;
}

/** `thresholds` with `DEFAULT_THRESHOLDS` for the ones left out, and what is wrong with the settings. `key` names another field in a message. */
export function resolveMonitoring(args: MonitoringChecked, key: (field: string) => string = (field) => field): { thresholds: AlertThresholds; labels: Record<string, string>; issues: ArgsIssue[] } {
    const issues: ArgsIssue[] = [];
    if (!(COLLECTORS as readonly string[]).includes(args.collector)) {
        issues.push({ field: "collector", value: args.collector, message: `must be one of ${COLLECTORS.map((c) => `"${c}"`).join(", ")}` });
    }
    const thresholds = { ...DEFAULT_THRESHOLDS, ...args.thresholds };
    for (const [name, { min, max }] of Object.entries(THRESHOLD_BOUNDS)) {
        const value = thresholds[name as keyof AlertThresholds];
        if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) {
            const why = typeof value === "number" && value > max ? "; above it the alert could never fire" : typeof value === "number" && value < min ? "; below it the alert would always fire" : "";
            issues.push({ field: `thresholds.${name}`, value, message: `must be a whole number from ${min} to ${max}${why}` });
        }
    }
    const labels = args.labels ?? {};
    if (Object.keys(labels).length > 0 && (args.collector === "annotations" || args.collector === "none")) {
        issues.push({
            field: "labels", value: labels,
            message: `do nothing with ${key("collector")} "${args.collector}": only the ${LABELLED_COLLECTORS.join(" and ")} collectors' scrape and rule objects carry them ` +
                `(${args.collector === "none" ? "none creates no object" : "annotations creates only a rules ConfigMap, labelled " + RULES_CONFIGMAP_LABEL}); remove them, or choose that collector`,
        });
        return { thresholds, labels: {}, issues };
    }
    const own = Object.keys(modelServerLabels("model"));
    for (const [name, value] of Object.entries(labels)) {
        const problem = own.includes(name)
            ? `is a label this program sets on every model-server object (${own.join(", ")}): the scrape objects, \`tfs doctor\` and the policy pack select on it; choose another key`
            : labelKeyProblem(name);
        const valueProblem = problem === undefined ? labelValueProblem(value) : undefined;
        if (problem !== undefined) {
            issues.push({ field: `labels.${name}`, value: name, message: problem });
        } else if (valueProblem !== undefined) {
            issues.push({ field: `labels.${name}`, value, message: valueProblem });
        }
    }
    return { thresholds, labels, issues };
}

/** `ModelMonitoringArgs` with every default filled in. */
export type ResolvedModelMonitoringArgs = ModelMonitoringArgs & { thresholds: AlertThresholds; labels: Record<string, string> };

/**
 * `given` resolved, and its issues: the monitoring settings' (`resolveMonitoring`), and a model and
 * namespace the objects' names and selectors can carry (DNS labels).
 */
export function resolveModelMonitoringArgs(given: ModelMonitoringArgs): { args: ResolvedModelMonitoringArgs; issues: ArgsIssue[] } {
    const { thresholds, issues } = resolveMonitoring(given);
    const model = modelNameProblem(given.model ?? "");
    const namespace = DNS_LABEL.test(given.namespace ?? "") ? undefined
        : "must be a Kubernetes namespace name: lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters";
    return {
        args: { ...given, thresholds, labels: given.labels ?? {} },
        issues: [
            ...(model === undefined ? [] : [{ field: "model", value: given.model, message: `must be a DNS label: ${model}` }]),
            ...(namespace === undefined ? [] : [{ field: "namespace", value: given.namespace, message: namespace }]),
            ...issues,
        ],
    };
}

/** A DNS-1123 label, what a namespace's name must be. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
