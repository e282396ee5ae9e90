/**
 * What the HPA and a canary tell about a model that looks healthy pod by pod: an autoscaler that has
 * not been able to read its metric (it does not scale), and a canary Deployment that outlived its
 * release (it takes nodes and is not the model's serving pods).
 */
import { Finding, Rule, describeEvent, duration, secondsSince } from "./findings";
import { INFERENCE_REQUEST_RATE_METRIC } from "../../serving/autoscaling";
import { eventsFor, isCanary, isPodReady, modelOf, servedModelOf } from "./snapshot";

/**
 * How long an HPA may go without its metric before it is an error: metrics-server and the custom
 * metrics adapters need a scrape or two after a pod starts, so the first minute's failures are normal.
 */
export const HPA_METRIC_GRACE_SECONDS = 180;

/** The HPA's failure reasons (kubernetes pkg/controller/podautoscaler/horizontal.go) and what each needs. */
const METRIC_FIXES: Record<string, string> = {
    FailedGetResourceMetric: "The CPU metric comes from the resource metrics API (metrics-server): check `kubectl get apiservice v1beta1.metrics.k8s.io` "
        + "and `kubectl top pods`; every container of the pods needs a CPU request.",
    FailedGetPodsMetric: `The request rate (${INFERENCE_REQUEST_RATE_METRIC}) comes from the custom metrics API (prometheus-adapter on EKS, the Custom Metrics Stackdriver Adapter on GKE): `
        + "check `kubectl get apiservice v1beta1.custom.metrics.k8s.io` and that the Prometheus it reads scrapes the model pods.",
};

export const autoscalerBlind: Rule = (snapshot, context) => (snapshot.hpas ?? []).flatMap((hpa): Finding[] => {
    const failing = hpa.status?.conditions?.find((c) => (c.type === "ScalingActive" || c.type === "AbleToScale") && c.status === "False");
    if (failing === undefined) {
        return [];
    }
    const since = secondsSince(failing.lastTransitionTime, context);
    const events = eventsFor(snapshot.events, "HorizontalPodAutoscaler", hpa.metadata).filter((e) => e.type === "Warning");
    const reason = [failing.reason, ...events.map((e) => e.reason)].find((r) => r !== undefined && r in METRIC_FIXES);
    const young = since !== undefined && since < HPA_METRIC_GRACE_SECONDS;
    return [{
        kind: "autoscaler-blind",
        severity: young ? "info" : "error",
        object: `horizontalpodautoscaler/${hpa.metadata?.name ?? "(unnamed)"}`,
        model: modelOf(hpa),
        summary: `the HPA cannot scale the model: condition ${failing.type} False${since === undefined ? "" : ` for ${duration(since)}`}, so the replicas stay at ${hpa.status?.currentReplicas ?? "?"} whatever the load`,
        evidence: [
            `condition ${failing.type} False (${failing.reason ?? "?"}): ${failing.message ?? ""}`,
            ...events.slice(0, 2).map(describeEvent),
            `replicas ${hpa.status?.currentReplicas ?? "?"} (min ${hpa.spec?.minReplicas ?? 1}, max ${hpa.spec?.maxReplicas ?? "?"})`,
        ],
        fix: `${reason !== undefined ? METRIC_FIXES[reason] : "Read the condition's message: the HPA names what it could not read."} See docs/guides/autoscaling.md#when-the-hpa-cannot-read-its-metric.`,
    }];
});

/**
 * A canary's pods are not the model's: how long one may run before it is past any release. A release
 * holds at most 10 steps of an hour each (`canary.steps`, `canary.holdSeconds`).
 */
export const CANARY_RELEASE_MAX_SECONDS = 10 * 3600 + 600;

export const canaryLeftOver: Rule = (snapshot, context) => snapshot.deployments.filter(isCanary).flatMap((d): Finding[] => {
    const age = secondsSince(d.metadata?.creationTimestamp, context);
    const model = servedModelOf(d);
    const pods = snapshot.pods.filter((p) => isCanary(p) && modelOf(p) === modelOf(d));
    const stale = age !== undefined && age > CANARY_RELEASE_MAX_SECONDS;
    return [{
        kind: "canary-running",
        severity: stale ? "warning" : "info",
        object: `deployment/${d.metadata?.name ?? "(unnamed)"}`,
        model,
        summary: stale
            ? `model ${model}'s canary Deployment is ${duration(age)} old, older than any release runs: an interrupted release left it, and its pods hold nodes`
            : `model ${model}'s canary is running: a release is in progress${age === undefined ? "" : ` (started ${duration(age)} ago)`}, or an interrupted one left it`,
        evidence: [`${pods.filter(isPodReady).length}/${pods.length} canary pods Ready (${d.spec?.replicas ?? 1} wanted); they are model ${model}'s new version, not a model of their own`],
        fix: `If no \`pulumi up\` is running, run it again: the release finishes or rolls back and removes the canary; or delete it: \`kubectl delete deployment ${d.metadata?.name ?? "NAME"} -n ${snapshot.namespace}\` `
            + "(see docs/guides/canary.md#an-interrupted-release).",
    }];
});
