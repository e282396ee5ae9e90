/**
 * Entry point `tf-serving/model-server`: TF Serving for one model on any Kubernetes cluster, where
 * its pods go, its L7 gateway and its monitoring (scrape objects, alert rules, dashboard). Needs `@pulumi/pulumi` and `@pulumi/kubernetes`. Registers nothing when imported.
 */
export { ModelServer, modelServerSizing } from "../components/modelServer";
export { ModelGateway } from "../components/modelGateway";
export type { ModelGatewayArgs, RouteRef } from "../components/modelGateway";
export type {
    EksGatewaySettings, GatewayInput, GatewayPlatform, GatewayPlatformSettings, GenericGatewaySettings, GkeGatewaySettings, GkeIapSettings,
} from "../components/clouds/gateways";
export type { GatewayBase, GatewayController } from "../serving/gateway";
export { GATEWAY_CONTROLLERS } from "../serving/gateway";
export { JWT_CLAIM_FORMATS } from "../components/clouds/gateways";
export type { EksJwtValidation, JwtClaim, JwtClaimFormat } from "../components/clouds/gateways";
export { ModelMonitoring } from "../components/modelMonitoring";
export type { ModelMonitoringArgs } from "../components/modelMonitoring";
export { COLLECTORS } from "../components/clouds/collectors";
export type { Collector } from "../components/clouds/collectors";
export { DEFAULT_THRESHOLDS } from "../observability/alerts";
export type { AlertThresholds } from "../observability/alerts";
export { INFERENCE_REQUEST_RATE_METRIC, PROMETHEUS_ADAPTER_METRIC } from "../serving/autoscaling";
export type { AutoscalingSettings, PodMetricRef } from "../serving/autoscaling";
export type { CanarySettings, CanaryGates } from "../serving/canary";
export { MEMORY_PEAK_ANNOTATION, MODEL_BYTES_ANNOTATION, PUBLIC_ANNOTATION, modelServerLabels } from "../contract/labels";
export type { ImagePullCredentials, ModelServerArgs, RolloutStrategy, ServedModel, ServerCanary, ServerResources } from "../components/modelServer";
export type { ClusterAccess } from "../components/replicaHandback";
export { GPU_TOLERATION, NODE_POOL_LABEL, poolLabels, poolPlacement } from "../components/nodePlacement";
export type { NodePlacement, PoolKind } from "../components/nodePlacement";
export { MODEL_DELIVERIES } from "../serving/modelDelivery";
export type { ModelDelivery } from "../serving/modelDelivery";
