/**
 * Entry point `tf-serving/components`: every component at once. It loads every provider SDK
 * (`@pulumi/kubernetes`, `@pulumi/docker`, `@pulumi/gcp`, `@pulumi/aws`), so all must be installed;
 * a program that uses some of them imports `tf-serving/model-server`, `tf-serving/model-image`,
 * `tf-serving/gke` or `tf-serving/eks` instead. Registers nothing when imported.
 */
export * from "./eks";
export * from "./gke";
export * from "./modelImage";
export * from "./modelServer";
export { renderKubeconfig } from "../components/kubeconfig";
export type { KubeconfigAuth, KubeconfigCluster } from "../components/kubeconfig";
