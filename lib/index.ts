/**
 * Entry point `tf-serving` (the package's main entry): `ModelServer`, `ModelGateway` and
 * `ModelMonitoring` for any Kubernetes cluster, and the pure `preflight` and `sizing` functions under
 * them. Needs only the required peers, `@pulumi/pulumi` and `@pulumi/kubernetes`: `ModelImage`
 * (`@pulumi/docker`) and the cluster components (`@pulumi/gcp`, `@pulumi/aws`) have entry points of
 * their own, so that a program loads no SDK it has not installed. Registers nothing when imported.
 */
export * from "./modelServer";
export * from "./preflight";
export * from "./sizing";
