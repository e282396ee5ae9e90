/**
 * The Kubernetes minor versions EKS creates clusters on: the one list the `eks.kubernetesVersion`
 * check reads. EKS supports a minor version for 14 months of standard support, then 12 of extended
 * support (an extra hourly charge per cluster), then upgrades the control planes still on it by itself
 * and creates no new cluster on it; it refuses any other version, but only when the update asks, after
 * the VPC is built.
 *
 * From the EKS version lifecycle (docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html,
 * "Amazon EKS Kubernetes release calendar"): each version with the days its standard and extended
 * support end. 1.36 came to EKS on 2026-06-02 (the EKS release notes, "Kubernetes version 1.36"); its
 * days follow the page's 14-plus-12-months rule until the calendar names them. Versions whose extended
 * support ended before LIST_DATE are left out. Add a version here when EKS releases it, with its
 * Cluster Autoscaler release (components/clouds/aws/clusterAutoscaler.ts).
 */
export const LIST_DATE = "2026-12-04";

export interface EksKubernetesVersion {
    version: string;
    /** The first day (UTC) the version is in extended support, billed by the hour. */
    standardSupportEnds: string;
    /** The first day (UTC) EKS creates no cluster on it and may upgrade existing control planes. */
    extendedSupportEnds: string;
}

export const EKS_KUBERNETES_VERSIONS: readonly EksKubernetesVersion[] = [
    { version: "1.32", standardSupportEnds: "2026-03-23", extendedSupportEnds: "2027-03-23" },
    { version: "1.33", standardSupportEnds: "2026-07-29", extendedSupportEnds: "2027-07-29" },
    { version: "1.34", standardSupportEnds: "2026-12-02", extendedSupportEnds: "2027-12-02" },
    { version: "1.35", standardSupportEnds: "2027-03-27", extendedSupportEnds: "2028-03-27" },
    { version: "1.36", standardSupportEnds: "2027-08-02", extendedSupportEnds: "2028-08-02" },
];

/** The newest version the list holds, the example the refusals give. */
export const NEWEST_EKS_VERSION = EKS_KUBERNETES_VERSIONS[EKS_KUBERNETES_VERSIONS.length - 1].version;

/** Today in UTC as YYYY-MM-DD, the form the list's days take (they compare as strings). */
export function utcDay(now: Date = new Date()): string {
    return now.toISOString().slice(0, 10);
}

const quoted = (versions: readonly EksKubernetesVersion[]) => versions.map((v) => `"${v.version}"`).join(", ");

/** The versions EKS creates clusters on `today`, oldest first. */
export function eksVersionsOn(today: string): EksKubernetesVersion[] {
    return EKS_KUBERNETES_VERSIONS.filter((v) => today < v.extendedSupportEnds);
}

/** The versions in standard support `today` (no extra charge), oldest first. */
export function eksStandardVersionsOn(today: string): EksKubernetesVersion[] {
    return EKS_KUBERNETES_VERSIONS.filter((v) => today < v.standardSupportEnds);
}

const LIFECYCLE_PAGE = "docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html";

/** Why EKS would refuse `version` for a cluster on `today` (YYYY-MM-DD), or undefined. */
export function eksKubernetesVersionProblem(version: string, today: string): string | undefined {
    const supported = eksVersionsOn(today);
    if (supported.some((v) => v.version === version)) {
        return undefined;
    }
    const ended = EKS_KUBERNETES_VERSIONS.find((v) => v.version === version);
    const why = ended !== undefined
        ? `reached the end of EKS extended support on ${ended.extendedSupportEnds}: EKS creates no cluster on it and upgrades the control planes still on it by itself`
        : "is not a version EKS creates clusters on";
    return `${why}; use one of ${quoted(supported)} (EKS's supported versions on ${today}, ${LIFECYCLE_PAGE}; `
        + "components/clouds/aws/kubernetesVersions.ts keeps the list), or remove the key for EKS's default (see docs/getting-started/eks.md#kubernetes-version)";
}

/**
 * A warning when `version` has left standard support on `today`: EKS bills extended support by the
 * cluster-hour and upgrades the control plane by itself when that ends. Undefined otherwise.
 */
export function eksKubernetesVersionWarning(version: string, today: string): string | undefined {
    const entry = eksVersionsOn(today).find((v) => v.version === version);
    if (entry === undefined || today < entry.standardSupportEnds) {
        return undefined;
    }
    return `"${version}" left EKS standard support on ${entry.standardSupportEnds}: the cluster is billed extended support (an extra charge per `
        + `cluster-hour) until ${entry.extendedSupportEnds}, when EKS upgrades its control plane by itself. Move to a version in standard support, `
        + `${quoted(eksStandardVersionsOn(today))}, one minor at a time (${LIFECYCLE_PAGE}; see docs/getting-started/eks.md#kubernetes-version)`;
}
