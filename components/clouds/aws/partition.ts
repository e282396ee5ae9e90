/**
 * The ARN partition of an AWS region, as every ARN the stack writes or reads names it. Pure, so the
 * config checks can use it without loading the AWS provider.
 */

/** An AWS region (`us-west-2`, `us-gov-west-1`), never a zone (`us-west-2a`). */
export const AWS_REGION = /^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-[0-9]+$/;

/** `field`'s issue when `region` is no AWS region. */
export function awsRegionIssue(field: string, region: unknown): { field: string; value: unknown; message: string } | undefined {
    return typeof region === "string" && AWS_REGION.test(region) ? undefined
        : { field, value: region, message: "must be an AWS region such as \"us-west-2\" (a region, not a zone like \"us-west-2a\")" };
}

/** `aws`, or `aws-cn` (`cn-*`), `aws-us-gov` (`us-gov-*`), `aws-iso` (`us-iso-*`), `aws-iso-b` (`us-isob-*`), `aws-iso-e`, `aws-iso-f`. */
export function awsPartition(region: string): string {
    if (region.startsWith("us-gov-")) {
        return "aws-us-gov";
    }
    if (region.startsWith("cn-")) {
        return "aws-cn";
    }
    const iso = /^[a-z]{2}-iso([a-z]?)-/.exec(region);
    return iso === null ? "aws" : iso[1] ? `aws-iso-${iso[1]}` : "aws-iso";
}
