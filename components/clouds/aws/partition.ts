/**
 * The ARN partition of an AWS region, as every ARN the stack writes or reads names it. Pure, so the
 * config checks can use it without loading the AWS provider.
 */

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
