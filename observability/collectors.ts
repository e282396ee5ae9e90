/**
 * What each collector reads, as plain Kubernetes objects: the scrape object that selects exactly
 * one model's pods and scrapes TF Serving's metrics path on the REST port, and the object that holds
 * the model's alert rules for the collector that evaluates them.
 *
 * - `gke`: Managed Service for Prometheus reads `PodMonitoring` and `Rules` (monitoring.googleapis.com/v1).
 * - `prometheus-operator`: the Prometheus Operator (kube-prometheus-stack) reads `PodMonitor` and
 *   `PrometheusRule` (monitoring.coreos.com/v1).
 * - `annotations`: a Prometheus configured to scrape pods by their `prometheus.io/*` annotations
 *   (the pods carry them whatever the collector); the rules come as a rule file in a ConfigMap.
 * - `none`: nothing but the annotations.
 */
import { stringify } from "yaml";
import { modelServerLabels, REST_PORT_NAME } from "../contract/labels";
import { METRICS_PATH } from "../serving/flags";
import { RuleGroup } from "./alerts";
import { RecordingGroup } from "./requestRate";

export const COLLECTORS = ["gke", "prometheus-operator", "annotations", "none"] as const;
export type Collector = (typeof COLLECTORS)[number];

/** How often the model's pods are scraped: TF Serving renders every metric on each scrape, so not more often. */
export const SCRAPE_INTERVAL = "30s";

/** A Kubernetes object as the collector reads it (apiVersion, kind, metadata.name, spec). */
export interface KubeObject {
    apiVersion: string;
    kind: string;
    metadata: { name: string; labels?: Record<string, string> };
    spec?: Record<string, unknown>;
    data?: Record<string, string>;
}

/** Labels a Prometheus selects scrape and rule objects on (kube-prometheus-stack's: `release`). */
export interface ObjectLabels {
    /** Extra labels on the scrape and rule objects, e.g. `{ release: "kube-prometheus-stack" }`. */
    labels: Record<string, string>;
}

/** The selector of exactly one model's pods: the model-server labels `ModelServer` writes. */
export function podSelector(model: string): { matchLabels: Record<string, string> } {
    return { matchLabels: modelServerLabels(model) };
}

/** An object of the model's, labelled as its server is (and with `extra`), for a collector to read. */
function modelObject(apiVersion: string, kind: string, model: string, extra: ObjectLabels, spec: Record<string, unknown>): KubeObject {
    return { apiVersion, kind, metadata: { name: model, labels: { ...modelServerLabels(model), ...extra.labels } }, spec };
}

/** The one endpoint scraped: TF Serving's metrics path on the REST port (a new object each time: callers may edit theirs). */
function metricsEndpoint(): { port: string; path: string; interval: string } {
    return { port: REST_PORT_NAME, path: METRICS_PATH, interval: SCRAPE_INTERVAL };
}

/** GKE Managed Service for Prometheus: a `PodMonitoring` of the model's pods. */
export function podMonitoring(model: string, extra: ObjectLabels): KubeObject {
    return modelObject("monitoring.googleapis.com/v1", "PodMonitoring", model, extra, {
        selector: podSelector(model),
        endpoints: [metricsEndpoint()],
        // The alerts and the dashboard group by pod and select on container.
        targetLabels: { metadata: ["pod", "container"] },
    });
}

/** The Prometheus Operator: a `PodMonitor` of the model's pods (its namespace only, the operator's default). */
export function podMonitor(model: string, extra: ObjectLabels): KubeObject {
    return modelObject("monitoring.coreos.com/v1", "PodMonitor", model, extra, { selector: podSelector(model), podMetricsEndpoints: [metricsEndpoint()] });
}

/**
 * The labels GMP writes itself on every result of a namespaced `Rules` (the Rules' namespace, and the
 * cluster's project_id, location and cluster), after adding an equality matcher on each to every
 * selector of its expressions. Its validating webhook refuses a rule that sets one of them ("label
 * already set on rule"), and a selector that matches one otherwise than `="<the Rules' namespace>"`
 * ("conflicting label matcher"): GoogleCloudPlatform/prometheus-engine,
 * pkg/operator/apis/monitoring/v1/rules_config.go, `scope`, `setLabel` and `setSelector`, called by
 * `Rules.ValidateCreate` (rules_types.go) with empty project, location and cluster.
 */
export const GMP_SCOPE_LABELS = ["project_id", "location", "cluster", "namespace"] as const;

/** The group as GMP accepts it: without the labels GMP sets itself (to the same values: the Rules live in the model's namespace). */
export function gmpRuleGroup(group: RuleGroup): RuleGroup {
    const managed: readonly string[] = GMP_SCOPE_LABELS;
    return {
        ...group,
        rules: group.rules.map((r) => ({ ...r, labels: Object.fromEntries(Object.entries(r.labels).filter(([k]) => !managed.includes(k))) })),
    };
}

/**
 * GKE's `Rules`: namespaced, so GMP scopes its queries to the namespace's series and labels its alerts
 * with it. `recording` (the request rate a request-rate HPA reads on GKE, `requestRateRecording`) comes
 * as a second group; without it the object is what it always was.
 */
export function gmpRules(model: string, group: RuleGroup, extra: ObjectLabels, recording?: RecordingGroup): KubeObject {
    return modelObject("monitoring.googleapis.com/v1", "Rules", model, extra, { groups: [gmpRuleGroup(group), ...(recording ? [recording] : [])] });
}

/** The Prometheus Operator's `PrometheusRule`. */
export function prometheusRule(model: string, group: RuleGroup, extra: ObjectLabels): KubeObject {
    return modelObject("monitoring.coreos.com/v1", "PrometheusRule", model, extra, { groups: [group] });
}

/** A Prometheus rule file (`rule_files:`) holding the groups, as `promtool check rules` reads it. */
export function ruleFile(groups: RuleGroup[]): string {
    return stringify({ groups }, { lineWidth: 0 });
}

/** The rule file's key in the rules ConfigMap of the `annotations` collector. */
export function ruleFileName(model: string): string {
    return `${model}.rules.yaml`;
}

/** Label of the ConfigMaps that hold rule files, for a Prometheus that mounts them. */
export const RULES_CONFIGMAP_LABEL = "tf-serving.dev/prometheus-rules";

/** The `annotations` collector's rules: a ConfigMap a self-run Prometheus mounts as a rule file. */
export function rulesConfigMap(model: string, group: RuleGroup): KubeObject {
    return {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: `${model}-prometheus-rules`, labels: { ...modelServerLabels(model), [RULES_CONFIGMAP_LABEL]: "true" } },
        data: { [ruleFileName(model)]: ruleFile([group]) },
    };
}

/**
 * The scrape object and the rules object of a model for `collector` (none for `annotations`' scrape and
 * for `none`). `recording` goes into GKE's `Rules` only: there GMP's rule evaluator is what produces the
 * request rate the Custom Metrics Stackdriver Adapter serves.
 */
export function collectorObjects(collector: Collector, model: string, group: RuleGroup, extra: ObjectLabels, recording?: RecordingGroup): KubeObject[] {
    switch (collector) {
        case "gke":
            return [podMonitoring(model, extra), gmpRules(model, group, extra, recording)];
        case "prometheus-operator":
            return [podMonitor(model, extra), prometheusRule(model, group, extra)];
        case "annotations":
            return [rulesConfigMap(model, group)];
        case "none":
            return [];
    }
}
