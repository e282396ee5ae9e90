/**
 * The Kubernetes Cluster Autoscaler for the EKS node groups (`eks.clusterAutoscaler: true`): it raises
 * a managed node group's desired size when a pod is Pending for lack of room (a GPU pod and the GPU
 * group at zero included), and lowers it when a node has been unneeded for a while (the GPU group down
 * to `minNodes`, 0 by default). Chosen over Karpenter and EKS Auto Mode because it drives the managed
 * node groups this stack already has, within their `minNodes`/`maxNodes`, so turning it on replaces
 * nothing; Karpenter and Auto Mode bring their own node lifecycle in place of the node groups.
 *
 * What it needs, from the project's AWS provider README (kubernetes/autoscaler,
 * `cluster-autoscaler/cloudprovider/aws/README.md`, at cluster-autoscaler-chart-9.59.0):
 *
 * - auto-discovery of the groups by the ASG tags `k8s.io/cluster-autoscaler/enabled` and
 *   `k8s.io/cluster-autoscaler/<cluster>` (EKS puts both on a managed node group's ASG; the node groups
 *   carry them too, `autoscalerDiscoveryTags`);
 * - an IAM role with the README's "full features" actions, the two that change a group limited here to
 *   the groups tagged as this cluster's (`clusterAutoscalerPolicy`), through EKS Pod Identity;
 * - for a group at zero nodes, what its nodes would look like: `eks:DescribeNodegroup` gives the labels
 *   and taints of a managed group that has never had a node; after a scale-down to zero the autoscaler
 *   reads the ASG's `node-template` tags instead, which EKS does not copy from the node group, so the
 *   stack tags the GPU group's ASG itself (`gpuNodeTemplateTags`: the pool label, the `nvidia.com/gpu`
 *   taint, the GPUs).
 */
import * as aws from "@pulumi/aws";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { GPU_TAINT_KEY, NODE_POOL_LABEL, poolLabels } from "../nodePlacement";
import { PolicyDocument, podIdentityRole } from "./loadBalancerController";
import { pinnedChartArgs } from "./chartRelease";

/** The pinned chart (kubernetes/autoscaler, tag cluster-autoscaler-chart-9.59.0; its appVersion 1.35.0). */
export const CLUSTER_AUTOSCALER = {
    chart: "cluster-autoscaler",
    repository: "https://kubernetes.github.io/autoscaler",
    chartVersion: "9.59.0",
    image: "registry.k8s.io/autoscaling/cluster-autoscaler",
} as const;

/**
 * The autoscaler release for each Kubernetes minor (the project releases one line per minor and asks
 * that they match): the latest patch tagged in kubernetes/autoscaler for the minors of
 * `kubernetesVersions.ts`.
 */
export const CLUSTER_AUTOSCALER_IMAGE_TAGS: Readonly<Record<string, string>> = {
    "1.32": "v1.32.7",
    "1.33": "v1.33.6",
    "1.34": "v1.34.5",
    "1.35": "v1.35.2",
};

/** The image tag for the control plane's version (`1.33`, or `1.33.x`): its minor's, or the newest known for a newer minor. */
export function clusterAutoscalerImageTag(kubernetesVersion: string): string {
    const minor = /^1\.([0-9]+)/.exec(kubernetesVersion)?.[1];
    const known = Object.keys(CLUSTER_AUTOSCALER_IMAGE_TAGS).sort((a, b) => Number(a.split(".")[1]) - Number(b.split(".")[1]));
    const exact = minor === undefined ? undefined : CLUSTER_AUTOSCALER_IMAGE_TAGS[`1.${minor}`];
    if (exact !== undefined) {
        return exact;
    }
    const newest = known[known.length - 1];
    if (minor !== undefined && Number(minor) > Number(newest.split(".")[1])) {
        return CLUSTER_AUTOSCALER_IMAGE_TAGS[newest];
    }
    throw new Error(`no Cluster Autoscaler release is pinned for Kubernetes ${kubernetesVersion}: add it to CLUSTER_AUTOSCALER_IMAGE_TAGS (components/eks/clusterAutoscaler.ts)`);
}

/** The chart's service account, which the Pod Identity association names. */
export const AUTOSCALER_SERVICE_ACCOUNT = { namespace: "kube-system", name: "cluster-autoscaler" } as const;

/** The ASG tags the autoscaler discovers a cluster's groups by (its chart's `autoDiscovery.tags`). */
export function autoscalerDiscoveryTags(clusterName: string): Record<string, string> {
    return { "k8s.io/cluster-autoscaler/enabled": "true", [`k8s.io/cluster-autoscaler/${clusterName}`]: "owned" };
}

/**
 * The ASG tags that tell the autoscaler what a GPU node of a group at zero would be, so a pending GPU
 * pod (which selects the pool label and tolerates the taint) makes it scale the group up.
 */
export function gpuNodeTemplateTags(gpusPerNode: number | undefined): Record<string, string> {
    const prefix = "k8s.io/cluster-autoscaler/node-template";
    return {
        [`${prefix}/label/${NODE_POOL_LABEL}`]: poolLabels("gpu")[NODE_POOL_LABEL],
        [`${prefix}/taint/${GPU_TAINT_KEY}`]: "true:NoSchedule",
        // Unknown to this program (a type `instanceTypes.ts` does not list): the autoscaler's own instance catalog says.
        ...(gpusPerNode !== undefined ? { [`${prefix}/resources/${GPU_TAINT_KEY}`]: String(gpusPerNode) } : {}),
    };
}

/**
 * The autoscaler's IAM policy: reads everywhere (groups, instances, launch templates, instance types,
 * managed node groups), and the two actions that change a group only on groups tagged as this
 * cluster's (EKS tags its managed node groups' ASGs `k8s.io/cluster-autoscaler/<cluster>: owned`).
 */
export function clusterAutoscalerPolicy(clusterName: string): PolicyDocument {
    return {
        Version: "2012-10-17",
        Statement: [
            {
                Effect: "Allow",
                Action: [
                    "autoscaling:DescribeAutoScalingGroups", "autoscaling:DescribeAutoScalingInstances", "autoscaling:DescribeLaunchConfigurations",
                    "autoscaling:DescribeScalingActivities", "ec2:DescribeImages", "ec2:DescribeInstanceTypes", "ec2:DescribeLaunchTemplateVersions",
                    "ec2:GetInstanceTypesFromInstanceRequirements", "eks:DescribeNodegroup",
                ],
                Resource: "*",
            },
            {
                Effect: "Allow",
                Action: ["autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup"],
                Resource: "*",
                Condition: { StringEquals: { [`aws:ResourceTag/k8s.io/cluster-autoscaler/${clusterName}`]: "owned" } },
            },
        ],
    };
}

export interface ClusterAutoscalerChartInputs {
    clusterName: string;
    region: string;
    kubernetesVersion: string;
}

/**
 * The chart's values: the AWS provider with auto-discovery of this cluster's groups, the image for the
 * control plane's minor, on the CPU nodes (a GPU node it ran on could never scale down), and the
 * `least-waste` expander; a node unneeded for 10 minutes is removed (the upstream default, said here).
 */
export function clusterAutoscalerChartValues(inputs: ClusterAutoscalerChartInputs): Record<string, unknown> {
    return {
        cloudProvider: "aws",
        awsRegion: inputs.region,
        autoDiscovery: { clusterName: inputs.clusterName },
        image: { repository: CLUSTER_AUTOSCALER.image, tag: clusterAutoscalerImageTag(inputs.kubernetesVersion) },
        rbac: { serviceAccount: { create: true, name: AUTOSCALER_SERVICE_ACCOUNT.name } },
        nodeSelector: poolLabels("cpu"),
        extraArgs: { expander: "least-waste", "balance-similar-node-groups": true, "scale-down-unneeded-time": "10m" },
    };
}

export interface ClusterAutoscalerArgs {
    clusterName: pulumi.Input<string>;
    region: string;
    /** The control plane's version (the cluster's `version` output). */
    kubernetesVersion: pulumi.Input<string>;
    /** The GPU group's ASG and its GPUs per node, for the node-template tags; none without a GPU group. */
    gpuGroup?: { autoscalingGroupName: pulumi.Input<string>; gpusPerNode?: number };
    /** What the autoscaler's pod needs first: the node groups and the Pod Identity agent add-on. */
    dependsOn: pulumi.Input<pulumi.Resource>[];
}

export class ClusterAutoscaler extends pulumi.ComponentResource {
    readonly release: k8s.helm.v3.Release;
    readonly role: aws.iam.Role;

    constructor(name: string, args: ClusterAutoscalerArgs, opts?: pulumi.ComponentResourceOptions) {
        super("tf-serving:index:ClusterAutoscaler", name, {}, opts);
        const awsOpts = { parent: this };
        const { role, policy, association } = podIdentityRole(name, args.clusterName, AUTOSCALER_SERVICE_ACCOUNT,
            pulumi.output(args.clusterName).apply((clusterName) => JSON.stringify(clusterAutoscalerPolicy(clusterName))), awsOpts);
        this.role = role;
        const templateTags = args.gpuGroup
            ? Object.entries(gpuNodeTemplateTags(args.gpuGroup.gpusPerNode)).map(([key, value], i) => new aws.autoscaling.Tag(`${name}-gpu-template-${i}`, {
                autoscalingGroupName: args.gpuGroup!.autoscalingGroupName,
                // Not propagated at launch: the nodes get their labels and taint from the node group; the tags inform the autoscaler only.
                tag: { key, value, propagateAtLaunch: false },
            }, awsOpts))
            : [];

        const values = pulumi.all([args.clusterName, args.kubernetesVersion]).apply(([clusterName, kubernetesVersion]) =>
            clusterAutoscalerChartValues({ clusterName, region: args.region, kubernetesVersion }));
        this.release = new k8s.helm.v3.Release(name, {
            ...pinnedChartArgs(CLUSTER_AUTOSCALER),
            namespace: AUTOSCALER_SERVICE_ACCOUNT.namespace,
            values,
        }, { parent: this, dependsOn: [association, policy, ...templateTags, ...args.dependsOn] });
        this.registerOutputs({});
    }
}
