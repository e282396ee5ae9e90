/**
 * A running EKS stack: the settings it records (`deployedSettings`) and the changes refused or warned
 * about at preview (`config/liveChangeRules.ts` has the shared rules; docs/concepts/changing-a-stack.md the table).
 */
import type { EndpointKind } from "../../../config/settings";
import { DeployedStateOf, LiveChanges, clusterRename, refuse } from "../../../config/liveChangeRules";
import type { AwsConfig } from "./config";
import type { SubnetScheme } from "./vpc";

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

/**
 * What the program knows of the deployed stack, as the EKS rules read it: the record of any cloud,
 * of which an aws one has `eks` (`DeployedState`, `config/liveChanges.ts`, is one).
 */
export type EksDeployedState = DeployedStateOf<{ cloud: string; eks?: EksDeployed }>;

/**
 * The EKS record from config and what is deployed (`state`): the subnet scheme and the cluster's zones
 * carry over from the record. `kubernetesVersion` is the configured one until the stack puts the
 * cluster's in.
 */
export function eksSettingsOf(eks: AwsConfig, models: string[], state: EksDeployedState, endpoint: EndpointKind = "loadBalancer"): EksDeployed {
    const recorded = state.kind === "recorded" && state.settings.cloud === "aws" && state.settings.eks !== undefined && state.settings.eks.network.kind === "create"
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
export function subnetSchemeFor(state: EksDeployedState): SubnetScheme {
    if (state.kind === "unrecorded") {
        return "byCount";
    }
    if (state.kind === "recorded" && state.settings.cloud === "aws" && state.settings.eks !== undefined && state.settings.eks.network.kind === "create") {
        return state.settings.eks.network.subnetScheme;
    }
    return "slots";
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


export function eksChanges(from: EksDeployed, to: EksDeployed, out: LiveChanges): void {
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
