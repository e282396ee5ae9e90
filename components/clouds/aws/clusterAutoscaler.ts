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
 *   taint, the GPUs, the ephemeral storage, the accelerator label);
 * - on GPU nodes, the `k8s.amazonaws.com/accelerator` label (`ACCELERATOR_LABEL`, its README's "Special
 *   note on GPU instances"), which the GPU group's nodes carry with the autoscaler on.
 */
import * as aws from "@pulumi/aws";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { GPU_TAINT_KEY, NODE_POOL_LABEL, poolLabels } from "../../nodePlacement";
import { PolicyDocument, podIdentityRole } from "./loadBalancerController";
import { pinnedChartArgs } from "./chartRelease";
import type { ArgsIssue } from "../../argsIssues";
import { argsError } from "../../refusal";
import { awsRegionIssue } from "./partition";

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
    "1.36": "v1.36.1",
};

/** The image tag for the control plane's version (`1.33`, or `1.33.x`): its minor's, or the newest known for a newer minor; undefined for an older one. */
function imageTagFor(kubernetesVersion: string): string | undefined {
    const minor = /^1\.([0-9]+)/.exec(kubernetesVersion)?.[1];
    const known = Object.keys(CLUSTER_AUTOSCALER_IMAGE_TAGS).sort((a, b) => Number(a.split(".")[1]) - Number(b.split(".")[1]));
    const exact = minor === undefined ? undefined : CLUSTER_AUTOSCALER_IMAGE_TAGS[`1.${minor}`];
    if (exact !== undefined) {
        return exact;
    }
    const newest = known[known.length - 1];
    return minor !== undefined && Number(minor) > Number(newest.split(".")[1]) ? CLUSTER_AUTOSCALER_IMAGE_TAGS[newest] : undefined;
}

/** Why no autoscaler release fits `kubernetesVersion`, or undefined. */
export function autoscalerVersionProblem(kubernetesVersion: string): string | undefined {
    return imageTagFor(kubernetesVersion) !== undefined ? undefined
        : `names Kubernetes ${kubernetesVersion}, for which no Cluster Autoscaler release is pinned (${Object.keys(CLUSTER_AUTOSCALER_IMAGE_TAGS).join(", ")} have one): ` +
            "use a version EKS supports (docs/reference/configuration.md), or add its release to CLUSTER_AUTOSCALER_IMAGE_TAGS (components/clouds/aws/clusterAutoscaler.ts)";
}

/** The image tag for the control plane's version (`1.33`, or `1.33.x`): its minor's, or the newest known for a newer minor. */
export function clusterAutoscalerImageTag(kubernetesVersion: string): string {
    const tag = imageTagFor(kubernetesVersion);
    if (tag === undefined) {
        throw new pulumi.RunError(`kubernetesVersion ${autoscalerVersionProblem(kubernetesVersion)}`);
    }
    return tag;
}

/** The chart's service account, which the Pod Identity association names. */
export const AUTOSCALER_SERVICE_ACCOUNT = { namespace: "kube-system", name: "cluster-autoscaler" } as const;

/** The ASG tags the autoscaler discovers a cluster's groups by (its chart's `autoDiscovery.tags`). */
export function autoscalerDiscoveryTags(clusterName: string): Record<string, string> {
    return { "k8s.io/cluster-autoscaler/enabled": "true", [`k8s.io/cluster-autoscaler/${clusterName}`]: "owned" };
}

/**
 * The node label the autoscaler's AWS provider reads as "this node has a GPU" (its README, "Special note on
 * GPU instances"): on a new GPU node whose device plugin has not yet advertised `nvidia.com/gpu`, it waits
 * for the plugin instead of taking the node for one without GPUs and starting another. Its value is free;
 * the GPU model here (`nvidiaGpuModel`).
 */
export const ACCELERATOR_LABEL = "k8s.amazonaws.com/accelerator";

/**
 * The ephemeral storage a node of a `diskSizeGb` root volume offers pods, rounded down to whole GiB and
 * kept under what a node reports: the kubelet holds back 10 % of the node filesystem (`evictionHard`
 * `nodefs.available<10%`, its default) and the EKS AMI 1 GiB more (`kubeReserved` `ephemeral-storage`,
 * awslabs/amazon-eks-ami), and the filesystem takes a little of the volume; 85 % less 1 GiB stays below.
 */
export function nodeEphemeralStorageGi(diskSizeGb: number): number {
    return Math.max(0, Math.floor(diskSizeGb * 0.85) - 1);
}

/** What a GPU node of the group will be, for the autoscaler's template of a group at zero. */
export interface GpuNodeTemplate {
    /** `nvidia.com/gpu` per node; undefined for a type `instanceTypes.ts` does not list (the autoscaler's own catalog then says). */
    gpusPerNode?: number;
    /** The node group's root volume in GiB (`diskSizeGb`). */
    diskSizeGb: number;
    /** The value of the nodes' `ACCELERATOR_LABEL` (`nvidiaGpuModel`). */
    accelerator: string;
}

/**
 * The ASG tags that tell the autoscaler what a GPU node of a group at zero would be, so a pending GPU
 * pod makes it scale the group up. With no node of the group to copy, the AWS provider builds the node
 * from the instance type's CPU, memory and GPUs and from these tags alone (kubernetes/autoscaler
 * `cluster-autoscaler/cloudprovider/aws/aws_manager.go`, `buildNodeFromTemplate`): every label the pod
 * selects (the pool), the taint it tolerates, and every resource it requests that the catalog does not
 * give, `ephemeral-storage` included (the model pods request it; without the tag the template offers
 * none and the pod "does not fit": autoscaler#1650, #1869). While the autoscaler remembers a real node
 * it uses that instead, so a missing tag shows only after it restarts.
 */
export function gpuNodeTemplateTags(node: GpuNodeTemplate): Record<string, string> {
    const prefix = "k8s.io/cluster-autoscaler/node-template";
    // Appended in this order: the tags' resource names are their positions, so earlier ones keep theirs.
    return {
        [`${prefix}/label/${NODE_POOL_LABEL}`]: poolLabels("gpu")[NODE_POOL_LABEL],
        [`${prefix}/taint/${GPU_TAINT_KEY}`]: "true:NoSchedule",
        ...(node.gpusPerNode !== undefined ? { [`${prefix}/resources/${GPU_TAINT_KEY}`]: String(node.gpusPerNode) } : {}),
        [`${prefix}/resources/ephemeral-storage`]: `${nodeEphemeralStorageGi(node.diskSizeGb)}Gi`,
        [`${prefix}/label/${ACCELERATOR_LABEL}`]: node.accelerator,
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
    /** The GPU group's ASG and what its nodes will be, for the node-template tags; none without a GPU group. */
    gpuGroup?: { autoscalingGroupName: pulumi.Input<string>; node: GpuNodeTemplate };
    /** What the autoscaler's pod needs first: the node groups and the Pod Identity agent add-on. */
    dependsOn: pulumi.Input<pulumi.Resource>[];
}

/** What is wrong with the autoscaler's arguments, each under its field (pure; a version known only at `up` is checked then). */
export function clusterAutoscalerIssues(args: ClusterAutoscalerArgs): ArgsIssue[] {
    const issues: ArgsIssue[] = [];
    const region = awsRegionIssue("region", args.region);
    if (region !== undefined) {
        issues.push(region);
    }
    if (typeof args.kubernetesVersion === "string") {
        const problem = autoscalerVersionProblem(args.kubernetesVersion);
        if (problem !== undefined) {
            issues.push({ field: "kubernetesVersion", value: args.kubernetesVersion, message: problem });
        }
    }
    if (!Array.isArray(args.dependsOn)) {
        issues.push({ field: "dependsOn", value: undefined, message: "must be a list of resources (the node groups, the Pod Identity agent add-on), empty for none" });
    }
    return issues;
}

export class ClusterAutoscaler extends pulumi.ComponentResource {
    readonly release: k8s.helm.v3.Release;
    readonly role: aws.iam.Role;

    constructor(name: string, args: ClusterAutoscalerArgs, opts?: pulumi.ComponentResourceOptions) {
        const issues = clusterAutoscalerIssues(args);
        if (issues.length > 0) {
            throw argsError("ClusterAutoscaler", name, issues);
        }
        super("tf-serving:index:ClusterAutoscaler", name, {}, opts);
        const awsOpts = { parent: this };
        const { role, policy, association } = podIdentityRole(name, args.clusterName, AUTOSCALER_SERVICE_ACCOUNT,
            pulumi.output(args.clusterName).apply((clusterName) => JSON.stringify(clusterAutoscalerPolicy(clusterName))), awsOpts);
        this.role = role;
        const templateTags = args.gpuGroup
            ? Object.entries(gpuNodeTemplateTags(args.gpuGroup.node)).map(([key, value], i) => new aws.autoscaling.Tag(`${name}-gpu-template-${i}`, {
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
