/**
 * The `eks` configuration section (cloud: aws). Minimal first cut; the EKS work extends it.
 */
import { ConfigReader } from "./configReader";

export interface AwsConfig {
    region: string;
    /** Set when the cluster has a GPU node group. */
    gpuNodeGroup?: { instanceType: string };
}

export function readAwsConfig(top: ConfigReader): AwsConfig {
    const r = top.nested("eks") ?? new ConfigReader({}, top.issues, "eks.");
    return {
        region: r.required("region", "the AWS region, e.g. us-west-2"),
    };
}
