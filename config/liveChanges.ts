/**
 * Changing a running stack: the settings a cloud stack records when it is deployed (its
 * `deployedSettings` output) and the transitions from them that are refused at preview, because the
 * cloud or the provider would fail halfway, delete the cluster first, or silently keep the old value.
 * Pure: the stack reads the record back (`stacks/stateRecords.ts`) and hands it here;
 * docs/concepts/changing-a-stack.md has the table of every key.
 */
import { formatIpv4Cidr, parseIpv4Cidr } from "../contract/cidr";
import type { SubnetScheme } from "../components/clouds/aws/vpc";
import type { AwsConfig } from "../components/clouds/aws/config";
import type { EndpointKind } from "./config";
import type { ConfigIssue } from "./configReader";
import type { GcpConfig } from "../components/clouds/gcp/config";

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

export type EksNetworkDeployed =
    | {
        kind: "create";
        cidr: string;
        zones: string[];
        subnetScheme: SubnetScheme;
        /** The zones the cluster was created with: EKS accepts control plane subnets in those only, so later zones serve nodes and load balancers. */
        clusterZones: string[];
    }
    | { kind: "existing"; privateSubnetIds: string[]; publicSubnetIds: string[] };

export interface EksDeployed {
    region: string;
    clusterName: string;
    deletionProtection: boolean;
    /** The control plane's version as EKS reports it (not the config key, which may be unset). */
    kubernetesVersion?: string;
    network: EksNetworkDeployed;
    /** The ECR repositories (`PREFIX/MODEL`) and whether they may be deleted with their images. */
    repositories: string[];
    forceDelete: boolean;
    /** `gateway` when the models are behind an ALB of the AWS Load Balancer Controller; absent: the Service's NLB (all that earlier versions built). */
    endpoint?: "gateway";
}

/** The `deployedSettings` record; `schema` is `STATE_SCHEMA` (`stacks/stateRecords.ts`, which reads it back). */
export type DeployedSettings =
    | { schema: number; cloud: "gcp"; gke: GkeDeployed }
    | { schema: number; cloud: "aws"; eks: EksDeployed };

/**
 * What the program knows about the deployed stack at preview:
 * - `new`: never deployed (no outputs): nothing to compare, any configuration passes;
 * - `unrecorded`: deployed by an earlier version, which recorded nothing: the settings cannot be
 *   compared this once (the update records them);
 * - `recorded`: the settings of the last update;
 * - `unknown`: offline (`tfs plan`), no engine to ask.
 */
export type DeployedState =
    | { kind: "new" }
    | { kind: "unrecorded" }
    | { kind: "recorded"; settings: DeployedSettings }
    | { kind: "unknown" };

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

/**
 * The EKS record from config and what is deployed (`state`): the subnet scheme and the cluster's zones
 * carry over from the record. `kubernetesVersion` is the configured one until the stack puts the
 * cluster's in.
 */
export function eksSettingsOf(eks: AwsConfig, models: string[], state: DeployedState, endpoint: EndpointKind = "loadBalancer"): EksDeployed {
    const recorded = state.kind === "recorded" && state.settings.cloud === "aws" && state.settings.eks.network.kind === "create"
        ? state.settings.eks.network : undefined;
    const network: EksNetworkDeployed = eks.network.kind === "create"
        ? {
            kind: "create",
            cidr: eks.network.cidr,
            zones: eks.network.zones,
            subnetScheme: subnetSchemeFor(state),
            clusterZones: recorded?.clusterZones ?? eks.network.zones,
        }
        : { kind: "existing", privateSubnetIds: eks.network.privateSubnetIds, publicSubnetIds: eks.network.publicSubnetIds };
    return {
        region: eks.region,
        clusterName: eks.clusterName,
        deletionProtection: eks.deletionProtection,
        ...(eks.kubernetesVersion !== undefined ? { kubernetesVersion: eks.kubernetesVersion } : {}),
        network,
        repositories: models.map((model) => `${eks.registry.repositoryPrefix}/${model}`),
        forceDelete: eks.registry.forceDelete,
        ...(endpoint === "gateway" ? { endpoint } : {}),
    };
}

/**
 * The subnet scheme of the VPC the stack has (or will have): `slots` for a new VPC, and for any VPC
 * whose record says so; `byCount` for a VPC an earlier version created (it recorded nothing, or
 * recorded `byCount`). Offline, the plan assumes a new stack.
 */
export function subnetSchemeFor(state: DeployedState): SubnetScheme {
    if (state.kind === "unrecorded") {
        return "byCount";
    }
    if (state.kind === "recorded" && state.settings.cloud === "aws" && state.settings.eks.network.kind === "create") {
        return state.settings.eks.network.subnetScheme;
    }
    return "slots";
}

export interface LiveChanges {
    /** Refused: each names the key, the deployed and the new value, and the way out. */
    issues: ConfigIssue[];
    /** Allowed, but worth saying before it happens (a replacement, a new address). */
    warnings: string[];
}

const shown = (v: unknown) => (v === undefined ? "unset" : JSON.stringify(v));

/** The transitions from `deployed` to `next` that must not be applied, and those to warn about. */
export function liveChanges(deployed: DeployedSettings, next: DeployedSettings): LiveChanges {
    const out: LiveChanges = { issues: [], warnings: [] };
    if (deployed.cloud !== next.cloud) {
        out.issues.push({
            key: "cloud", value: next.cloud,
            expected: `the stack is deployed on ${deployed.cloud}; switching clouds would replace every resource, and the old cluster's deletion is refused while its deletion protection is on. ` +
                `Deploy ${next.cloud} as a new stack (\`pulumi stack init\`), or \`pulumi destroy\` this one first`,
        });
        return out;
    }
    if (deployed.cloud === "gcp" && next.cloud === "gcp") {
        gkeChanges(deployed.gke, next.gke, out);
    } else if (deployed.cloud === "aws" && next.cloud === "aws") {
        eksChanges(deployed.eks, next.eks, out);
    }
    return out;
}

/** A refused change of `key`: what it would do, then the way out. */
function refuse(out: LiveChanges, key: string, from: unknown, to: unknown, why: string, wayOut: string): void {
    out.issues.push({ key, value: to, expected: `changed from ${shown(from)} on the running stack: ${why}. ${wayOut}` });
}

/** A new cluster name replaces the cluster: created beside the old one, which is deleted last. */
function clusterRename(out: LiveChanges, cloud: "gke" | "eks", from: { clusterName: string; deletionProtection: boolean }, to: string): void {
    if (from.deletionProtection) {
        refuse(out, `${cloud}.clusterName`, from.clusterName, to,
            `a new name creates a new cluster and deletes "${from.clusterName}" last, and its deletion protection would fail the update after everything new was created`,
            `Set ${cloud}.deletionProtection: false and run \`pulumi up\` once, then rename (keep the old name to keep the cluster)`);
        return;
    }
    out.warnings.push(`${cloud}.clusterName: "${from.clusterName}" -> "${to}" creates a new cluster, moves the models onto it and then deletes the old one: ` +
        "the load balancer's address changes (clients must follow `restUrl`), and the old cluster's workloads go with it");
}

function gkeChanges(from: GkeDeployed, to: GkeDeployed, out: LiveChanges): void {
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

/** `1.33` as [1, 33]; undefined for anything else. */
function minorVersion(version: string | undefined): [number, number] | undefined {
    const m = /^([0-9]+)\.([0-9]+)/.exec(version ?? "");
    return m ? [Number(m[1]), Number(m[2])] : undefined;
}

/**
 * What a change of the nodes' subnets costs. A managed node group's subnets are fixed at creation
 * (`subnet_ids` is ForceNew in terraform-provider-aws internal/service/eks/node_group.go), and the
 * groups are auto-named, so each is replaced new before old.
 */
const NODE_GROUPS_REPLACED = "replaces both node groups (their subnets change, and a node group's subnets force a new group): the new groups start beside the old ones, " +
    "then the old ones are drained and deleted, so every model pod is rescheduled once (the PodDisruptionBudget keeps the rollout's pace), and for a while " +
    "the account runs both generations of nodes: the instance quota (for the GPU node group, GPU quota) must cover twice eks.*NodeGroup.desiredNodes";

function eksChanges(from: EksDeployed, to: EksDeployed, out: LiveChanges): void {
    const [fromEndpoint, toEndpoint] = [from.endpoint ?? "loadBalancer", to.endpoint ?? "loadBalancer"];
    if (fromEndpoint !== toEndpoint) {
        const swap = toEndpoint === "gateway"
            ? "the Service's Network Load Balancer is deleted and an Application Load Balancer of the AWS Load Balancer Controller (installed by this update) takes its place"
            : "the Application Load Balancer and the AWS Load Balancer Controller are deleted and the Service gets a Network Load Balancer again";
        out.warnings.push(`endpoint: ${JSON.stringify(fromEndpoint)} -> ${JSON.stringify(toEndpoint)} replaces the models' load balancer: ${swap}, ` +
            `at a new address (clients must follow restUrl and grpcEndpoint${toEndpoint === "gateway" ? ", now https" : ", now plain http"}); nothing answers at the old address once it is gone`);
    }
    if (from.region !== to.region) {
        refuse(out, "eks.region", from.region, to.region, "every resource of the stack lives there, so all of them would be replaced",
            "Deploy the new region as a new stack, move clients over, then `pulumi destroy` this one");
    }
    if (from.clusterName !== to.clusterName) {
        clusterRename(out, "eks", from, to.clusterName);
    }
    const running = minorVersion(from.kubernetesVersion);
    const wanted = minorVersion(to.kubernetesVersion);
    if (running && wanted) {
        const steps = (wanted[0] - running[0]) * 1000 + wanted[1] - running[1];
        if (steps < 0) {
            refuse(out, "eks.kubernetesVersion", from.kubernetesVersion, to.kubernetesVersion,
                "EKS never downgrades a cluster",
                `Set it back to "${from.kubernetesVersion}" (or newer); an older version needs a new cluster (a new eks.clusterName)`);
        } else if (steps > 1) {
            refuse(out, "eks.kubernetesVersion", from.kubernetesVersion, to.kubernetesVersion,
                "EKS moves the control plane one minor version at a time",
                `Set "${running[0]}.${running[1] + 1}" and run \`pulumi up\` (the node groups and add-ons follow), then the next one`);
        }
    }
    const dropped = from.repositories.filter((r) => !to.repositories.includes(r));
    if (dropped.length > 0 && !from.forceDelete) {
        refuse(out, "eks.registry.forceDelete", from.forceDelete, to.forceDelete,
            `the update would delete the ECR repositories ${dropped.join(", ")} (a model removed or eks.registry.repositoryPrefix changed), and ECR refuses to delete a repository that holds images, after everything else changed`,
            "Set eks.registry.forceDelete: true and run `pulumi up` once before the change (the images go with the repositories), or keep the models and the prefix");
    }
    const a = from.network;
    const b = to.network;
    if (a.kind !== b.kind) {
        const key = b.kind === "existing" ? "eks.privateSubnetIds" : "eks.zones";
        refuse(out, key, a.kind === "create" ? a.zones : a.privateSubnetIds, b.kind === "create" ? b.zones : b.privateSubnetIds,
            `the cluster runs in ${a.kind === "create" ? "the VPC this stack created" : "your existing subnets"}, and EKS never moves a cluster to another VPC`,
            "Keep the network as it is; another network needs a new cluster (a new stack)");
        return;
    }
    if (a.kind === "create" && b.kind === "create") {
        if (a.cidr !== b.cidr) {
            refuse(out, "eks.vpcCidr", a.cidr, b.cidr, "a VPC's range cannot change, so the VPC would be replaced, and EKS never moves a cluster to another VPC",
                `Set it back to "${a.cidr}"; another range needs a new cluster (a new stack)`);
        }
        const kept = a.zones.every((zone, i) => b.zones[i] === zone);
        if (!kept) {
            refuse(out, "eks.zones", a.zones, b.zones,
                "EKS accepts only subnets in the zones it was created with, and removing or reordering zones would delete or move subnets the cluster and its nodes use",
                `Keep ${JSON.stringify(a.zones)} first, in that order; append new zones after them`);
        } else if (b.zones.length > a.zones.length && a.subnetScheme === "byCount") {
            refuse(out, "eks.zones", a.zones, b.zones,
                "this VPC was carved by an earlier version for its zone count, so another zone would move every subnet",
                `Keep ${JSON.stringify(a.zones)}; more zones need a new VPC (a new stack)`);
        } else if (b.zones.length > a.zones.length) {
            out.warnings.push(`eks.zones: appending ${b.zones.slice(a.zones.length).join(", ")} ${NODE_GROUPS_REPLACED}`);
        }
    }
    if (a.kind === "existing" && b.kind === "existing" && JSON.stringify(a.privateSubnetIds) !== JSON.stringify(b.privateSubnetIds)) {
        out.warnings.push(`eks.privateSubnetIds: ${JSON.stringify(a.privateSubnetIds)} -> ${JSON.stringify(b.privateSubnetIds)} ${NODE_GROUPS_REPLACED}`);
    }
}
