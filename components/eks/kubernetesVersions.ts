/**
 * The Kubernetes minor versions EKS creates clusters on: the one list the `eks.kubernetesVersion`
 * check reads. EKS supports a minor version for 14 months of standard support, then 12 of extended
 * support (an extra hourly charge), then upgrades clusters still on it; it refuses to create a
 * cluster on any other version, but only when the update asks, after the VPC is built.
 *
 * From the EKS version lifecycle (docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html,
 * release calendar): each version with the day its extended support ends. Versions whose extended
 * support ended before LIST_DATE are left out. Add a version here when EKS releases it.
 */
export const LIST_DATE = "2026-12-01";

export const EKS_KUBERNETES_VERSIONS: readonly { version: string; extendedSupportEnds: string }[] = [
    { version: "1.32", extendedSupportEnds: "2027-03-23" },
    { version: "1.33", extendedSupportEnds: "2027-07-29" },
    { version: "1.34", extendedSupportEnds: "2027-12-02" },
    { version: "1.35", extendedSupportEnds: "2028-03-27" },
];

/** Why EKS would refuse `version` for a new cluster, or undefined. */
export function eksKubernetesVersionProblem(version: string): string | undefined {
    if (EKS_KUBERNETES_VERSIONS.some((v) => v.version === version)) {
        return undefined;
    }
    const known = EKS_KUBERNETES_VERSIONS.map((v) => v.version);
    return `is not a version EKS creates clusters on: use one of ${known.map((v) => `"${v}"`).join(", ")} (EKS's supported versions on ${LIST_DATE}; `
        + "components/eks/kubernetesVersions.ts keeps the list), or remove the key for EKS's default";
}
