/**
 * `GkeCluster`'s checks across its fields, pure: the component throws what they find, and the `gke`
 * config section records it under its keys (`components/argsIssues.ts`).
 */
import { ipv4BlocksOverlap } from "../../../contract/cidr";
import type { ArgsIssue } from "../../argsIssues";

/**
 * The fields the checks read, defaults filled (`withGkeClusterDefaults`), as `GkeClusterArgs` types
 * them: written out, not picked from it, so that the component imports its checks and not the reverse
 * (test/unit/project/importCycles.test.ts); both callers pass the Args, which the compiler holds to this.
 */
export interface GkeClusterChecked {
    region: string;
    zones?: string[];
    privateNodes: boolean;
    subnetCidr: string;
    masterCidr: string;
    apiAccessCidrs?: string[];
    gpuPool?: { acceleratorType: string };
}

/**
 * What GKE or the cluster's users would refuse in `args`. `key` names another field in a message
 * (the config layer's `gke.subnetCidr`; the field itself for a library user).
 */
export function gkeClusterIssues(args: GkeClusterChecked, key: (field: string) => string = (field) => field): ArgsIssue[] {
    const issues: ArgsIssue[] = [];
    const region = args.region || "us-central1";
    if (args.apiAccessCidrs !== undefined && args.apiAccessCidrs.length === 0) {
        issues.push({ field: "apiAccessCidrs", value: [], message: "is empty, which would lock everyone out of the Kubernetes API; list your CIDRs, or remove the key to allow any address" });
    }
    if (args.zones !== undefined && args.zones.length === 0) {
        // An empty list says nothing the provider keeps (an empty nodeLocations is as if unset): GKE would pick the
        // zones, silently, and a GPU pool would skip the check that its zones have the accelerator.
        issues.push({
            field: "zones", value: [],
            message: `is empty, which leaves the zones to GKE as if the key were unset: list zones of ${args.region || "the region"} (e.g. [${region}-a])` +
                (args.gpuPool ? ` that have ${args.gpuPool.acceleratorType}, which ${key("gpuPool")} needs` : ", or remove the key"),
        });
    }
    if (args.gpuPool && args.zones === undefined) {
        issues.push({
            field: "zones", value: undefined,
            message: `required with ${key("gpuPool")}: GPUs are zonal and not every zone of ${args.region || "the region"} has ${args.gpuPool.acceleratorType}; ` +
                `list zones that do (\`gcloud compute accelerator-types list --filter=name=${args.gpuPool.acceleratorType}\`), e.g. [${region}-a]`,
        });
    }
    // The control plane's range is peered into the cluster's network, whose ranges must not overlap it (the provider's
    // master_ipv4_cidr_block: "must not overlap with any other ranges in use within the cluster's network").
    if (args.privateNodes && ipv4BlocksOverlap(args.subnetCidr, args.masterCidr)) {
        issues.push({
            field: "masterCidr", value: args.masterCidr,
            message: `overlaps ${key("subnetCidr")} (${args.subnetCidr}), and GKE refuses a control plane range that overlaps a range of the cluster's network: ` +
                "choose a /28 outside it, e.g. \"172.16.0.0/28\" (the default)",
        });
    }
    return issues;
}
