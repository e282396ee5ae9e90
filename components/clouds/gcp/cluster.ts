/**
 * A regional GKE Standard cluster for TF Serving: its own VPC network, the cluster (Dataplane V2, so
 * NetworkPolicy is enforced) without its default node pool, a dedicated node service account with
 * minimal roles, a CPU node pool and an optional GPU node pool, and a Kubernetes provider built from
 * a deterministic kubeconfig.
 */
import * as gcp from "@pulumi/gcp";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { kubeconfigOutput } from "../../kubeconfig";
import { NodePlacement, poolPlacement } from "../../nodePlacement";
import { PodMetricRef } from "../../../serving/autoscaling";
import { CustomMetricsStackdriverAdapter, gkeRequestRateMetric } from "./customMetricsAdapter";
import { CLOUD_PLATFORM_SCOPE, nodePoolArgs } from "./nodePool";
import { REST_PORT } from "../../../serving/images";
import { argsError } from "../../refusal";
import { ResolvedGkeClusterArgs, resolveGkeClusterArgs } from "./clusterArgs";
import type { GkeClusterArgs } from "./clusterArgs";

export type { GkeClusterArgs } from "./clusterArgs";
export { GKE_CLUSTER_DEFAULTS, GKE_RELEASE_CHANNELS, withGkeClusterDefaults } from "./clusterArgs";
export type { GkeReleaseChannel, ResolvedGkeClusterArgs } from "./clusterArgs";

/**
 * Project roles of the node service account: only Kubernetes Engine Default Node Service Account,
 * the minimum Google documents for node service accounts. It covers what the former pair
 * (`logging.logWriter`, `monitoring.metricWriter`) gave, plus what they lacked (e.g. the metrics the
 * Horizontal Pod Autoscaler's performance profile writes); without it GKE reports the cluster
 * degraded. Pulling images is granted on the image repository itself, not project-wide.
 */
export const GKE_NODE_PROJECT_ROLES = ["roles/container.defaultNodeServiceAccount"] as const;

/**
 * The metric packages GKE collects with managed Prometheus: `SYSTEM_COMPONENTS` (required with any
 * other), `CADVISOR` and `KUBELET` (container memory, OOM events; GKE 1.29.3+), `POD` and `DEPLOYMENT`
 * (GKE's managed kube-state-metrics: restarts, termination reasons, available replicas).
 */
export const GKE_MONITORING_COMPONENTS = ["SYSTEM_COMPONENTS", "CADVISOR", "KUBELET", "POD", "DEPLOYMENT"] as const;


/** Node service account id (6-30 characters) derived from the cluster name. */
export function nodeServiceAccountId(clusterName: string): string {
    return `${clusterName.slice(0, 24).replace(/-+$/, "")}-nodes`;
}

/** The kubeconfig context name gcloud would write for this cluster. */
export function gkeContextName(project: string, location: string, clusterName: string): string {
    return `gke_${project}_${location}_${clusterName}`;
}

/** What the cluster is attached to, made by `GkeCluster` beside it. */
export interface ClusterAttachments {
    network: pulumi.Input<string>;
    subnetwork: pulumi.Input<string>;
    /** The node service account's email. */
    serviceAccount: pulumi.Input<string>;
}

/**
 * The cluster's arguments. Every setting a user can remove is sent explicitly, with the value the
 * removal means: the provider keeps what the cloud has for an absent block (`privateClusterConfig`,
 * `masterAuthorizedNetworksConfig` are computed), so an absent block would change nothing.
 */
export function clusterArgs(args: ResolvedGkeClusterArgs, at: ClusterAttachments): gcp.container.ClusterArgs {
    return {
        project: args.project,
        name: args.clusterName,
        location: args.region,
        network: at.network,
        subnetwork: at.subnetwork,
        networkingMode: "VPC_NATIVE",
        ipAllocationPolicy: { clusterIpv4CidrBlock: "/14", servicesIpv4CidrBlock: "/20" },
        // GKE Dataplane V2 enforces NetworkPolicy objects (without an enforcer they are accepted and
        // ignored). It replaces the legacy Calico add-on, which must stay off: the two conflict.
        // Chosen at creation only: changing it replaces the cluster.
        datapathProvider: "ADVANCED_DATAPATH",
        // Node pools are managed separately, so changing one never touches the cluster.
        removeDefaultNodePool: true,
        initialNodeCount: 1,
        // The initial pool lives a moment, but its nodes must start: without a service account they run as
        // the Compute Engine default one, and projects that disabled or deleted it fail the creation
        // ("Service account ... does not exist", hashicorp/terraform-provider-google#4435).
        nodeConfig: { serviceAccount: at.serviceAccount, oauthScopes: [CLOUD_PLATFORM_SCOPE] },
        releaseChannel: { channel: args.releaseChannel },
        // The GKE Gateway controller serves Gateways only where the Gateway API is on; on, it costs
        // nothing until a Gateway creates a load balancer (`endpoint: gateway`).
        gatewayApiConfig: { channel: "CHANNEL_STANDARD" },
        workloadIdentityConfig: { workloadPool: `${args.project}.svc.id.goog` },
        deletionProtection: args.deletionProtection,
        // Public nodes explicitly: `privateNodes: false` then says what runs (a change either way is refused at
        // preview on a running stack: GKE fixes it at creation).
        privateClusterConfig: args.privateNodes
            ? { enablePrivateNodes: true, enablePrivateEndpoint: false, masterIpv4CidrBlock: args.masterCidr }
            : { enablePrivateNodes: false },
        // No list means any address: enabled with 0.0.0.0/0, because the provider cannot send "disabled"
        // once a list was set (an absent block keeps it).
        masterAuthorizedNetworksConfig: args.apiAccessCidrs
            ? {
                cidrBlocks: args.apiAccessCidrs.map((cidrBlock) => ({ cidrBlock, displayName: `allowed ${cidrBlock}` })),
                gcpPublicCidrsAccessEnabled: false,
            }
            : { cidrBlocks: [{ cidrBlock: ANY_ADDRESS, displayName: "any address" }], gcpPublicCidrsAccessEnabled: true },
        // Managed collection (PodMonitoring, Rules) and the metrics the alert rules read; off is said
        // explicitly too, since an absent block keeps what the cluster has.
        monitoringConfig: (args.managedPrometheus ?? true)
            ? { enableComponents: [...GKE_MONITORING_COMPONENTS], managedPrometheus: { enabled: true } }
            : { enableComponents: ["SYSTEM_COMPONENTS"], managedPrometheus: { enabled: false } },
    };
}

/** The authorized network that lets every address reach the API (still authenticated). */
const ANY_ADDRESS = "0.0.0.0/0";

export class GkeCluster extends pulumi.ComponentResource {
    readonly clusterName: pulumi.Output<string>;
    /** Kubeconfig using `gke-gcloud-auth-plugin` (secret). */
    readonly kubeconfig: pulumi.Output<string>;
    /** Kubernetes provider for this cluster. */
    readonly provider: k8s.Provider;
    /** Email of the nodes' service account: grant it read access to the image repository. */
    readonly nodeServiceAccountEmail: pulumi.Output<string>;
    readonly nodePools: gcp.container.NodePool[];
    /** Where CPU and GPU model pods go on this cluster. */
    readonly placement: { cpu: NodePlacement; gpu: NodePlacement };
    /** Present only with `customMetricsAdapter`. */
    readonly customMetricsAdapter?: CustomMetricsStackdriverAdapter;

    constructor(name: string, given: GkeClusterArgs, opts?: pulumi.ComponentResourceOptions) {
        const { args, issues } = resolveGkeClusterArgs(given);
        if (issues.length > 0) {
            throw argsError("GkeCluster", name, issues);
        }
        super("tf-serving:index:GkeCluster", name, {}, opts);
        const { project, region } = args;

        const network = new gcp.compute.Network(`${name}-network`, {
            project,
            autoCreateSubnetworks: false,
            description: `Network of GKE cluster ${args.clusterName}`,
        }, { parent: this });
        const subnetwork = new gcp.compute.Subnetwork(`${name}-nodes`, {
            project,
            region,
            network: network.id,
            ipCidrRange: args.subnetCidr,
            privateIpGoogleAccess: true,
        }, { parent: this });
        if (args.privateNodes) {
            const router = new gcp.compute.Router(`${name}-router`, { project, region, network: network.id }, { parent: this });
            new gcp.compute.RouterNat(`${name}-nat`, {
                project,
                region,
                router: router.name,
                natIpAllocateOption: "AUTO_ONLY",
                sourceSubnetworkIpRangesToNat: "ALL_SUBNETWORKS_ALL_IP_RANGES",
            }, { parent: this });
            // GKE lets a private cluster's control plane reach the nodes on 443 and 10250 only. A canary
            // release reads its pods' TF Serving metrics (REST port) through the API server's pod proxy.
            new gcp.compute.Firewall(`${name}-control-plane-to-rest`, {
                project,
                network: network.id,
                direction: "INGRESS",
                sourceRanges: [args.masterCidr],
                allows: [{ protocol: "tcp", ports: [String(REST_PORT)] }],
                description: "the GKE control plane reaches TF Serving's REST port (canary metrics through the pod proxy)",
            }, { parent: this });
        }

        const nodeAccount = new gcp.serviceaccount.Account(`${name}-nodes`, {
            project,
            accountId: nodeServiceAccountId(args.clusterName),
            displayName: `Nodes of GKE cluster ${args.clusterName}`,
        }, { parent: this });
        const roles = GKE_NODE_PROJECT_ROLES.map((role) => new gcp.projects.IAMMember(`${name}-nodes-${role.split("/")[1]}`, {
            project,
            role,
            member: pulumi.interpolate`serviceAccount:${nodeAccount.email}`,
        }, { parent: this }));

        const cluster = new gcp.container.Cluster(`${name}-cluster`, clusterArgs(args, {
            network: network.id,
            subnetwork: subnetwork.id,
            serviceAccount: nodeAccount.email,
        }), {
            parent: this,
            // Its initial pool's nodes run as the node service account, with its role granted.
            dependsOn: roles,
            // The initial pool's node config is read at creation only (the pool is removed at once); the
            // provider replaces the whole cluster when it changes, so a cluster created before it was set keeps its own.
            ignoreChanges: ["nodeConfig"],
        });

        // Pools run in the configured zones, or, with none, in the cluster's default ones: an absent
        // value would leave the pools where they were when `gke.zones` is removed.
        const at = { cluster: cluster.name, location: region, project, serviceAccount: nodeAccount.email, zones: args.zones ?? cluster.nodeLocations };
        const poolOpts = { parent: this, dependsOn: roles, ignoreChanges: ["initialNodeCount"] };
        const cpuPool = new gcp.container.NodePool(`${name}-cpu`, nodePoolArgs("cpu", args.cpuPool, at), poolOpts);
        this.nodePools = [cpuPool];
        if (args.gpuPool) {
            // After the CPU pool: GKE taints GPU nodes itself only when the GPU pool joins a cluster that already has a non-GPU pool.
            this.nodePools.push(new gcp.container.NodePool(`${name}-gpu`, nodePoolArgs("gpu", args.gpuPool, at), { ...poolOpts, dependsOn: [...roles, cpuPool] }));
        }

        this.clusterName = cluster.name;
        this.nodeServiceAccountEmail = nodeAccount.email;
        this.kubeconfig = kubeconfigOutput({
            contextName: gkeContextName(project, region, args.clusterName),
            server: cluster.endpoint,
            certificateAuthorityData: cluster.masterAuth.clusterCaCertificate,
        }, { kind: "gke" });
        this.provider = new k8s.Provider(`${name}-k8s`, { kubeconfig: this.kubeconfig }, { parent: this });
        this.placement = poolPlacement(args.gpuPool ? { "cloud.google.com/gke-accelerator": args.gpuPool.acceleratorType } : {});
        if (args.customMetricsAdapter) {
            this.customMetricsAdapter = new CustomMetricsStackdriverAdapter(`${name}-custom-metrics`, { project, image: args.customMetricsAdapter.image, cluster, dependsOn: this.nodePools },
                { parent: this, provider: this.provider });
        }

        this.registerOutputs({
            clusterName: this.clusterName,
            kubeconfig: this.kubeconfig,
            nodeServiceAccountEmail: this.nodeServiceAccountEmail,
        });
    }

    /** The metric a model's request-rate HPA reads here: what the Custom Metrics Stackdriver Adapter serves. */
    requestRateMetric(model: string): PodMetricRef {
        return gkeRequestRateMetric(model);
    }
}
