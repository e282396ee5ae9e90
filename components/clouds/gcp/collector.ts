/**
 * Google Cloud Managed Service for Prometheus (GMP), the `gke` collector: the `PodMonitoring` and
 * `Rules` (monitoring.googleapis.com/v1) it reads, pure (no SDK), so `ModelMonitoring` renders them on
 * any stack. GMP runs on GKE only; the clusters `stacks/gcp.ts` creates get managed collection.
 */
import type { RuleGroup } from "../../../observability/alerts";
import { CollectorObjects, KubeObject, ObjectLabels, metricsEndpoint, modelObject, podSelector } from "../../../observability/collectors";
import type { RecordingGroup } from "../../../observability/requestRate";

/** GKE Managed Service for Prometheus: a `PodMonitoring` of the model's pods. */
export function podMonitoring(model: string, extra: ObjectLabels): KubeObject {
    return modelObject("monitoring.googleapis.com/v1", "PodMonitoring", model, extra, {
        selector: podSelector(model),
        endpoints: [metricsEndpoint()],
        // The alerts and the dashboard group by pod and select on container.
        targetLabels: { metadata: ["pod", "container"] },
    });
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


/**
 * The scrape object and the rules; `recording` goes into the `Rules` only here: GMP's rule evaluator is
 * what produces the request rate the Custom Metrics Stackdriver Adapter serves.
 */
export const GKE_COLLECTOR_OBJECTS: CollectorObjects = (model, group, extra, recording) => [podMonitoring(model, extra), gmpRules(model, group, extra, recording)];
