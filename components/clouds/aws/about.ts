/** cloud: aws, as the config layer sees it before loading anything of it (`CloudAbout`). */
import type { CloudAbout } from "../cloud";

export const awsAbout: CloudAbout = {
    ownKeys: ["eks"],
    createsInstead: "EKS uses ECR and the cluster this stack creates",
    sdk: "@pulumi/aws",
};
