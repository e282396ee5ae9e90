/**
 * EKS managed add-ons the cluster needs beyond what EKS bootstraps (argument builders and the
 * version lookup; `EksCluster` registers them):
 *
 * - `vpc-cni` with network policy enforcement. EKS installs the VPC CNI on every cluster but leaves
 *   its network policy agent off, so a NetworkPolicy is accepted and silently not enforced. Taking the
 *   CNI over as a managed add-on (OVERWRITE adopts the self-managed one EKS bootstrapped) lets us set
 *   `enableNetworkPolicy`; the add-on's schema takes it as the string "true", not a boolean.
 * - `eks-pod-identity-agent`, only with the AWS Load Balancer Controller (`endpoint: gateway`): the
 *   node agent that hands pods the credentials of the IAM role their service account is associated
 *   with (EKS Pod Identity); EKS does not install it.
 * - `metrics-server`, only when a model autoscales: EKS does not install it, and without it an HPA
 *   reads no CPU metrics and never scales (`kubectl describe hpa`: "unable to get metrics").
 *
 * Each add-on gets an explicit `addonVersion`: EKS's default version of it for the control plane's
 * Kubernetes version (`addonVersionFor`). EKS does not move add-ons when the control plane moves, and
 * an add-on left on the old version is not updated by Pulumi either (nothing in its inputs changed);
 * with the version derived from the cluster's, a Kubernetes bump updates them in the same `pulumi up`.
 * The default, not the most recent version: a new build published by AWS does not turn every preview
 * into an update.
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";

/** The VPC CNI add-on's configuration: its network policy agent on (string "true", as its JSON schema wants). */
export const VPC_CNI_CONFIGURATION = { enableNetworkPolicy: "true" } as const;

/** EKS's default version of `addonName` for the cluster's Kubernetes version (asked through the cluster's provider). */
export function addonVersionFor(addonName: string, kubernetesVersion: pulumi.Input<string>, opts: pulumi.InvokeOutputOptions): pulumi.Output<string> {
    return aws.eks.getAddonVersionOutput({ addonName, kubernetesVersion, mostRecent: false }, opts).version;
}

/** The VPC CNI as a managed add-on, enforcing NetworkPolicy. */
export function vpcCniAddonArgs(clusterName: pulumi.Input<string>, addonVersion: pulumi.Input<string>): aws.eks.AddonArgs {
    return {
        clusterName,
        addonName: "vpc-cni",
        addonVersion,
        configurationValues: JSON.stringify(VPC_CNI_CONFIGURATION),
        // Adopt the self-managed CNI EKS installed at creation, and put enforcement back if someone edits it off.
        resolveConflictsOnCreate: "OVERWRITE",
        resolveConflictsOnUpdate: "OVERWRITE",
    };
}

/**
 * An add-on EKS installs as it ships it. OVERWRITE adopts one someone installed by hand (manifest or
 * Helm) instead of failing on the conflict, and puts it back if someone edits it.
 */
function plainAddonArgs(addonName: string, clusterName: pulumi.Input<string>, addonVersion: pulumi.Input<string>): aws.eks.AddonArgs {
    return { clusterName, addonName, addonVersion, resolveConflictsOnCreate: "OVERWRITE", resolveConflictsOnUpdate: "OVERWRITE" };
}

/** The Kubernetes Metrics Server as a managed add-on: what a HorizontalPodAutoscaler reads CPU from. */
export function metricsServerAddonArgs(clusterName: pulumi.Input<string>, addonVersion: pulumi.Input<string>): aws.eks.AddonArgs {
    return plainAddonArgs("metrics-server", clusterName, addonVersion);
}

/** The EKS Pod Identity agent as a managed add-on: what gives the load balancer controller its IAM role. */
export function podIdentityAgentAddonArgs(clusterName: pulumi.Input<string>, addonVersion: pulumi.Input<string>): aws.eks.AddonArgs {
    return plainAddonArgs("eks-pod-identity-agent", clusterName, addonVersion);
}
