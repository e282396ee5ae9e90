/**
 * What each collector reads, as plain Kubernetes objects: the scrape object that selects exactly
 * one model's pods and scrapes TF Serving's metrics path on the REST port, and the object that holds
 * the model's alert rules for the collector that evaluates them. The collectors any cluster can run
 * are here; a cloud's managed one is in its folder (`components/clouds/collectors.ts` lists them all).
 *
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

/** The collectors any cluster can run. */
export const PORTABLE_COLLECTORS = ["prometheus-operator", "annotations", "none"] as const;
export type PortableCollector = (typeof PORTABLE_COLLECTORS)[number];

/**
 * A collector's objects for one model: its scrape object and the object holding `group`'s rules;
 * `recording` (the request rate a request-rate HPA reads) where the collector's rule evaluator is what
 * produces it for the cluster's metrics adapter, ignored elsewhere.
 */
export type CollectorObjects = (model: string, group: RuleGroup, extra: ObjectLabels, recording?: RecordingGroup) => KubeObject[];

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
export function modelObject(apiVersion: string, kind: string, model: string, extra: ObjectLabels, spec: Record<string, unknown>): KubeObject {
    return { apiVersion, kind, metadata: { name: model, labels: { ...modelServerLabels(model), ...extra.labels } }, spec };
}

/** The one endpoint scraped: TF Serving's metrics path on the REST port (a new object each time: callers may edit theirs). */
export function metricsEndpoint(): { port: string; path: string; interval: string } {
    return { port: REST_PORT_NAME, path: METRICS_PATH, interval: SCRAPE_INTERVAL };
}

/** The Prometheus Operator: a `PodMonitor` of the model's pods (its namespace only, the operator's default). */
export function podMonitor(model: string, extra: ObjectLabels): KubeObject {
    return modelObject("monitoring.coreos.com/v1", "PodMonitor", model, extra, { selector: podSelector(model), podMetricsEndpoints: [metricsEndpoint()] });
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

/** The portable collectors' objects (none for `annotations`' scrape and for `none`). */
export const PORTABLE_COLLECTOR_OBJECTS: Record<PortableCollector, CollectorObjects> = {
    "prometheus-operator": (model, group, extra) => [podMonitor(model, extra), prometheusRule(model, group, extra)],
    annotations: (model, group) => [rulesConfigMap(model, group)],
    none: () => [],
};
