/**
 * The reusable components, for other Pulumi programs:
 *
 *     import { ModelImage, ModelServer } from "tf-serving/components";
 */
export { ModelImage, ModelImageArgs, RegistryCredentials } from "./modelImage";
export { ModelServer, ModelServerArgs, NodePlacement, PUBLIC_ANNOTATION, modelServerLabels } from "./modelServer";
