/**
 * Entry point `tf-serving/model-image`: a SavedModel baked into a pinned `tensorflow/serving` base,
 * pushed and pinned by digest. Needs `@pulumi/pulumi` and `@pulumi/docker`. Registers nothing when imported.
 */
export { ModelImage } from "../components/modelImage";
export type { ModelImageArgs, ModelImageSettings, ModelImageSource, ModelImageWarmup, RegistryCredentials, RegistryDigestLookup, RegistryTagProbe } from "../components/modelImage";
export type { ImageBuildRecord, PreviousImage } from "../serving/pushDecision";
export { MODEL_DELIVERIES } from "../serving/modelDelivery";
export type { ModelDelivery } from "../serving/modelDelivery";
