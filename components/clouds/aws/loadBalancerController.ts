/**
 * The AWS Load Balancer Controller, which serves the Gateway API on EKS (`endpoint: gateway`): an
 * Application Load Balancer per Gateway of a `gateway.k8s.aws/alb` GatewayClass, target groups per
 * route backend. EKS installs no Gateway API implementation and no Gateway API CRDs, so the stack
 * installs both, in the clusters it creates:
 *
 * - the Gateway API standard CRDs (the version the pinned controller is built against) and the
 *   controller's own CRDs (its chart's `crds.yaml`, and `LoadBalancerConfiguration`,
 *   `TargetGroupConfiguration`, `ListenerRuleConfiguration` in `gateway.k8s.aws`), from the
 *   projects' release files at the pinned tags. The stack owns them, so a version bump here updates
 *   them (Helm installs a chart's CRDs once and never upgrades them);
 * - an IAM role for the controller through EKS Pod Identity (no OIDC provider): trusted by
 *   `pods.eks.amazonaws.com`, with the controller's documented policy for the pinned version
 *   (`loadBalancerControllerPolicy`), associated with the chart's service account in kube-system;
 * - the chart from the eks-charts repository, pinned with its controller image, ALB Gateway API on,
 *   and the Service mutating webhook off, so Services this stack (or anyone) creates with the in-tree
 *   NLB annotation stay with EKS's built-in controller;
 * - with `gatewayClassName`, a GatewayClass of `gateway.k8s.aws/alb` by that name.
 *
 * Pure parts (versions, chart values, the policy and trust documents) are plain functions; the
 * component wires them. The cluster's Kubernetes and AWS providers come in the resource options.
 */
import * as aws from "@pulumi/aws";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { pinnedChartArgs } from "./chartRelease";
import type { ArgsIssue } from "../../argsIssues";
import { argsError } from "../../refusal";
import { isDnsSubdomain } from "../../../contract/labels";
import { awsPartition, awsRegionIssue } from "./partition";

/** The pinned release: the eks-charts chart version, and the controller image its appVersion names. */
export const LOAD_BALANCER_CONTROLLER = {
    chart: "aws-load-balancer-controller",
    repository: "https://aws.github.io/eks-charts",
    chartVersion: "3.5.0",
    image: "public.ecr.aws/eks/aws-load-balancer-controller",
    imageTag: "v3.5.0",
    /** The controller's v3.5.0 release requires the Gateway API CRDs v1.6.0 (it is built against them). */
    gatewayApiVersion: "v1.6.0",
} as const;

/** What ALB Gateways name as their controller (a GatewayClass's `controllerName`). */
export const ALB_GATEWAY_CONTROLLER = "gateway.k8s.aws/alb";

/** The chart's service account, which the Pod Identity association names (the chart creates it). */
export const CONTROLLER_SERVICE_ACCOUNT = { namespace: "kube-system", name: "aws-load-balancer-controller" } as const;

/**
 * The manifests the stack applies before the chart, at the pinned versions: the Gateway API's
 * standard channel (Gateway, GatewayClass, HTTPRoute, GRPCRoute, ReferenceGrant, ...), the chart's
 * own CRDs (TargetGroupBinding, IngressClassParams, ...), and the controller's gateway CRDs.
 */
export function controllerCrdManifests(release: typeof LOAD_BALANCER_CONTROLLER = LOAD_BALANCER_CONTROLLER): { name: string; url: string }[] {
    const controller = `https://raw.githubusercontent.com/kubernetes-sigs/aws-load-balancer-controller/${release.imageTag}`;
    return [
        { name: "gateway-api-crds", url: `https://github.com/kubernetes-sigs/gateway-api/releases/download/${release.gatewayApiVersion}/standard-install.yaml` },
        { name: "controller-crds", url: `${controller}/helm/aws-load-balancer-controller/crds/crds.yaml` },
        { name: "controller-gateway-crds", url: `${controller}/config/crd/gateway/gateway-crds.yaml` },
    ];
}

/**
 * The namespace label that makes the controller's webhook add a readiness gate to every pod it fronts with
 * an IP target (`defaultTargetType: ip` here): a pod is Ready only once its target is healthy, so a rollout
 * never leaves a target group with only Initial or Draining targets, which its docs call an outage
 * (`kubernetes-sigs/aws-load-balancer-controller/docs/deploy/pod_readiness_gate.md`). The webhook acts at
 * pod creation only: pods that ran before the label get their gate at their next rollout.
 */
export const POD_READINESS_GATE_LABELS: Readonly<Record<string, string>> = { "elbv2.k8s.aws/pod-readiness-gate-inject": "enabled" };

export interface ControllerChartInputs {
    clusterName: string;
    region: string;
    vpcId: string;
}

/**
 * The chart's values. `clusterName` is required by the chart; `region` and `vpcId` spare the
 * controller the instance metadata lookups (which the nodes' hop limit may refuse). The CRDs are the
 * stack's (`controllerCrdManifests`), so the Release skips the chart's `crds/` directory.
 */
export function controllerChartValues(inputs: ControllerChartInputs): Record<string, unknown> {
    return {
        clusterName: inputs.clusterName,
        region: inputs.region,
        vpcId: inputs.vpcId,
        image: { repository: LOAD_BALANCER_CONTROLLER.image, tag: LOAD_BALANCER_CONTROLLER.imageTag },
        // Created by the chart, named so the Pod Identity association can name it before it exists.
        serviceAccount: { create: true, name: CONTROLLER_SERVICE_ACCOUNT.name },
        // The controller turns its ALB Gateway controller on when it finds the CRDs; said here so a
        // missing CRD is an error at start rather than a Gateway nobody serves.
        controllerConfig: { featureGates: { ALBGatewayAPI: true } },
        // Otherwise every new LoadBalancer Service in the cluster is handed to this controller.
        enableServiceMutatorWebhook: false,
        // Pods get VPC addresses (VPC CNI), so target groups register pods, not node ports.
        defaultTargetType: "ip",
    };
}

/** An IAM policy statement, as the policy language writes it. */
export interface PolicyStatement {
    Effect: "Allow";
    Action: string[];
    /** Absent in a trust policy, which names a `Principal` instead. */
    Resource?: string | string[];
    Principal?: { Service: string };
    Condition?: Record<string, Record<string, string | string[]>>;
}

export interface PolicyDocument {
    Version: "2012-10-17";
    Statement: PolicyStatement[];
}

/**
 * The trust policy of the controller's role: EKS Pod Identity's service principal assumes it and tags
 * the session (the agent passes the cluster, namespace and service account as session tags).
 */
export function podIdentityTrustPolicy(): PolicyDocument {
    return {
        Version: "2012-10-17",
        Statement: [{ Effect: "Allow", Principal: { Service: "pods.eks.amazonaws.com" }, Action: ["sts:AssumeRole", "sts:TagSession"] }],
    };
}

/**
 * The controller's IAM policy for the pinned version (v3.5.0), as its project documents it
 * (`docs/install/iam_policy.json` at the release): read-only describes everywhere; creating load
 * balancers, target groups and security groups only with the controller's cluster tag in the request;
 * changing or deleting them only where that tag is on the resource; listeners and rules (which carry
 * no tag of their own at creation) and target registration on any. `partition` makes the ARNs right
 * in GovCloud and China.
 */
export function loadBalancerControllerPolicy(partition: string): PolicyDocument {
    const arn = (resource: string) => `arn:${partition}:${resource}`;
    const clusterTag = "elbv2.k8s.aws/cluster";
    const requestTagged = { Null: { [`aws:RequestTag/${clusterTag}`]: "false" } };
    const resourceTagged = { Null: { [`aws:ResourceTag/${clusterTag}`]: "false" } };
    const taggedNotRetagged = { Null: { [`aws:RequestTag/${clusterTag}`]: "true", [`aws:ResourceTag/${clusterTag}`]: "false" } };
    const securityGroups = arn("ec2:*:*:security-group/*");
    const balancersAndGroups = [
        arn("elasticloadbalancing:*:*:targetgroup/*/*"),
        arn("elasticloadbalancing:*:*:loadbalancer/net/*/*"),
        arn("elasticloadbalancing:*:*:loadbalancer/app/*/*"),
    ];
    return {
        Version: "2012-10-17",
        Statement: [
            {
                Effect: "Allow", Action: ["iam:CreateServiceLinkedRole"], Resource: "*",
                Condition: { StringEquals: { "iam:AWSServiceName": "elasticloadbalancing.amazonaws.com" } },
            },
            {
                Effect: "Allow",
                Action: [
                    ...["DescribeAccountAttributes", "DescribeAddresses", "DescribeAvailabilityZones", "DescribeInternetGateways", "DescribeVpcs",
                        "DescribeVpcPeeringConnections", "DescribeSubnets", "DescribeSecurityGroups", "DescribeInstances", "DescribeNetworkInterfaces",
                        "DescribeTags", "GetCoipPoolUsage", "DescribeCoipPools", "GetSecurityGroupsForVpc", "DescribeIpamPools", "DescribeRouteTables"]
                        .map((a) => `ec2:${a}`),
                    ...["DescribeLoadBalancers", "DescribeLoadBalancerAttributes", "DescribeListeners", "DescribeListenerCertificates",
                        "DescribeSSLPolicies", "DescribeRules", "DescribeTargetGroups", "DescribeTargetGroupAttributes", "DescribeTargetHealth",
                        "DescribeTags", "DescribeTrustStores", "DescribeListenerAttributes", "DescribeCapacityReservation"]
                        .map((a) => `elasticloadbalancing:${a}`),
                ],
                Resource: "*",
            },
            {
                Effect: "Allow",
                Action: [
                    "cognito-idp:DescribeUserPoolClient", "acm:ListCertificates", "acm:DescribeCertificate",
                    "iam:ListServerCertificates", "iam:GetServerCertificate",
                    "waf-regional:GetWebACL", "waf-regional:GetWebACLForResource", "waf-regional:AssociateWebACL", "waf-regional:DisassociateWebACL",
                    "wafv2:GetWebACL", "wafv2:GetWebACLForResource", "wafv2:AssociateWebACL", "wafv2:DisassociateWebACL",
                    "shield:GetSubscriptionState", "shield:DescribeProtection", "shield:CreateProtection", "shield:DeleteProtection",
                ],
                Resource: "*",
            },
            { Effect: "Allow", Action: ["ec2:AuthorizeSecurityGroupIngress", "ec2:RevokeSecurityGroupIngress"], Resource: "*" },
            { Effect: "Allow", Action: ["ec2:CreateSecurityGroup"], Resource: "*" },
            {
                Effect: "Allow", Action: ["ec2:CreateTags"], Resource: securityGroups,
                Condition: { StringEquals: { "ec2:CreateAction": "CreateSecurityGroup" }, ...requestTagged },
            },
            { Effect: "Allow", Action: ["ec2:CreateTags", "ec2:DeleteTags"], Resource: securityGroups, Condition: taggedNotRetagged },
            {
                Effect: "Allow", Action: ["ec2:AuthorizeSecurityGroupIngress", "ec2:RevokeSecurityGroupIngress", "ec2:DeleteSecurityGroup"],
                Resource: "*", Condition: resourceTagged,
            },
            {
                Effect: "Allow", Action: ["elasticloadbalancing:CreateLoadBalancer", "elasticloadbalancing:CreateTargetGroup"],
                Resource: "*", Condition: requestTagged,
            },
            {
                Effect: "Allow",
                Action: ["CreateListener", "DeleteListener", "CreateRule", "DeleteRule"].map((a) => `elasticloadbalancing:${a}`),
                Resource: "*",
            },
            {
                Effect: "Allow", Action: ["elasticloadbalancing:AddTags", "elasticloadbalancing:RemoveTags"],
                Resource: balancersAndGroups, Condition: taggedNotRetagged,
            },
            {
                Effect: "Allow", Action: ["elasticloadbalancing:AddTags", "elasticloadbalancing:RemoveTags"],
                Resource: [
                    arn("elasticloadbalancing:*:*:listener/net/*/*/*"),
                    arn("elasticloadbalancing:*:*:listener/app/*/*/*"),
                    arn("elasticloadbalancing:*:*:listener-rule/net/*/*/*"),
                    arn("elasticloadbalancing:*:*:listener-rule/app/*/*/*"),
                ],
            },
            {
                Effect: "Allow",
                Action: ["ModifyLoadBalancerAttributes", "SetIpAddressType", "SetSecurityGroups", "SetSubnets", "DeleteLoadBalancer",
                    "ModifyTargetGroup", "ModifyTargetGroupAttributes", "DeleteTargetGroup", "ModifyListenerAttributes",
                    "ModifyCapacityReservation", "ModifyIpPools"].map((a) => `elasticloadbalancing:${a}`),
                Resource: "*", Condition: resourceTagged,
            },
            {
                Effect: "Allow", Action: ["elasticloadbalancing:AddTags"], Resource: balancersAndGroups,
                Condition: { StringEquals: { "elasticloadbalancing:CreateAction": ["CreateTargetGroup", "CreateLoadBalancer"] }, ...requestTagged },
            },
            {
                Effect: "Allow", Action: ["elasticloadbalancing:RegisterTargets", "elasticloadbalancing:DeregisterTargets"],
                Resource: arn("elasticloadbalancing:*:*:targetgroup/*/*"),
            },
            {
                Effect: "Allow",
                Action: ["SetWebAcl", "ModifyListener", "AddListenerCertificates", "RemoveListenerCertificates", "ModifyRule", "SetRulePriorities"]
                    .map((a) => `elasticloadbalancing:${a}`),
                Resource: "*",
            },
        ],
    };
}

/** A GatewayClass the ALB Gateway controller serves. */
export function albGatewayClass(name: string): { apiVersion: string; kind: "GatewayClass"; metadata: { name: string }; spec: { controllerName: string } } {
    return { apiVersion: "gateway.networking.k8s.io/v1", kind: "GatewayClass", metadata: { name }, spec: { controllerName: ALB_GATEWAY_CONTROLLER } };
}

export interface AwsLoadBalancerControllerArgs {
    clusterName: pulumi.Input<string>;
    region: string;
    vpcId: pulumi.Input<string>;
    /** The ARN partition of the region (`awsPartition`). */
    partition: string;
    /** Create a GatewayClass of the ALB controller by this name; default none (the cluster has its own). */
    gatewayClassName?: string;
    /** Resources the controller's pods need first: the node groups, and the Pod Identity agent add-on. */
    dependsOn: pulumi.Input<pulumi.Resource>[];
}

/**
 * An IAM role for a Kubernetes service account through EKS Pod Identity: the role (`NAME-role`, trusting
 * the Pod Identity agent), its inline policy (`NAME-policy`) and the association (`NAME-pod-identity`).
 */
export function podIdentityRole(name: string, clusterName: pulumi.Input<string>, serviceAccount: { namespace: string; name: string },
    policyDocument: pulumi.Input<string>, opts: pulumi.CustomResourceOptions): { role: aws.iam.Role; policy: aws.iam.RolePolicy; association: aws.eks.PodIdentityAssociation } {
    const role = new aws.iam.Role(`${name}-role`, { assumeRolePolicy: JSON.stringify(podIdentityTrustPolicy()) }, opts);
    const policy = new aws.iam.RolePolicy(`${name}-policy`, { role: role.name, policy: policyDocument }, opts);
    const association = new aws.eks.PodIdentityAssociation(`${name}-pod-identity`, {
        clusterName,
        namespace: serviceAccount.namespace,
        serviceAccount: serviceAccount.name,
        roleArn: role.arn,
    }, opts);
    return { role, policy, association };
}

/** What is wrong with the controller's arguments, each under its field (pure). */
export function loadBalancerControllerIssues(args: AwsLoadBalancerControllerArgs): ArgsIssue[] {
    const issues: ArgsIssue[] = [];
    const region = awsRegionIssue("region", args.region);
    if (region !== undefined) {
        issues.push(region);
    } else if (args.partition !== awsPartition(args.region)) {
        issues.push({ field: "partition", value: args.partition, message: `must be "${awsPartition(args.region)}", the partition of region ${args.region} (\`awsPartition(region)\`): the controller's IAM policy names ARNs in it` });
    }
    if (args.gatewayClassName !== undefined && (typeof args.gatewayClassName !== "string" || !isDnsSubdomain(args.gatewayClassName))) {
        issues.push({ field: "gatewayClassName", value: args.gatewayClassName, message: "must be a Kubernetes object name: lowercase letters, digits, '-' and '.' (e.g. \"alb\")" });
    }
    if (!Array.isArray(args.dependsOn)) {
        issues.push({ field: "dependsOn", value: undefined, message: "must be a list of resources (the node groups, the Pod Identity agent add-on), empty for none" });
    }
    return issues;
}

export class AwsLoadBalancerController extends pulumi.ComponentResource {
    /** The chart, awaited until its Deployment is ready: the controller's webhooks answer from then on. */
    readonly release: k8s.helm.v3.Release;
    readonly role: aws.iam.Role;
    readonly gatewayClass?: k8s.apiextensions.CustomResource;

    constructor(name: string, args: AwsLoadBalancerControllerArgs, opts?: pulumi.ComponentResourceOptions) {
        const issues = loadBalancerControllerIssues(args);
        if (issues.length > 0) {
            throw argsError("AwsLoadBalancerController", name, issues);
        }
        super("tf-serving:index:AwsLoadBalancerController", name, {}, opts);
        // The AWS provider is the parent's (the cluster's); the Kubernetes one comes in `opts`.
        const awsOpts = { parent: this };
        const { role, policy, association } = podIdentityRole(name, args.clusterName, CONTROLLER_SERVICE_ACCOUNT,
            JSON.stringify(loadBalancerControllerPolicy(args.partition)), awsOpts);
        this.role = role;

        const crds = controllerCrdManifests().map(({ name: file, url }) =>
            new k8s.yaml.v2.ConfigFile(`${name}-${file}`, { file: url }, { parent: this }));

        const values = pulumi.all([args.clusterName, args.vpcId]).apply(([clusterName, vpcId]) =>
            controllerChartValues({ clusterName, region: args.region, vpcId }));
        // The association and its policy come first: the controller reads its credentials once at start.
        this.release = new k8s.helm.v3.Release(name, {
            ...pinnedChartArgs(LOAD_BALANCER_CONTROLLER),
            namespace: CONTROLLER_SERVICE_ACCOUNT.namespace,
            skipCrds: true,
            values,
        }, { parent: this, dependsOn: [association, policy, ...crds, ...args.dependsOn] });

        if (args.gatewayClassName !== undefined) {
            this.gatewayClass = new k8s.apiextensions.CustomResource(`${name}-gateway-class`,
                albGatewayClass(args.gatewayClassName), { parent: this, dependsOn: [this.release] });
        }
        this.registerOutputs({});
    }
}
