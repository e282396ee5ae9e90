/**
 * The alert rules of one model's server, as a Prometheus rule group: the form Prometheus' rule
 * files, the Prometheus Operator's `PrometheusRule` and GKE's `Rules` all hold.
 *
 * TF Serving exports no metric of a model's state (AVAILABLE or not), so availability is read from
 * the scrape itself: TF Serving opens its ports only once its models are AVAILABLE, so `up == 1` for
 * a pod means its model loaded, and `up == 0` (or no target at all) means it has not, or crashed.
 * Memory, OOM kills and restarts come from the kubelet's cAdvisor endpoint; kube-state-metrics, where
 * the cluster runs it, adds the Deployment's own view (`or` branches that are empty without it).
 */
import {
    KUBELET_METRICS as K, KUBE_STATE_METRICS as KSM, MonitoredModel, TF_SERVING_METRICS as TFS,
    callRates, containerMatchers, deploymentMatchers, inferenceMatchers, podMatchers,
} from "./metrics";
import { SERVER_CONTAINER } from "../contract/labels";

/** The alerts' thresholds (config key `monitoring`); `DEFAULT_THRESHOLDS` are the defaults. */
export interface AlertThresholds {
    /** Percent of predict/classify/regress calls that fail (caller mistakes excluded) over 5 minutes, held for 5 minutes. */
    errorRatioPercent: number;
    /** p99 of successful predict/classify/regress calls over 5 minutes, in milliseconds, held for 10 minutes. */
    p99LatencyMs: number;
    /** Percent of the memory limit the working set may reach (held 5 minutes) before the reload peak would OOM. */
    memoryLimitPercent: number;
    /** Minutes a pod may not serve (or the model have no serving pod) before the alert fires. */
    notReadyMinutes: number;
    /** Container restarts within 15 minutes that fire the restart alert. */
    restarts: number;
}

/** Defaults a team would keep: a 5% error budget burning fast, a half-second p99, 90% of the limit, 5 minutes of not serving. */
export const DEFAULT_THRESHOLDS: AlertThresholds = {
    errorRatioPercent: 5,
    p99LatencyMs: 500,
    memoryLimitPercent: 90,
    notReadyMinutes: 5,
    restarts: 3,
};

export interface AlertRule {
    alert: string;
    expr: string;
    for: string;
    labels: Record<string, string>;
    annotations: Record<string, string>;
}

export interface RuleGroup {
    name: string;
    /** How often the group is evaluated; GKE's `Rules` requires it. */
    interval: string;
    rules: AlertRule[];
}

export const RULE_INTERVAL = "30s";

/**
 * The page that documents every alert, one heading per alert (generated from this module by
 * `npm run docs`). Each alert's `runbook_url` names its section, as kube-prometheus' alerts do with
 * their `runbookURLPattern`; a library user with the docs elsewhere passes another base.
 */
export const RUNBOOK_PAGE = "docs/reference/alerts.md";

/** An alert's runbook: its section of the alerts page (GitHub's anchor of the heading, the alert's name). */
export function runbookUrl(alert: AlertName, base: string = RUNBOOK_PAGE): string {
    return `${base}#${alert.toLowerCase()}`;
}

/** The alerts, by name, in the order the rule group lists them. */
export const ALERT_NAMES = [
    "TFServingModelUnavailable",
    "TFServingPodsNotReady",
    "TFServingRolloutStuck",
    "TFServingModelLoadFailing",
    "TFServingContainerOOMKilled",
    "TFServingContainerRestarting",
    "TFServingErrorRatioHigh",
    "TFServingLatencyP99High",
    "TFServingMemoryNearLimit",
] as const;
export type AlertName = (typeof ALERT_NAMES)[number];

/** The rule group's name for a model: one group per model server. */
export function ruleGroupName(model: MonitoredModel): string {
    return `tf-serving.${model.namespace}.${model.name}`;
}

/**
 * `F` counted within `window`: `increase()` misses the first count of a series born at 1 (a counter
 * TF Serving creates at its first failure), so a series that is new within the window counts too.
 */
function countedWithin(series: string, window: string): string {
    return `(increase(${series}[${window}]) > 0) or (${series} > 0 unless ${series} offset ${window})`;
}

/** The model's alert rules with `thresholds`; each alert's `runbook_url` is its section under `runbookBase`. */
export function alertRules(model: MonitoredModel, thresholds: AlertThresholds = DEFAULT_THRESHOLDS, runbookBase: string = RUNBOOK_PAGE): RuleGroup {
    const pods = podMatchers(model);
    const containers = containerMatchers(model);
    const inference = inferenceMatchers(model);
    const calls = callRates(model, "namespace, model_name");
    const deployment = deploymentMatchers(model);
    const notReadyFor = `${thresholds.notReadyMinutes}m`;
    const doctor = `Diagnose: tfs doctor --namespace ${model.namespace} --model ${model.name} (or tfs doctor --stack STACK).`;
    const rule = (alert: AlertName, severity: "critical" | "warning", expr: string, forWindow: string, summary: string, description: string): AlertRule => ({
        alert,
        expr,
        for: forWindow,
        // `namespace` for the Prometheus Operator's PrometheusRule and a plain Prometheus' rule file,
        // which evaluate over every namespace's series and add nothing: each alert carries it whatever
        // its expression aggregates away. GMP's Rules add it themselves and refuse it (gmpRuleGroup).
        labels: { severity, model: model.name, namespace: model.namespace },
        annotations: { summary, description: `${description} ${doctor}`, runbook: doctor, runbook_url: runbookUrl(alert, runbookBase) },
    });
    // Restarts within 15 minutes, of pods that still exist: a replaced pod's history stays in the
    // window for 15 minutes, and the alert would outlive the rollout that fixed it.
    const restartsBySeries = `count by (namespace, pod) (count_over_time(${K.startTime}{${containers}}[15m])) - 1`;
    return {
        name: ruleGroupName(model),
        interval: RULE_INTERVAL,
        rules: [
            rule("TFServingModelUnavailable", "critical",
                `(sum by (namespace) (${K.up}{${pods}}) == 0) or absent(${K.up}{${pods}})`, notReadyFor,
                `No pod of model ${model.name} serves: no version is AVAILABLE`,
                `Not one pod of ${model.namespace}/${model.name} has answered its metrics scrape for ${notReadyFor}; TF Serving opens its ports only once a version is AVAILABLE, so none is (the model fails to load, the pods crash, or there are none).`),
            rule("TFServingPodsNotReady", "warning",
                `(${K.up}{${pods}} == 0) or ((${KSM.specReplicas}{${deployment}} - ${KSM.availableReplicas}{${deployment}}) > 0)`, notReadyFor,
                `A pod of model ${model.name} has not served for ${notReadyFor}`,
                `Pod {{ $labels.pod }} of ${model.namespace}/${model.name} does not answer on its REST port (it is still loading, its model path is wrong, or it crashed), or the Deployment has fewer available replicas than desired; a rollout that stays here makes no progress.`),
            rule("TFServingRolloutStuck", "warning",
                `${KSM.deploymentCondition}{${deployment}, condition="Progressing", status="false"} == 1`, "1m",
                `The rollout of model ${model.name} passed its progress deadline`,
                `Deployment ${model.namespace}/${model.name} reports Progressing=False (ProgressDeadlineExceeded): its new pods never became available. Needs kube-state-metrics; without it TFServingPodsNotReady covers the new pods.`),
            rule("TFServingModelLoadFailing", "warning",
                countedWithin(`${TFS.loadAttemptCount}{${pods}, status="fail"}`, "15m"), "1m",
                `A SavedModel load of model ${model.name} failed`,
                `Pod {{ $labels.pod }} failed to load {{ $labels.model_path }} within the last 15 minutes. A version that never loads keeps the port closed (TFServingPodsNotReady); this alert sees the failures of later versions while an old one serves.`),
            rule("TFServingContainerOOMKilled", "critical",
                `${countedWithin(`${K.oomEvents}{${containers}}`, "15m")} or ((${KSM.lastTerminatedReason}{${containers}, reason="OOMKilled"} == 1) and on (namespace, pod, container) (increase(${KSM.restarts}{${containers}}[15m]) > 0))`, "1m",
                `The TF Serving container of model ${model.name} was OOMKilled`,
                `Container ${SERVER_CONTAINER} of pod {{ $labels.pod }} hit its memory limit within the last 15 minutes: the limit is below the model's reload peak, or memory grows under load. Raise memoryLimit (or let it be derived from the model).`),
            rule("TFServingContainerRestarting", "warning",
                `((${restartsBySeries} >= ${thresholds.restarts}) and on (namespace, pod) count by (namespace, pod) (${K.startTime}{${containers}}))`
                + ` or ((increase(${KSM.restarts}{${containers}}[15m]) >= ${thresholds.restarts}) and on (namespace, pod, container) ${KSM.restarts}{${containers}})`, "1m",
                `The TF Serving container of model ${model.name} keeps restarting`,
                `Container ${SERVER_CONTAINER} of pod {{ $labels.pod }} restarted at least ${thresholds.restarts} times in 15 minutes (CrashLoopBackOff: a model that fails to load exits after its retries, an OOM kill, a bad flag).`),
            rule("TFServingErrorRatioHigh", "critical",
                `${calls.errors} / ${calls.calls} * 100 > ${thresholds.errorRatioPercent}`, "5m",
                `More than ${thresholds.errorRatioPercent}% of the inference calls to model ${model.name} fail`,
                `{{ $value | printf "%.1f" }}% of the predict, classify and regress calls to ${model.namespace}/${model.name} returned an error status (INVALID_ARGUMENT, the caller's mistake, is left out) over 5 minutes.`),
            rule("TFServingLatencyP99High", "warning",
                `histogram_quantile(0.99, sum by (namespace, model_name, le) (rate(${TFS.requestLatency}_bucket{${inference}}[5m]))) / 1000 > ${thresholds.p99LatencyMs}`, "10m",
                `The p99 latency of model ${model.name} is above ${thresholds.p99LatencyMs} ms`,
                `The 99th percentile of successful predict, classify and regress calls to ${model.namespace}/${model.name} has been {{ $value | printf "%.0f" }} ms (SLO ${thresholds.p99LatencyMs} ms) for 10 minutes: the pods are saturated (scale out, batching) or the model got slower.`),
            rule("TFServingMemoryNearLimit", "warning",
                `max by (namespace, pod) (${K.memoryWorkingSet}{${containers}}) / max by (namespace, pod) (${K.memoryLimit}{${containers}} > 0) * 100 > ${thresholds.memoryLimitPercent}`, "5m",
                `Model ${model.name} uses more than ${thresholds.memoryLimitPercent}% of its memory limit`,
                `Pod {{ $labels.pod }} holds {{ $value | printf "%.0f" }}% of its memory limit: a version reload (two versions in memory) or more load will OOMKill it.`),
        ],
    };
}
