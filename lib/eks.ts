/**
 * Entry point `tf-serving/eks`: an EKS cluster with CPU and GPU node groups, its VPC, NVIDIA's device
 * plugin, the AWS Load Balancer Controller (the Gateway API on EKS), and ECR repositories. Needs `@pulumi/pulumi`, `@pulumi/aws` and `@pulumi/kubernetes`.
 * Registers nothing when imported.
 */
export { EKS_CLUSTER_DEFAULTS, EksCluster } from "../components/clouds/aws/cluster";
export type { EksClusterArgs, EksNetworkSettings } from "../components/clouds/aws/cluster";
export { CAPACITY_TYPES } from "../components/clouds/aws/nodeGroup";
export type { CapacityType, EksNodeGroupSettings } from "../components/clouds/aws/nodeGroup";
export { EksVpc, NAT_GATEWAY_MODES, SUBNET_SCHEMES } from "../components/clouds/aws/vpc";
export type { EksVpcArgs, NatGatewayMode, SubnetScheme } from "../components/clouds/aws/vpc";
export { NVIDIA_DEVICE_PLUGIN_IMAGE, NvidiaDevicePlugin } from "../components/clouds/aws/devicePlugin";
export type { NvidiaDevicePluginArgs } from "../components/clouds/aws/devicePlugin";
export { ALB_GATEWAY_CONTROLLER, AwsLoadBalancerController, LOAD_BALANCER_CONTROLLER } from "../components/clouds/aws/loadBalancerController";
export type { AwsLoadBalancerControllerArgs } from "../components/clouds/aws/loadBalancerController";
export { ACCELERATOR_LABEL, CLUSTER_AUTOSCALER, ClusterAutoscaler } from "../components/clouds/aws/clusterAutoscaler";
export type { ClusterAutoscalerArgs, GpuNodeTemplate } from "../components/clouds/aws/clusterAutoscaler";
export { PROMETHEUS_ADAPTER, PrometheusAdapter } from "../components/clouds/aws/prometheusAdapter";
export type { PrometheusAdapterArgs, PrometheusEndpoint } from "../components/clouds/aws/prometheusAdapter";
export { Ecr } from "../components/clouds/aws/ecr";
export type { EcrArgs, EcrSettings } from "../components/clouds/aws/ecr";
