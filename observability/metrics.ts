/**
 * The metrics the alerts and the dashboard read, by their names on the scrape, and the selectors
 * that narrow them to one model's pods.
 *
 * TF Serving's names (`servables/tensorflow/util.cc`, and TensorFlow's `cc/saved_model/loader.cc`)
 * are internal paths such as `/tensorflow/serving/request_count`; its Prometheus exporter
 * (`util/prometheus_exporter.cc`) replaces every character outside `[a-zA-Z0-9_]` with `:`, so the
 * scrape shows `:tensorflow:serving:request_count`. Histograms get Prometheus' `_bucket`, `_sum` and
 * `_count` suffixes with `le` buckets; latencies are in microseconds.
 */
import { SERVER_CONTAINER } from "../contract/labels";

/** TensorFlow Serving's internal metric name as its Prometheus endpoint spells it. */
export function tfServingPrometheusName(internal: string): string {
    const name = internal.replace(/[^a-zA-Z0-9_]/g, ":");
    return /^[0-9]/.test(name) ? `_${name}` : name;
}

/** TF Serving's metrics, each with the labels it carries on the scrape. */
export const TF_SERVING_METRICS = {
    /**
     * Counter; labels `model_name`, `status` (the error code's name: `OK`, `NOT_FOUND`, `INVALID_ARGUMENT`,
     * ...), and no `API`. Every gRPC predict, classify and regress call, and every REST request under
     * `/v1/`: the status and metadata GETs too, so the kubelet's probes and the load balancers' health
     * checks count here as `OK` (`model_servers/http_server.cc`, `ProcessRequest`).
     */
    requestCount: tfServingPrometheusName("/tensorflow/serving/request_count"),
    /**
     * Histogram in microseconds; labels `model_name`, `API`, `entrypoint` (`GRPC`, `REST`); successful
     * calls only, no `status` label in any release read (2.19.1, 2.20.0, 2.21). `API` is `INFERENCE_APIS` for
     * the calls that run the model, `""` for REST's status and metadata GETs.
     */
    requestLatency: tfServingPrometheusName("/tensorflow/serving/request_latency"),
    /** Counter; labels `model_path` (the version folder), `status` (`success` | `fail`). One per SavedModel load attempt. */
    loadAttemptCount: tfServingPrometheusName("/tensorflow/cc/saved_model/load_attempt_count"),
    /** Counter of microseconds spent loading; label `model_path`. */
    loadLatency: tfServingPrometheusName("/tensorflow/cc/saved_model/load_latency"),
} as const;

/**
 * The kubelet's metrics: `up` is Prometheus' own (1 when the pod's metrics endpoint answered), the
 * `container_*` series come from the kubelet's cAdvisor endpoint (`/metrics/cadvisor`), each with
 * `namespace`, `pod` and `container` labels.
 */
export const KUBELET_METRICS = {
    up: "up",
    memoryWorkingSet: "container_memory_working_set_bytes",
    memoryLimit: "container_spec_memory_limit_bytes",
    oomEvents: "container_oom_events_total",
    /** One series per container instance: a restart starts a new series (a new container id). */
    startTime: "container_start_time_seconds",
} as const;

/** kube-state-metrics' series, where the cluster runs it (GKE's managed package, kube-prometheus-stack). */
export const KUBE_STATE_METRICS = {
    specReplicas: "kube_deployment_spec_replicas",
    availableReplicas: "kube_deployment_status_replicas_available",
    deploymentCondition: "kube_deployment_status_condition",
    restarts: "kube_pod_container_status_restarts_total",
    lastTerminatedReason: "kube_pod_container_status_last_terminated_reason",
} as const;

/** One model's server, as its metrics name it. */
export interface MonitoredModel {
    /** The TF Serving model name: also the Deployment's name and the pods' name prefix. */
    name: string;
    /** The namespace its pods run in. */
    namespace: string;
}

/**
 * The pods of a model's Deployment: `<deployment>-<replicaset hash>-<pod suffix>`. Neither part after
 * the model name holds a `-`, so a model `a` never matches the pods of a model `a-b`.
 */
export function podPattern(model: MonitoredModel): string {
    return `${model.name}-[a-z0-9]+-[a-z0-9]+`;
}

/** PromQL label matchers (inside `{}`) for a model's pods' own series: `up`, TF Serving's metrics on the pods. */
export function podMatchers(model: MonitoredModel): string {
    return `namespace="${model.namespace}", pod=~"${podPattern(model)}"`;
}

/** Matchers for the server container's cAdvisor series. */
export function containerMatchers(model: MonitoredModel): string {
    return `${podMatchers(model)}, container="${SERVER_CONTAINER}"`;
}

/** Matchers for TF Serving's request metrics of this model (a pod may serve several models). */
export function requestMatchers(model: MonitoredModel): string {
    return `namespace="${model.namespace}", model_name="${model.name}"`;
}

/** Matchers for kube-state-metrics' series of the model's Deployment. */
export function deploymentMatchers(model: MonitoredModel): string {
    return `namespace="${model.namespace}", deployment="${model.name}"`;
}

/** Request statuses that are the caller's mistake (a malformed body), left out of the error ratio. */
export const CLIENT_ERROR_STATUSES = ["INVALID_ARGUMENT"] as const;

/**
 * The `API` values of `request_latency` for calls that run the model. gRPC names its method
 * (`model_servers/prediction_service_impl.cc`: "Predict", "Classify", "Regress"); REST passes the
 * verb its URL matched (`http_server.cc` records `api=method`, the last group of
 * `http_rest_api_util.cc`'s kPredictionApiGegex), and only the lowercase spelling is dispatched
 * (`http_rest_api_handler.cc` compares `*method == "predict"`), so only it succeeds and is recorded.
 */
export const INFERENCE_APIS = ["Predict", "Classify", "Regress", "predict", "classify", "regress"] as const;

/** Matchers for the latency histogram of this model's inference calls, without the status GETs of probes and health checks. */
export function inferenceMatchers(model: MonitoredModel): string {
    return `${requestMatchers(model)}, API=~"${INFERENCE_APIS.join("|")}"`;
}

/**
 * Per-second rates over 5 minutes, by `by` (label names, comma-separated), of the model's failed calls
 * (caller mistakes left out) and of its calls (those failures plus the successful inference calls). `request_count` cannot tell an
 * inference call from a probe's status GET (it has no `API`), and the probes' GETs answer `OK`: its
 * `OK` series is diluted by them, its error series is not. So the calls are the errors plus the
 * latency histogram's count, which records each successful call once, with its `API`.
 */
export function callRates(model: MonitoredModel, by: string): { errors: string; calls: string } {
    const errors = `sum by (${by}) (rate(${TF_SERVING_METRICS.requestCount}{${requestMatchers(model)}, status!~"OK|${CLIENT_ERROR_STATUSES.join("|")}"}[5m]))`;
    const successes = `sum by (${by}) (rate(${TF_SERVING_METRICS.requestLatency}_count{${inferenceMatchers(model)}}[5m]))`;
    // TF Serving creates a status's series at its first call: a model that never failed has no error
    // series, one whose every call fails has no success series. `or` counts the missing side as 0.
    const errorsOrNone = `(${errors} or ${successes} * 0)`;
    return { errors: errorsOrNone, calls: `(${errorsOrNone} + (${successes} or ${errors} * 0))` };
}
