/**
 * The request rate a request-rate HPA reads, as a Prometheus recording rule: one series per pod of
 * the model's successful predict, classify and regress calls per second, the probes' status GETs left
 * out (`inferenceMatchers`: the latency histogram's count with an `API` matcher, since the request
 * counter has no `API`).
 *
 * On GKE the rule goes into the model's `Rules` (GMP's rule evaluator runs it) because the Custom
 * Metrics Stackdriver Adapter reads Cloud Monitoring time series one by one: GMP stores TF Serving's
 * histogram as a distribution (`prometheus.googleapis.com/<name>/histogram`), which the adapter refuses
 * ("distributions are not supported"), and it cannot take a rate of one bucket's count. The rule
 * evaluator writes what it records as gauges (GoogleCloudPlatform/prometheus, `google/export/storage.go`:
 * its appender exports with `gaugeMetadata`), so the result is
 * `prometheus.googleapis.com/tfserving_inference_requests_per_second/gauge`, with the `pod` label the
 * adapter matches pods on and the namespace, cluster, location and project GMP sets itself.
 */
import { INFERENCE_REQUEST_RATE_METRIC } from "../serving/autoscaling";
import { INFERENCE_APIS, MonitoredModel, TF_SERVING_METRICS, inferenceMatchers } from "./metrics";
import { RULE_INTERVAL, ruleGroupName } from "./alerts";

export interface RecordingRule {
    record: string;
    expr: string;
}

export interface RecordingGroup {
    name: string;
    /** How often the group is evaluated (GKE's `Rules` requires it). */
    interval: string;
    rules: RecordingRule[];
}

/**
 * The rate window: four of the PodMonitoring's 30 s scrapes, so one missed scrape still leaves a rate,
 * and a load is seen within about a minute and a half (the HPA then reads every 15 s).
 */
export const REQUEST_RATE_WINDOW = "2m";

/** The PromQL of the per-pod rate: kept by `pod` (what the adapter matches) and `model_name` (what the HPA selects on). */
export function requestRateExpr(model: MonitoredModel): string {
    return `sum by (pod, model_name) (rate(${TF_SERVING_METRICS.requestLatency}_count{${inferenceMatchers(model)}}[${REQUEST_RATE_WINDOW}]))`;
}

/** The model's recording group: `INFERENCE_REQUEST_RATE_METRIC` per pod, evaluated as often as the alerts. */
export function requestRateRecording(model: MonitoredModel): RecordingGroup {
    return {
        name: `${ruleGroupName(model)}.request-rate`,
        interval: RULE_INTERVAL,
        rules: [{ record: INFERENCE_REQUEST_RATE_METRIC, expr: requestRateExpr(model) }],
    };
}

/**
 * prometheus-adapter's rule for the same rate (kubernetes-sigs/prometheus-adapter/docs/config.md): the per-pod metric
 * `INFERENCE_REQUEST_RATE_METRIC` from the latency histogram's count, by the series' `namespace` and
 * `pod` labels (which a Prometheus Operator PodMonitor and the usual annotation-based `kubernetes-pods`
 * scrape both set). The loopback environment's rule (`tools/e2e-env/go/e2e-env/internal/metricsapi`,
 * `AdapterConfig`) is the same with its own window; a unit test pins the two together. The HPA's metric
 * selector (`model_name`) joins `<<.LabelMatchers>>`.
 */
export function prometheusAdapterRule(window: string = REQUEST_RATE_WINDOW): Record<string, unknown> {
    const series = `${TF_SERVING_METRICS.requestLatency}_count`;
    return {
        seriesQuery: `${series}{namespace!="",pod!=""}`,
        resources: { overrides: { namespace: { resource: "namespace" }, pod: { resource: "pod" } } },
        name: { matches: `^${series.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`, as: INFERENCE_REQUEST_RATE_METRIC },
        metricsQuery: `sum by (<<.GroupBy>>) (rate(<<.Series>>{<<.LabelMatchers>>,API=~"${INFERENCE_APIS.join("|")}"}[${window}]))`,
    };
}
