/**
 * Entry point `tf-serving/eks`: an EKS cluster with CPU and GPU node groups, its VPC, NVIDIA's device
 * plugin, the AWS Load Balancer Controller (the Gateway API on EKS), and ECR repositories. Needs `@pulumi/pulumi`, `@pulumi/aws` and `@pulumi/kubernetes`.
 * Registers nothing when imported.
 */
export { EKS_CLUSTER_DEFAULTS, EksCluster } from "../components/eks/cluster";
export type { EksClusterArgs, EksNetworkSettings } from "../components/eks/cluster";
export { CAPACITY_TYPES } from "../components/eks/nodeGroup";
export type { CapacityType, EksNodeGroupSettings } from "../components/eks/nodeGroup";
export { EksVpc, NAT_GATEWAY_MODES, SUBNET_SCHEMES } from "../components/eks/vpc";
export type { EksVpcArgs, NatGatewayMode, SubnetScheme } from "../components/eks/vpc";
export { NVIDIA_DEVICE_PLUGIN_IMAGE, NvidiaDevicePlugin } from "../components/eks/devicePlugin";
export type { NvidiaDevicePluginArgs } from "../components/eks/devicePlugin";
export { ALB_GATEWAY_CONTROLLER, AwsLoadBalancerController, LOAD_BALANCER_CONTROLLER } from "../components/eks/loadBalancerController";
export type { AwsLoadBalancerControllerArgs } from "../components/eks/loadBalancerController";
export { ACCELERATOR_LABEL, CLUSTER_AUTOSCALER, ClusterAutoscaler } from "../components/eks/clusterAutoscaler";
export type { ClusterAutoscalerArgs, GpuNodeTemplate } from "../components/eks/clusterAutoscaler";
export { PROMETHEUS_ADAPTER, PrometheusAdapter } from "../components/eks/prometheusAdapter";
export type { PrometheusAdapterArgs, PrometheusEndpoint } from "../components/eks/prometheusAdapter";
export { Ecr } from "../components/registry/ecr";
export type { EcrArgs, EcrSettings } from "../components/registry/ecr";
