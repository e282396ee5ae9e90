/**
 * The model server's HorizontalPodAutoscaler (autoscaling/v2), rendered from the stack's `autoscaling`
 * settings: on CPU utilization (the resource metrics API, metrics-server), on the inference request
 * rate per pod (the custom metrics API), or on both, when the HPA follows whichever asks for more
 * pods (the controller computes a count per metric and takes the largest).
 */

/**
 * The custom metrics API's per-pod metric: TF Serving's successful predict, classify and regress calls
 * per second (probe GETs left out). The loopback environment's prometheus-adapter serves it under this
 * name (`tools/e2e-env/go/e2e-env/internal/metricsapi`, `RequestRateMetric`; a unit test pins the two
 * together), from `:tensorflow:serving:request_latency_count` with the `API` values of
 * `observability/metrics.ts`' `INFERENCE_APIS`.
 */
export const INFERENCE_REQUEST_RATE_METRIC = "tfserving_inference_requests_per_second";

/** Loading a model takes a while: scale down slowly so a brief dip does not cost a reload. */
export const DEFAULT_SCALE_DOWN_STABILIZATION_SECONDS = 300;

export interface AutoscalingSettings {
    minReplicas: number;
    maxReplicas: number;
    /** Percent of the pods' CPU request, averaged over the pods. */
    targetCpuUtilization?: number;
    /** Inference calls per second per pod, averaged over the pods. */
    targetRequestsPerSecond?: number;
    /** How long the HPA keeps the highest recent recommendation before it removes pods. Default 300. */
    scaleDownStabilizationSeconds?: number;
}

/**
 * The custom metrics API's metric a request-rate target reads, as the cluster's adapter names it: the
 * loopback environment's prometheus-adapter serves `INFERENCE_REQUEST_RATE_METRIC` itself; GKE's Custom
 * Metrics Stackdriver Adapter serves Cloud Monitoring's metric type with `|` for `/`, narrowed by a
 * selector on the metric's labels (`components/clouds/gcp/customMetricsAdapter.ts`).
 */
export interface PodMetricRef {
    name: string;
    /** Labels the adapter filters the metric's series on; default none. */
    selector?: { matchLabels: Record<string, string> };
}

/** What the loopback environment's (and a self-run) prometheus-adapter serves. */
export const PROMETHEUS_ADAPTER_METRIC: PodMetricRef = { name: INFERENCE_REQUEST_RATE_METRIC };

type Metric =
    | { type: "Resource"; resource: { name: "cpu"; target: { type: "Utilization"; averageUtilization: number } } }
    | { type: "Pods"; pods: { metric: PodMetricRef; target: { type: "AverageValue"; averageValue: string } } };

export interface HpaSpec<Name> {
    scaleTargetRef: { apiVersion: "apps/v1"; kind: "Deployment"; name: Name };
    minReplicas: number;
    maxReplicas: number;
    metrics: Metric[];
    behavior: { scaleDown: { stabilizationWindowSeconds: number } };
}

/**
 * The HPA's spec for the Deployment `deploymentName` (a name or a Pulumi output of one). A CPU-only
 * setting renders exactly what this program rendered before the request rate existed (same fields,
 * same order), so an upgrade changes no live HPA. `requestRateMetric` is the metric a request-rate target
 * reads on this cluster (default `PROMETHEUS_ADAPTER_METRIC`).
 */
export function hpaSpec<Name>(deploymentName: Name, a: AutoscalingSettings, requestRateMetric: PodMetricRef = PROMETHEUS_ADAPTER_METRIC): HpaSpec<Name> {
    if (a.targetCpuUtilization === undefined && a.targetRequestsPerSecond === undefined) {
        throw new Error("autoscaling needs targetCpuUtilization, targetRequestsPerSecond or both");
    }
    const metrics: Metric[] = [];
    if (a.targetCpuUtilization !== undefined) {
        metrics.push({ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: a.targetCpuUtilization } } });
    }
    if (a.targetRequestsPerSecond !== undefined) {
        metrics.push({
            type: "Pods",
            pods: { metric: { ...requestRateMetric }, target: { type: "AverageValue", averageValue: String(a.targetRequestsPerSecond) } },
        });
    }
    return {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: deploymentName },
        minReplicas: a.minReplicas,
        maxReplicas: a.maxReplicas,
        metrics,
        behavior: { scaleDown: { stabilizationWindowSeconds: a.scaleDownStabilizationSeconds ?? DEFAULT_SCALE_DOWN_STABILIZATION_SECONDS } },
    };
}

/**
 * How the Deployment's replica count is held, with an HPA or without, so that each transition between
 * the two keeps the pods the config asks for.
 */
export interface ReplicaOwnership {
    /** The Deployment's `spec.replicas`: `replicas`, or with an HPA its `minReplicas` (what a new Deployment starts with). */
    replicas: number;
    /** The Deployment's `ignoreChanges`: `spec.replicas` while an HPA owns the count. */
    ignoreChanges: string[];
    /** The Deployment's annotations; undefined for none. */
    annotations?: Record<string, string>;
}

/**
 * The Deployment's annotation without an HPA, so that `pulumi up` takes the replica count back when
 * autoscaling is turned off. The HPA writes the count through the `scale` subresource, which makes the
 * kube-controller-manager its field manager; pulumi-kubernetes applies server-side without force
 * unless the inputs carry this annotation (`provider/pkg/await/await.go`, `patchForce`), so the first
 * `pulumi up` without `autoscaling` was refused at preview: "conflict with \"kube-controller-manager\"
 * with subresource \"scale\" using apps/v1: .spec.replicas" (pulumi/pulumi-kubernetes#2491).
 */
export const REPLICAS_FROM_CONFIG_ANNOTATIONS: Readonly<Record<string, string>> = { "pulumi.com/patchForce": "true" };

/**
 * With an HPA, the count stays in the Deployment's inputs, ignored after creation. Leaving it out
 * instead would, the moment autoscaling is turned on, drop a field Pulumi alone owned, and the API
 * server would default it to 1 pod before the HPA acts (Kubernetes' server-side apply docs,
 * "Transferring ownership"). Ignored, pulumi-kubernetes keeps the live count while it owns the field
 * and leaves the field out once the HPA does (`provider/pkg/await/await.go`, `handleSSAIgnoreFields`).
 *
 * Without an HPA, the config's count, taken by force. The annotation is also what changes in the
 * Deployment's inputs when autoscaling is turned off: the engine keeps the old count in the state
 * while it is ignored, and the provider diffs inputs against what it last applied, so without a
 * change there `pulumi up` would delete the HPA and leave the count it set.
 */
export function replicaOwnership(replicas: number, autoscaling: AutoscalingSettings | undefined): ReplicaOwnership {
    return autoscaling === undefined
        ? { replicas, ignoreChanges: [], annotations: { ...REPLICAS_FROM_CONFIG_ANNOTATIONS } }
        : { replicas: autoscaling.minReplicas, ignoreChanges: ["spec.replicas"] };
}

/**
 * Whether an update of the Deployment turns autoscaling off: the inputs it last applied left the count
 * to an HPA (no `REPLICAS_FROM_CONFIG_ANNOTATIONS`), the new ones take it back. The hook that runs
 * before such an update deletes the HPA first (`components/replicaHandback.ts`).
 */
export function turnsAutoscalingOff(oldInputs: Record<string, unknown> | undefined, newInputs: Record<string, unknown> | undefined): boolean {
    return oldInputs !== undefined && !takesCountFromConfig(oldInputs) && newInputs !== undefined && takesCountFromConfig(newInputs);
}

function takesCountFromConfig(inputs: Record<string, unknown>): boolean {
    const annotations = (inputs.metadata as { annotations?: Record<string, unknown> } | undefined)?.annotations ?? {};
    return Object.entries(REPLICAS_FROM_CONFIG_ANNOTATIONS).every(([key, value]) => annotations[key] === value);
}
