/**
 * The collectors `ModelMonitoring` renders for, by `monitoring.collector`: those any cluster can run
 * (`observability/collectors.ts`) and each cloud's managed one, from its folder (`gke`:
 * `gcp/collector.ts`). Pure: nothing here loads a cloud's SDK. Which collector a cloud's stack
 * defaults to, and which it refuses, its `CloudRules` say.
 */
import { CollectorObjects, KubeObject, ObjectLabels, PORTABLE_COLLECTORS, PORTABLE_COLLECTOR_OBJECTS } from "../../observability/collectors";
import type { RuleGroup } from "../../observability/alerts";
import type { RecordingGroup } from "../../observability/requestRate";
import { GKE_COLLECTOR_OBJECTS } from "./gcp/collector";

/** Who scrapes the pods and evaluates the alert rules. */
export const COLLECTORS = ["gke", ...PORTABLE_COLLECTORS] as const;
export type Collector = (typeof COLLECTORS)[number];

const OBJECTS: Record<Collector, CollectorObjects> = { gke: GKE_COLLECTOR_OBJECTS, ...PORTABLE_COLLECTOR_OBJECTS };

/**
 * The scrape object and the rules object of a model for `collector` (none for `annotations`' scrape and
 * for `none`). `recording` goes into GKE's `Rules` only: there GMP's rule evaluator is what produces the
 * request rate the Custom Metrics Stackdriver Adapter serves.
 */
export function collectorObjects(collector: Collector, model: string, group: RuleGroup, extra: ObjectLabels, recording?: RecordingGroup): KubeObject[] {
    return OBJECTS[collector](model, group, extra, recording);
}
