/**
 * The `gke` configuration section (cloud: gcp). Minimal first cut; the GKE work extends it.
 */
import { ConfigReader } from "./configReader";

export interface GcpConfig {
    project: string;
    region: string;
    /** Set when the cluster has a GPU node pool. */
    gpuPool?: { acceleratorType: string; acceleratorCount: number };
}

export function readGcpConfig(top: ConfigReader): GcpConfig {
    const r = top.nested("gke") ?? new ConfigReader({}, top.issues, "gke.");
    return {
        project: r.required("project", "the Google Cloud project id"),
        region: r.required("region", "the region, e.g. us-central1"),
    };
}
