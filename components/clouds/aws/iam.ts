/**
 * IAM roles of an EKS cluster: the control plane's role and the nodes' role, each with AWS managed
 * policies only, and nothing broader than EKS documents as required.
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";

/** What the control plane needs to manage ENIs, load balancers and volumes for the cluster. */
export const EKS_CLUSTER_POLICIES = ["AmazonEKSClusterPolicy"] as const;

/**
 * Everything a managed node needs: join the cluster, run the VPC CNI, pull images from ECR. The EKS
 * node IAM role page names AmazonEC2ContainerRegistryPullOnly: pull and nothing else, where the older
 * ReadOnly policy also lets a node list and describe every repository and image in the account.
 */
export const EKS_NODE_POLICIES = ["AmazonEKSWorkerNodePolicy", "AmazonEKS_CNI_Policy", "AmazonEC2ContainerRegistryPullOnly"] as const;

export { awsPartition } from "./partition";

export function managedPolicyArn(partition: string, policy: string): string {
    return `arn:${partition}:iam::aws:policy/${policy}`;
}

/** A trust policy letting one AWS service assume the role. */
export function assumeRolePolicy(service: string): string {
    return JSON.stringify({
        Version: "2012-10-17",
        Statement: [{ Effect: "Allow", Principal: { Service: service }, Action: "sts:AssumeRole" }],
    });
}

/**
 * Creates a role that `service` assumes, with `policies` (AWS managed policy names) attached.
 * Returns the role and its attachments (depend on them so the policies are in place before use and
 * removed only after).
 */
export function serviceRole(
    name: string,
    service: string,
    policies: readonly string[],
    partition: string,
    parent: pulumi.Resource,
): { role: aws.iam.Role; attachments: aws.iam.RolePolicyAttachment[] } {
    const role = new aws.iam.Role(name, { assumeRolePolicy: assumeRolePolicy(service) }, { parent });
    const attachments = policies.map((policy) => new aws.iam.RolePolicyAttachment(`${name}-${policy}`, {
        role: role.name,
        policyArn: managedPolicyArn(partition, policy),
    }, { parent }));
    return { role, attachments };
}
