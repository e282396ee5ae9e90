/**
 * Entry point `tf-serving/gke`: a GKE cluster with CPU and GPU node pools, and an Artifact Registry
 * repository its nodes pull from. Needs `@pulumi/pulumi`, `@pulumi/gcp` and `@pulumi/kubernetes`.
 * Registers nothing when imported.
 */
export { GKE_CLUSTER_DEFAULTS, GKE_RELEASE_CHANNELS, GkeCluster } from "../components/gke/cluster";
export type { GkeClusterArgs, GkeReleaseChannel } from "../components/gke/cluster";
export { CUSTOM_METRICS_ADAPTER, CustomMetricsStackdriverAdapter } from "../components/gke/customMetricsAdapter";
export type { CustomMetricsStackdriverAdapterArgs } from "../components/gke/customMetricsAdapter";
export { GKE_BOOT_DISK_TYPES } from "../components/gke/nodePool";
export type { GkeBootDiskType, GkeGpuPoolSettings, GkeNodePoolSettings } from "../components/gke/nodePool";
export { ArtifactRegistry, GCR_HOSTS } from "../components/registry/artifactRegistry";
export type {
    ArtifactRegistryArgs, ArtifactRegistrySettings, GcrHost, GcrRepositorySettings, OwnedRepositorySettings,
} from "../components/registry/artifactRegistry";
