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
    /** Counter; labels `model_name`, `status` (the error code's name: `OK`, `NOT_FOUND`, `INVALID_ARGUMENT`, ...). Every predict, classify and regress call. */
    requestCount: tfServingPrometheusName("/tensorflow/serving/request_count"),
    /** Histogram in microseconds; labels `model_name`, `API` (`Predict`, ...), `entrypoint` (`GRPC`, `REST`); successful calls only. Newer releases add `status`. */
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
