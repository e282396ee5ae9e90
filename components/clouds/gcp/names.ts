/**
 * The forms of Google Cloud names the GCP components take, one place for each (pure): the cluster's
 * resolver, the registry's and the adapter's check their arguments against these.
 */
import type { ArgsIssue } from "../../argsIssues";

/** A project id, optionally domain-scoped (`example.com:my-project`: a DNS name of two labels or more, a colon, the id). */
export const PROJECT_ID = /^([a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+:)?[a-z][a-z0-9-]{4,28}[a-z0-9]$/;
/** A Compute Engine region (`us-central1`), never a zone (`us-central1-a`). */
export const GCP_REGION = /^[a-z]+-[a-z]+[0-9]+$/;
/** An Artifact Registry repository id. */
export const REPOSITORY_ID = /^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;
/** The multi-regions Artifact Registry serves besides the regions. */
export const MULTI_REGIONS = ["us", "europe", "asia"] as const;

/** `field`'s issue when `project` is no project id. */
export function projectIdIssue(field: string, project: unknown): ArgsIssue | undefined {
    return typeof project === "string" && PROJECT_ID.test(project) ? undefined : {
        field, value: project,
        message: "must be a project id: 6-30 lowercase letters, digits and '-', starting with a letter and not ending with '-' " +
            "(e.g. my-project), or a domain-scoped id (e.g. example.com:my-project); not the project's display name or number " +
            "(`gcloud projects list` shows the ids)",
    };
}
