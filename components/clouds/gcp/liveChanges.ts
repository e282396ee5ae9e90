/**
 * A running GKE stack: the settings it records (`deployedSettings`) and the changes refused or warned
 * about at preview (`config/liveChangeRules.ts` has the shared rules; docs/concepts/changing-a-stack.md the table).
 */
import { formatIpv4Cidr, parseIpv4Cidr } from "../../../contract/cidr";
import { LiveChanges, clusterRename, refuse } from "../../../config/liveChangeRules";
import type { GcpConfig } from "./config";

export interface GkeDeployed {
    project: string;
    region: string;
    clusterName: string;
    deletionProtection: boolean;
    privateNodes: boolean;
    /** Only with `privateNodes` (it means nothing without). */
    masterCidr?: string;
    subnetCidr: string;
}

export function gkeSettingsOf(gke: GcpConfig): GkeDeployed {
    return {
        project: gke.project,
        region: gke.region,
        clusterName: gke.clusterName,
        deletionProtection: gke.deletionProtection,
        privateNodes: gke.privateNodes,
        ...(gke.privateNodes ? { masterCidr: gke.masterCidr } : {}),
        subnetCidr: gke.subnetCidr,
    };
}

export function gkeChanges(from: GkeDeployed, to: GkeDeployed, out: LiveChanges): void {
    for (const key of ["project", "region"] as const) {
        if (from[key] !== to[key]) {
            refuse(out, `gke.${key}`, from[key], to[key], "every resource of the stack lives there, so all of them would be replaced, the cluster deleted first",
                "Deploy the new location as a new stack, move clients over, then `pulumi destroy` this one");
        }
    }
    const renamed = from.clusterName !== to.clusterName;
    if (renamed) {
        clusterRename(out, "gke", from, to.clusterName);
        // The new cluster is created in the stack's one network while the old one still runs there, and GKE
        // refuses a control plane range that overlaps another range of the network (two /28s overlap only when equal).
        if (from.privateNodes && to.privateNodes && from.masterCidr === to.masterCidr && to.masterCidr !== undefined) {
            refuse(out, "gke.masterCidr", from.masterCidr, to.masterCidr,
                `unchanged, but the new cluster "${to.clusterName}" is created beside "${from.clusterName}" in the same network before the old one is deleted, ` +
                "and GKE refuses a control plane range that overlaps one already in the network",
                `Give gke.masterCidr another /28 in the same change, e.g. "${nextBlock(to.masterCidr)}", outside gke.subnetCidr`);
        }
        return;
    }
    // With the name kept, a replaced cluster is deleted before its successor is created (an outage, refused
    // outright while deletion protection is on). terraform-provider-google (google/services/container/
    // resource_container_cluster.go) updates private_cluster_config.enable_private_nodes in place
    // (DesiredDefaultEnablePrivateNodes) but marks master_ipv4_cidr_block ForceNew.
    const wayOut = "Give gke.clusterName a new name in the same change (the new cluster is created beside the old one, which is deleted last: "
        + "set gke.deletionProtection: false and run `pulumi up` once first), or `pulumi destroy` and deploy again";
    const replaced = "so the cluster would be replaced, the old one deleted first under the same name (an outage, refused outright while deletion protection is on)";
    if (!from.privateNodes && to.privateNodes) {
        refuse(out, "gke.privateNodes", from.privateNodes, to.privateNodes,
            `the provider turns private nodes on in place, but with them this program sends the control plane range gke.masterCidr (${to.masterCidr}), ` +
            `which GKE sets only when it creates a cluster (the provider's master_ipv4_cidr_block forces a new one), ${replaced}`, wayOut);
    } else if (from.privateNodes && !to.privateNodes) {
        out.warnings.push("gke.privateNodes: true -> false is applied in place (the provider updates enable_private_nodes), and the stack deletes the Cloud NAT " +
            "it made for private nodes: nodes that still have only private addresses lose internet egress (images pulled from outside Google) until GKE recreates them");
    } else if (to.privateNodes && from.masterCidr !== to.masterCidr) {
        refuse(out, "gke.masterCidr", from.masterCidr, to.masterCidr,
            `GKE sets the control plane range only when it creates a cluster (the provider's master_ipv4_cidr_block forces a new one), ${replaced}`, wayOut);
    }
    if (from.subnetCidr !== to.subnetCidr && !expands(from.subnetCidr, to.subnetCidr)) {
        refuse(out, "gke.subnetCidr", from.subnetCidr, to.subnetCidr,
            `only an expansion of the node range (a larger block containing ${from.subnetCidr}) is applied in place; any other range replaces the subnetwork and so the cluster, ${replaced.replace("so the cluster would be replaced, ", "")}`,
            wayOut.replace("in the same change", "and a range that does not overlap the old one in the same change"));
    }
}

/** The block of the same size right after `cidr` (`172.16.0.0/28` -> `172.16.0.16/28`). */
function nextBlock(cidr: string): string {
    const block = parseIpv4Cidr(cidr);
    return block === undefined ? cidr : formatIpv4Cidr((block.base + 2 ** (32 - block.prefix)) % 2 ** 32, block.prefix);
}

/** True when `to` is a larger block that contains `from` (GCP widens a subnetwork in place). */
export function expands(from: string, to: string): boolean {
    const a = parseIpv4Cidr(from);
    const b = parseIpv4Cidr(to);
    if (a === undefined || b === undefined || b.prefix >= a.prefix) {
        return false;
    }
    const size = 2 ** (32 - b.prefix);
    return a.base - (a.base % size) === b.base;
}
