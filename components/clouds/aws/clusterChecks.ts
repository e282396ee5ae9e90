/**
 * `EksCluster`'s checks across its fields, pure: the component throws what they find, and the `eks`
 * config section records it under its keys (`components/argsIssues.ts`).
 */
import type { ArgsIssue } from "../../argsIssues";

/** A resource-name-safe suffix for an IAM principal ARN (`123456789012-role-deployer`). */
export function principalSuffix(arn: string): string {
    return arn.split(":").slice(4).join("-").replace(/[^A-Za-z0-9-]+/g, "-").replace(/^-+|-+$/g, "");
}

/** The fields the checks read (the config layer leaves out a list it has refused every entry of). */
export interface EksClusterChecked {
    adminPrincipalArns?: string[];
    apiAccessCidrs?: string[];
    callerArn?: string;
}

/**
 * What EKS or the cluster's administrators would be refused in `args`. `key` names another field in
 * a message (the config layer's `eks.adminPrincipalArns`; the field itself for a library user).
 */
export function eksClusterIssues(args: EksClusterChecked, key: (field: string) => string = (field) => field): ArgsIssue[] {
    const issues: ArgsIssue[] = [];
    const arns = args.adminPrincipalArns ?? [];
    if (args.adminPrincipalArns !== undefined && arns.length === 0) {
        issues.push({ field: "adminPrincipalArns", value: [], message: "is empty, which would leave the cluster without an administrator; list the IAM roles or users that run `pulumi up` (you, CI)" });
    }
    arns.forEach((arn, i) => {
        // Each principal's access entry is named after it: two that name alike would be one resource twice.
        const first = arns.findIndex((other) => principalSuffix(other) === principalSuffix(arn));
        if (first < i) {
            issues.push({ field: `adminPrincipalArns[${i}]`, value: arn, message: `names the same principal as ${key("adminPrincipalArns")}[${first}] (${arns[first]}); list each principal once` });
        }
    });
    if (arns.length > 0 && args.callerArn !== undefined && !arns.includes(args.callerArn)) {
        issues.push({
            field: "adminPrincipalArns", value: arns,
            message: `does not include ${key("callerArn")} (${args.callerArn}), the identity running Pulumi: it would be locked out of the cluster; list it too`,
        });
    }
    if (args.apiAccessCidrs !== undefined && args.apiAccessCidrs.length === 0) {
        issues.push({ field: "apiAccessCidrs", value: [], message: "is empty; list the CIDRs allowed to reach the Kubernetes API, or remove the key to allow any address" });
    }
    return issues;
}
