/**
 * EKS managed add-ons the cluster needs beyond what EKS bootstraps (pure argument builders, tested
 * without mocks; `EksCluster` registers them):
 *
 * - `vpc-cni` with network policy enforcement. EKS installs the VPC CNI on every cluster but leaves
 *   its network policy agent off, so a NetworkPolicy is accepted and silently not enforced. Taking the
 *   CNI over as a managed add-on (OVERWRITE adopts the self-managed one EKS bootstrapped) lets us set
 *   `enableNetworkPolicy`; the add-on's schema takes it as the string "true", not a boolean.
 * - `metrics-server`, only when a model autoscales: EKS does not install it, and without it an HPA
 *   reads no CPU metrics and never scales (`kubectl describe hpa`: "unable to get metrics").
 *
 * No `addonVersion`: EKS picks the default version for the cluster's Kubernetes version, and moves it
 * with cluster upgrades.
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";

/** The VPC CNI add-on's configuration: its network policy agent on (string "true", as its JSON schema wants). */
export const VPC_CNI_CONFIGURATION = { enableNetworkPolicy: "true" } as const;

/** The VPC CNI as a managed add-on, enforcing NetworkPolicy. */
export function vpcCniAddonArgs(clusterName: pulumi.Input<string>): aws.eks.AddonArgs {
    return {
        clusterName,
        addonName: "vpc-cni",
        configurationValues: JSON.stringify(VPC_CNI_CONFIGURATION),
        // Adopt the self-managed CNI EKS installed at creation, and put enforcement back if someone edits it off.
        resolveConflictsOnCreate: "OVERWRITE",
        resolveConflictsOnUpdate: "OVERWRITE",
    };
}

/** The Kubernetes Metrics Server as a managed add-on: what a HorizontalPodAutoscaler reads CPU from. */
export function metricsServerAddonArgs(clusterName: pulumi.Input<string>): aws.eks.AddonArgs {
    return {
        clusterName,
        addonName: "metrics-server",
        // Adopt a metrics-server someone installed by hand (manifest or Helm) instead of failing on the conflict.
        resolveConflictsOnCreate: "OVERWRITE",
        resolveConflictsOnUpdate: "OVERWRITE",
    };
}
