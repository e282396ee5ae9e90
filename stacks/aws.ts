/**
 * cloud: aws. An EKS cluster with a CPU and an optional GPU node group (and NVIDIA's device plugin
 * with it; metrics-server when a model autoscales), one ECR repository per model, then the models
 * through the cloud-agnostic `deployModels`, exposed through a Network Load Balancer. The AWS provider is explicit, built from
 * `eks.region` (and `eks.profile`), so the `eks` section is the only place these are set.
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import { EksCluster } from "../components/eks/cluster";
import { Ecr } from "../components/registry/ecr";
import { ServingConfig } from "./config";
import { deployToCluster } from "./cloudStack";
import { PreparedModel, StackOutputs } from "./deploy";

/**
 * Service annotations for the load balancer EKS's built-in cloud controller creates: a Network Load
 * Balancer (TCP, so gRPC's HTTP/2 passes through untouched) rather than a Classic ELB.
 * `serviceAnnotations` in config override them (e.g. for the AWS Load Balancer Controller).
 */
export const AWS_LOAD_BALANCER_ANNOTATIONS: Record<string, string> = {
    "service.beta.kubernetes.io/aws-load-balancer-type": "nlb",
};

export function deployAws(config: ServingConfig, models: PreparedModel[]): StackOutputs {
    const eks = config.aws;
    if (eks === undefined) {
        throw new Error("deployAws needs the eks configuration section (readConfig sets it for cloud: aws)");
    }
    const { registry: registrySettings, ...clusterArgs } = eks;
    const provider = new aws.Provider("aws", {
        region: eks.region as aws.Region,
        profile: eks.profile,
        defaultTags: { tags: { "tf-serving:stack": `${pulumi.getProject()}/${pulumi.getStack()}` } },
    });

    // An HPA without metrics-server never scales, and EKS does not install it.
    const metricsServer = models.some((m) => m.settings.autoscaling !== undefined);
    const cluster = new EksCluster("eks", { ...clusterArgs, metricsServer }, { providers: [provider] });
    const registry = new Ecr("images", { settings: registrySettings, models: models.map((m) => m.settings.name) }, { providers: [provider] });

    return deployToCluster(config, models, cluster, registry, AWS_LOAD_BALANCER_ANNOTATIONS);
}
