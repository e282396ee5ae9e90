/**
 * The reusable components, for other Pulumi programs:
 *
 *     import { ModelImage, ModelServer } from "tf-serving/components";
 */
export { ModelImage, ModelImageArgs, RegistryCredentials } from "./modelImage";
export { ModelServer, ModelServerArgs, NodePlacement } from "./modelServer";
export { PUBLIC_ANNOTATION, modelServerLabels } from "../contract/labels";
export { GkeCluster } from "./gke/cluster";
export { EksCluster } from "./eks/cluster";
export { EksVpc } from "./eks/vpc";
export { NvidiaDevicePlugin } from "./eks/devicePlugin";
export { ArtifactRegistry } from "./registry/artifactRegistry";
export { Ecr } from "./registry/ecr";
export { renderKubeconfig } from "./kubeconfig";
export { GPU_TOLERATION, NODE_POOL_LABEL, poolPlacement } from "./nodePlacement";
