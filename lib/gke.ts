/**
 * Entry point `tf-serving/gke`: a GKE cluster with CPU and GPU node pools, and an Artifact Registry
 * repository its nodes pull from. Needs `@pulumi/pulumi`, `@pulumi/gcp` and `@pulumi/kubernetes`.
 * Registers nothing when imported.
 */
export { GKE_CLUSTER_DEFAULTS, GKE_RELEASE_CHANNELS, GkeCluster } from "../components/clouds/gcp/cluster";
export type { GkeClusterArgs, GkeReleaseChannel } from "../components/clouds/gcp/cluster";
export { CUSTOM_METRICS_ADAPTER, CustomMetricsStackdriverAdapter } from "../components/clouds/gcp/customMetricsAdapter";
export type { CustomMetricsStackdriverAdapterArgs } from "../components/clouds/gcp/customMetricsAdapter";
export { GKE_BOOT_DISK_TYPES } from "../components/clouds/gcp/nodePool";
export type { GkeBootDiskType, GkeGpuPoolSettings, GkeNodePoolSettings } from "../components/clouds/gcp/nodePool";
export { ArtifactRegistry, GCR_HOSTS } from "../components/clouds/gcp/artifactRegistry";
export type {
    ArtifactRegistryArgs, ArtifactRegistrySettings, GcrHost, GcrRepositorySettings, OwnedRepositorySettings,
} from "../components/clouds/gcp/artifactRegistry";
export { MAX_SOURCE_RANGES, securityPolicyName, sourceRangeRules } from "../components/clouds/gcp/cloudArmor";
export type { SourceRangeRule } from "../components/clouds/gcp/cloudArmor";
