/**
 * The multi-language component package (`PulumiPlugin.yaml`, `runtime: nodejs`): the components a
 * YAML, Python, Go or .NET program uses after `pulumi package add`, and their enums. Pulumi's schema
 * analyzer reads these classes and the interfaces of their `args`; each wraps the library's component
 * of the same name (a TypeScript program imports those, with their richer types, from `lib/`).
 */
export { ModelImage } from "./modelImage";
export type { ImageRegistry, ModelImageArgs } from "./modelImage";
export { ModelServer } from "./modelServer";
export type { ModelServerArgs, ServerAutoscaling } from "./modelServer";
export { ModelGateway } from "./modelGateway";
export type { ModelGatewayArgs } from "./modelGateway";
export { ModelMonitoring } from "./modelMonitoring";
export type { AlertThresholds, ModelMonitoringArgs } from "./modelMonitoring";
export { GkeCluster } from "./gkeCluster";
export type { GkeClusterArgs, GkeGpuPool, GkeNodePool } from "./gkeCluster";
export { EksCluster } from "./eksCluster";
export type { EksClusterArgs, EksNetwork, EksNodeGroup } from "./eksCluster";
export * from "./enums";
