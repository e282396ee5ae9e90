/** cloud: gcp, as the config layer sees it before loading anything of it (`CloudAbout`). */
import type { CloudAbout } from "../cloud";

export const gcpAbout: CloudAbout = {
    ownKeys: ["gke"],
    createsInstead: "GKE uses Artifact Registry and the cluster this stack creates",
    sdk: "@pulumi/gcp",
};
