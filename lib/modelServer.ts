/**
 * Entry point `tf-serving/model-server`: TF Serving for one model on any Kubernetes cluster, and
 * where its pods go. Needs `@pulumi/pulumi` and `@pulumi/kubernetes`. Registers nothing when imported.
 */
export { ModelServer, modelServerSizing } from "../components/modelServer";
export { ModelGateway } from "../components/modelGateway";
export type { ModelGatewayArgs, RouteRef } from "../components/modelGateway";
export type { CanarySettings, CanaryGates } from "../serving/canary";
export { MEMORY_PEAK_ANNOTATION, MODEL_BYTES_ANNOTATION, PUBLIC_ANNOTATION, modelServerLabels } from "../contract/labels";
export type { ImagePullCredentials, ModelServerArgs, RolloutStrategy, ServedModel, ServerCanary, ServerResources } from "../components/modelServer";
export { GPU_TOLERATION, NODE_POOL_LABEL, poolLabels, poolPlacement } from "../components/nodePlacement";
export type { NodePlacement, PoolKind } from "../components/nodePlacement";
