/**
 * An EKS cluster for TF Serving: its network (or existing subnets), the control plane with API
 * access entries (no aws-auth ConfigMap), the VPC CNI add-on enforcing NetworkPolicy, a CPU and an
 * optional GPU managed node group, the metrics-server add-on when models autoscale, NVIDIA's device
 * plugin when there are GPU nodes, the AWS Load Balancer Controller and the Cluster Autoscaler (with
 * the Pod Identity agent add-on) when asked, prometheus-adapter for a request-rate HPA, and a Kubernetes provider built from a deterministic kubeconfig that gets its
 * token from `aws eks get-token`.
 */
import * as aws from "@pulumi/aws";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { kubeconfigOutput } from "../../kubeconfig";
import { NodePlacement, PoolKind, poolLabels, poolPlacement } from "../../nodePlacement";
import { addonVersionFor, metricsServerAddonArgs, podIdentityAgentAddonArgs, vpcCniAddonArgs } from "./addons";
import { NvidiaDevicePlugin } from "./devicePlugin";
import { EKS_CLUSTER_POLICIES, EKS_NODE_POLICIES, awsPartition, serviceRole } from "./iam";
import { AwsLoadBalancerController, POD_READINESS_GATE_LABELS } from "./loadBalancerController";
import { ACCELERATOR_LABEL, ClusterAutoscaler, autoscalerDiscoveryTags } from "./clusterAutoscaler";
import { PrometheusAdapter, PrometheusEndpoint, eksRequestRateMetric } from "./prometheusAdapter";
import { PodMetricRef } from "../../../serving/autoscaling";
import { nvidiaGpuModel, nvidiaGpusPerInstance } from "./instanceTypes";
import { EksNodeGroupSettings, NodeGroupPlacement, autoscaledSize, nodeGroupArgs } from "./nodeGroup";
import { EksVpc, NatGatewayMode, SubnetScheme } from "./vpc";
import { argsError } from "../../argsIssues";
import { eksClusterIssues, principalSuffix } from "./clusterChecks";

/** Either a VPC this component creates, or subnets that already exist (tagged for load balancers by their owner). */
export type EksNetworkSettings =
    | {
        kind: "create";
        /** VPC range, e.g. `10.0.0.0/16`. */
        cidr: string;
        /** Availability zones (at least two), e.g. `us-west-2a`, `us-west-2b`. */
        zones: string[];
        natGateways: NatGatewayMode;
        /** How the range is carved into subnets (`subnetLayout`); default `slots`, a fixed slot per zone. */
        subnetScheme?: SubnetScheme;
        /**
         * The zones whose subnets the control plane uses: the zones it was created with (EKS accepts no
         * others); zones appended later serve the nodes and load balancers only. Default: all of `zones`.
         */
        clusterZones?: string[];
    }
    | {
        kind: "existing";
        /** Subnets for the nodes (with a route to a NAT or ECR endpoints), in at least two zones. */
        privateSubnetIds: string[];
        /** Subnets for internet-facing load balancers (tagged `kubernetes.io/role/elb=1`). */
        publicSubnetIds: string[];
    };

export interface EksClusterArgs {
    /** AWS region, e.g. `us-west-2`; also written into the kubeconfig's `aws eks get-token`. */
    region: string;
    /** AWS CLI profile for `aws eks get-token`; undefined means the ambient credentials. */
    profile?: string;
    /** EKS cluster name (also used in subnet tags and resource names). */
    clusterName: string;
    /**
     * Kubernetes minor version, e.g. `1.35`; undefined means EKS's default for a new cluster and the
     * running version for an existing one. Node groups and add-ons follow the control plane's version.
     */
    kubernetesVersion?: string;
    /** When true, EKS refuses to delete the cluster until it is set to false and applied. Default true. */
    deletionProtection?: boolean;
    /**
     * `create`: an `EksVpc` (public and private subnets per zone, NAT) made here. `existing`: your
     * subnets, tagged for load balancers and routed to the internet (NAT) or to ECR endpoints.
     */
    network: EksNetworkSettings;
    /** CIDRs allowed to reach the public Kubernetes API endpoint (`pulumi up` runs from one of them). Default `["0.0.0.0/0"]`: any address (still authenticated). */
    apiAccessCidrs?: string[];
    /**
     * IAM role or user ARNs (roles with their path, never STS session ARNs) given cluster-admin access
     * entries, one per principal and named after it; list every identity that runs `pulumi up`.
     */
    adminPrincipalArns: string[];
    /**
     * The IAM role or user running Pulumi, when known (one of `adminPrincipalArns`). Its entry adopts the
     * single `ADMIN-deployer` entry earlier versions made for whoever ran last, instead of creating a
     * second entry for the same principal (which EKS refuses).
     */
    callerArn?: string;
    /** The node group every CPU model and cluster add-on runs on. */
    cpuNodeGroup: EksNodeGroupSettings;
    /** Optional GPU node group (NVIDIA AMI, tainted `nvidia.com/gpu`), for models with GPUs (`ModelServer` `placement`: this cluster's `placement.gpu`); brings NVIDIA's device plugin. Default: none. */
    gpuNodeGroup?: EksNodeGroupSettings;
    /** Device plugin image override (e.g. a mirror), pinned by digest (`NAME@sha256:...`); only with `gpuNodeGroup`. Default the pinned NVIDIA release (`NVIDIA_DEVICE_PLUGIN_IMAGE`). */
    devicePluginImage?: string;
    /** Install the metrics-server add-on, which an HPA needs and EKS does not install; default false. The EKS stack sets it when a model autoscales. */
    metricsServer?: boolean;
    /**
     * Install the AWS Load Balancer Controller (the Gateway API on EKS: ALBs for Gateways) with its IAM
     * role through EKS Pod Identity, and the Pod Identity agent add-on; with `gatewayClassName`, also a
     * GatewayClass of the controller's ALBs by that name. Default none. The EKS stack sets it with
     * `endpoint: gateway`.
     */
    loadBalancerController?: { gatewayClassName?: string };
    /**
     * Install the Cluster Autoscaler (`clusterAutoscaler.ts`) with its IAM role through EKS Pod Identity
     * (and the Pod Identity agent add-on): the node groups then scale between their `minNodes` and
     * `maxNodes` (the GPU group down to zero when idle, up when a GPU pod is pending), carry its
     * discovery tags, and `desiredNodes` is their size at creation only. Default false: the groups stay
     * at `desiredNodes`, with their inputs as before this option existed.
     */
    clusterAutoscaler?: boolean;
    /**
     * With `clusterAutoscaler`: the live desired size of each group whose `minNodes` or `maxNodes` this update
     * changes, read from EKS before it (`autoscaledSize`): that size, moved into the new bounds, is what the
     * update sends. A group not listed keeps its live size (`ignoreChanges`). Default none.
     */
    liveDesiredSizes?: Partial<Record<PoolKind, number>>;
    /**
     * Install prometheus-adapter (`prometheusAdapter.ts`) over this Prometheus, so a request-rate HPA
     * reads the model pods' inference rate. Default none; the EKS stack sets it from `eks.prometheusUrl`
     * when a model has `targetRequestsPerSecond`.
     */
    prometheusAdapter?: { prometheus: PrometheusEndpoint };
}

/** The resource name of an `EksCluster` named `name`'s node group of `kind` (`eks-gpu`), which a checkpoint's URN ends with. */
export function nodeGroupResourceName(name: string, kind: PoolKind): string {
    return `${name}-${kind}`;
}

/** What `EksCluster` sets for a field its Args leave out: also the `eks` config section's defaults. */
export const EKS_CLUSTER_DEFAULTS: { readonly deletionProtection: boolean; readonly apiAccessCidrs: readonly string[] } = Object.freeze({
    deletionProtection: true,
    apiAccessCidrs: Object.freeze(["0.0.0.0/0"]),
});

export { principalSuffix };

export class EksCluster extends pulumi.ComponentResource {
    readonly clusterName: pulumi.Output<string>;
    /** The control plane's Kubernetes version, as EKS reports it. */
    readonly kubernetesVersion: pulumi.Output<string>;
    /** Kubeconfig using `aws eks get-token` (secret). */
    readonly kubeconfig: pulumi.Output<string>;
    /** Kubernetes provider for this cluster. */
    readonly provider: k8s.Provider;
    readonly nodeGroups: aws.eks.NodeGroup[];
    /** The VPC CNI add-on, with its network policy agent on. */
    readonly vpcCni: aws.eks.Addon;
    /** Present only with `metricsServer`. */
    readonly metricsServer?: aws.eks.Addon;
    /** Present only with a GPU node group. */
    readonly devicePlugin?: NvidiaDevicePlugin;
    /** Present only with `loadBalancerController`. */
    readonly loadBalancerController?: AwsLoadBalancerController;
    /** Labels the models' namespace needs here: the controller's readiness gates when it fronts the pods. */
    readonly namespaceLabels?: Record<string, string>;
    /** Present only with `clusterAutoscaler`. */
    readonly clusterAutoscaler?: ClusterAutoscaler;
    /** Present only with `prometheusAdapter`. */
    readonly prometheusAdapter?: PrometheusAdapter;
    /** Where CPU and GPU model pods go on this cluster. */
    readonly placement: { cpu: NodePlacement; gpu: NodePlacement };

    constructor(name: string, args: EksClusterArgs, opts?: pulumi.ComponentResourceOptions) {
        const issues = eksClusterIssues(args);
        if (issues.length > 0) {
            throw argsError("EksCluster", name, issues);
        }
        super("tf-serving:index:EksCluster", name, {}, opts);
        const partition = awsPartition(args.region);

        let privateSubnetIds: pulumi.Input<string>[];
        let publicSubnetIds: pulumi.Input<string>[];
        let controlPlaneSubnetIds: pulumi.Input<string>[];
        if (args.network.kind === "create") {
            const { zones, clusterZones = zones } = args.network;
            const vpc = new EksVpc(`${name}-vpc`, {
                clusterName: args.clusterName,
                cidr: args.network.cidr,
                zones,
                natGateways: args.network.natGateways,
                subnetScheme: args.network.subnetScheme,
            }, { parent: this });
            privateSubnetIds = vpc.privateSubnetIds;
            publicSubnetIds = vpc.publicSubnetIds;
            const original = (ids: pulumi.Output<string>[]) => ids.filter((_, i) => clusterZones.includes(zones[i]));
            controlPlaneSubnetIds = [...original(vpc.privateSubnetIds), ...original(vpc.publicSubnetIds)];
        } else {
            privateSubnetIds = args.network.privateSubnetIds;
            publicSubnetIds = args.network.publicSubnetIds;
            controlPlaneSubnetIds = [...privateSubnetIds, ...publicSubnetIds];
        }

        const clusterRole = serviceRole(`${name}-cluster`, "eks.amazonaws.com", EKS_CLUSTER_POLICIES, partition, this);
        const cluster = new aws.eks.Cluster(`${name}-cluster`, {
            name: args.clusterName,
            roleArn: clusterRole.role.arn,
            version: args.kubernetesVersion,
            vpcConfig: {
                subnetIds: controlPlaneSubnetIds,
                endpointPublicAccess: true,
                endpointPrivateAccess: true,
                publicAccessCidrs: args.apiAccessCidrs ?? [...EKS_CLUSTER_DEFAULTS.apiAccessCidrs],
            },
            // Access entries only, and no implicit admin for the creator: EKS's bootstrap entry would live outside
            // Pulumi's state (never reviewed, never revoked when the list changes), would collide with the creator's
            // own entry below (EKS refuses a second entry for one principal), and changing it replaces the cluster.
            accessConfig: { authenticationMode: "API", bootstrapClusterCreatorAdminPermissions: false },
            deletionProtection: args.deletionProtection ?? EKS_CLUSTER_DEFAULTS.deletionProtection,
        }, { parent: this, dependsOn: clusterRole.attachments });

        const admins = this.adminAccess(name, cluster, args, partition);

        const nodeRole = serviceRole(`${name}-nodes`, "ec2.amazonaws.com", EKS_NODE_POLICIES, partition, this);
        // Node groups and add-ons follow the control plane's version, so a bump moves all of them in one update.
        const at = {
            clusterName: cluster.name, nodeRoleArn: nodeRole.role.arn, subnetIds: privateSubnetIds, kubernetesVersion: cluster.version,
            tags: args.clusterAutoscaler ? autoscalerDiscoveryTags(args.clusterName) : undefined,
        };
        const addonVersion = (addon: string) => addonVersionFor(addon, cluster.version, { parent: this });
        // The CNI goes in before the nodes, so every node starts with the network policy agent running.
        this.vpcCni = new aws.eks.Addon(`${name}-vpc-cni`, vpcCniAddonArgs(cluster.name, addonVersion("vpc-cni")), { parent: this });
        // With the autoscaler the desired size is its own: a `pulumi up` sends it back only moved into new bounds (`autoscaledSize`).
        const nodeGroup = (kind: PoolKind, settings: EksNodeGroupSettings, placement: NodeGroupPlacement) => {
            const size = args.clusterAutoscaler ? autoscaledSize(settings, args.liveDesiredSizes?.[kind]) : { desiredSize: settings.desiredNodes, keepLiveSize: false };
            return new aws.eks.NodeGroup(nodeGroupResourceName(name, kind), nodeGroupArgs(kind, { ...settings, desiredNodes: size.desiredSize }, placement), {
                parent: this, dependsOn: [...nodeRole.attachments, this.vpcCni], ignoreChanges: size.keepLiveSize ? ["scalingConfig.desiredSize"] : [],
            });
        };
        this.nodeGroups = [nodeGroup("cpu", args.cpuNodeGroup, at)];
        if (args.gpuNodeGroup) {
            // The accelerator label tells the autoscaler a new node's GPUs are coming (the device plugin advertises them later).
            const gpuLabels = args.clusterAutoscaler ? { [ACCELERATOR_LABEL]: nvidiaGpuModel(args.gpuNodeGroup.instanceType) } : undefined;
            this.nodeGroups.push(nodeGroup("gpu", args.gpuNodeGroup, { ...at, extraLabels: gpuLabels }));
        }
        if (args.metricsServer) {
            // Its Deployment needs nodes to become healthy; created before them, the add-on would wait out its timeout.
            this.metricsServer = new aws.eks.Addon(`${name}-metrics-server`, metricsServerAddonArgs(cluster.name, addonVersion("metrics-server")), { parent: this, dependsOn: this.nodeGroups });
        }

        this.clusterName = cluster.name;
        this.kubernetesVersion = cluster.version;
        this.kubeconfig = kubeconfigOutput({
            contextName: cluster.arn,
            server: cluster.endpoint,
            certificateAuthorityData: cluster.certificateAuthority.data,
        }, { kind: "eks", clusterName: args.clusterName, region: args.region, profile: args.profile });
        // The provider (not the kubeconfig text) waits for the access entries, so a change to them never replaces it.
        this.provider = new k8s.Provider(`${name}-k8s`, { kubeconfig: this.kubeconfig }, { parent: this, dependsOn: admins });

        if (args.gpuNodeGroup) {
            this.devicePlugin = new NvidiaDevicePlugin(`${name}-nvidia-device-plugin`, {
                nodeSelector: poolLabels("gpu"),
                image: args.devicePluginImage,
            }, { parent: this, provider: this.provider });
        }
        // A DaemonSet: the add-on turns ACTIVE only once it runs on nodes. Both controllers get their IAM roles through it.
        const agent = args.loadBalancerController || args.clusterAutoscaler
            ? new aws.eks.Addon(`${name}-pod-identity-agent`, podIdentityAgentAddonArgs(cluster.name, addonVersion("eks-pod-identity-agent")),
                { parent: this, dependsOn: this.nodeGroups })
            : undefined;
        if (args.loadBalancerController && agent) {
            this.loadBalancerController = new AwsLoadBalancerController(`${name}-lbc`, {
                clusterName: cluster.name,
                region: args.region,
                vpcId: cluster.vpcConfig.vpcId,
                partition,
                gatewayClassName: args.loadBalancerController.gatewayClassName,
                dependsOn: [agent, ...this.nodeGroups],
            }, { parent: this, provider: this.provider });
            this.namespaceLabels = { ...POD_READINESS_GATE_LABELS };
        }
        if (args.clusterAutoscaler && agent) {
            const gpuGroup = args.gpuNodeGroup && this.nodeGroups[1];
            this.clusterAutoscaler = new ClusterAutoscaler(`${name}-cluster-autoscaler`, {
                clusterName: cluster.name,
                region: args.region,
                kubernetesVersion: cluster.version,
                gpuGroup: gpuGroup && args.gpuNodeGroup ? {
                    autoscalingGroupName: gpuGroup.resources.apply((r) => r?.[0]?.autoscalingGroups?.[0]?.name ?? ""),
                    node: {
                        gpusPerNode: nvidiaGpusPerInstance(args.gpuNodeGroup.instanceType),
                        diskSizeGb: args.gpuNodeGroup.diskSizeGb,
                        accelerator: nvidiaGpuModel(args.gpuNodeGroup.instanceType),
                    },
                } : undefined,
                dependsOn: [agent, ...this.nodeGroups],
            }, { parent: this, provider: this.provider });
        }
        if (args.prometheusAdapter) {
            this.prometheusAdapter = new PrometheusAdapter(`${name}-prometheus-adapter`, { prometheus: args.prometheusAdapter.prometheus, dependsOn: this.nodeGroups },
                { parent: this, provider: this.provider });
        }
        this.placement = poolPlacement();

        this.registerOutputs({ clusterName: this.clusterName, kubeconfig: this.kubeconfig });
    }

    /** The metric a model's request-rate HPA reads here: what prometheus-adapter serves, selected on the model. */
    requestRateMetric(model: string): PodMetricRef {
        return eksRequestRateMetric(model);
    }

    /**
     * One cluster-admin access entry per configured principal, named after the principal: adding one never
     * replaces another, and whoever runs `up` (a laptop, then CI) registers the same entries, so no run
     * revokes another identity. The caller is one of them (checked at preview, `adminAccessIssues`).
     */
    private adminAccess(name: string, cluster: aws.eks.Cluster, args: EksClusterArgs, partition: string): aws.eks.AccessPolicyAssociation[] {
        return args.adminPrincipalArns.map((arn) => {
            const resourceName = `${name}-admin-${principalSuffix(arn)}`;
            const aliases = arn === args.callerArn ? [{ name: `${name}-admin-deployer` }] : [];
            const entry = new aws.eks.AccessEntry(resourceName, {
                clusterName: cluster.name,
                principalArn: arn,
                type: "STANDARD",
            }, { parent: this, aliases });
            return new aws.eks.AccessPolicyAssociation(resourceName, {
                clusterName: cluster.name,
                principalArn: entry.principalArn,
                policyArn: `arn:${partition}:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy`,
                accessScope: { type: "cluster" },
            }, { parent: this, aliases });
        });
    }
}
