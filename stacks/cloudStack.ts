/**
 * What the GKE and EKS stacks share once their cluster and registry exist: deploy the models onto
 * the cluster (CPU pods on the CPU pool, GPU pods on the GPU pool) and add the cluster's kubeconfig
 * and name to the stack outputs.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { NodePlacement } from "../components/modelServer";
import { PodMetricRef } from "../serving/autoscaling";
import { ServingConfig } from "../config/config";
import { PreparedModel, RegistryTarget, StackOutputs, deployModels } from "./deploy";
import { PreviousOutputs } from "./previousOutputs";

/** The parts of a cluster component (GkeCluster, EksCluster) the models need. */
export interface CreatedCluster extends pulumi.Resource {
    provider: k8s.Provider;
    placement: { cpu: NodePlacement; gpu: NodePlacement };
    kubeconfig: pulumi.Output<string>;
    clusterName: pulumi.Output<string>;
    /** The controller that serves the models' Gateways, where the stack installs one (EKS): its webhooks must answer first. */
    loadBalancerController?: pulumi.Resource;
    /** Labels the models' namespace needs on this cluster (EKS with the load balancer controller: its readiness gates). */
    namespaceLabels?: Record<string, string>;
    /** The metric a model's request-rate HPA reads, where the cluster serves one under its own name (GKE's adapter). */
    requestRateMetric?(model: string): PodMetricRef;
}

export function deployToCluster(
    config: ServingConfig,
    models: PreparedModel[],
    cluster: CreatedCluster,
    registry: RegistryTarget & pulumi.Resource,
    previous: PreviousOutputs,
    serviceAnnotations?: Record<string, string>,
    /** What the models wait for beside the cluster and the registry (GKE: the Cloud Armor policy their Gateway names). */
    alsoDependsOn: pulumi.Resource[] = [],
): StackOutputs {
    return {
        ...deployModels({
            config,
            models,
            provider: cluster.provider,
            registry,
            previous,
            placement: cluster.placement,
            requestRateMetric: cluster.requestRateMetric?.bind(cluster),
            serviceAnnotations,
            cluster: { kubeconfig: cluster.kubeconfig },
            namespaceLabels: cluster.namespaceLabels,
            // Pods wait for their nodes (and the device plugin, and pull access to the registry).
            dependsOn: [cluster, registry, ...(cluster.loadBalancerController ? [cluster.loadBalancerController] : []), ...alsoDependsOn],
        }),
        kubeconfig: cluster.kubeconfig,
        clusterName: cluster.clusterName,
    };
}
