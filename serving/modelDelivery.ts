/**
 * How a model reaches its server (`modelDelivery`), pure:
 *
 * - `embedded` (the default): the model is baked into a TF Serving image, one image per model and
 *   base. A base patch rebuilds and pushes every model's image.
 * - `imageVolume`: the model is an artifact of its own (`FROM scratch`: the version folders and the
 *   model config at its root), mounted read-only by a Kubernetes `image` volume at the model's base
 *   path beside the pinned TF Serving base. A base patch is a pod template change with the same model
 *   digest; a model change pushes the artifact only. Needs Kubernetes 1.35 and containerd 2.1 or
 *   CRI-O 1.31 on the nodes (`serving/imageVolumeSupport.ts`).
 */
import { MODELS_ROOT } from "./images";

export const MODEL_DELIVERIES = ["embedded", "imageVolume"] as const;
export type ModelDelivery = (typeof MODEL_DELIVERIES)[number];

/** What a model gets without `modelDelivery`: the image of its own, as before the choice existed. */
export const DEFAULT_MODEL_DELIVERY: ModelDelivery = "embedded";

/** The page that explains both deliveries, what each costs and where the second runs. */
export const MODEL_DELIVERY_DOC = "docs/concepts/model-image.md#two-ways-to-deliver-the-model";

/** Why `value` is no delivery, or undefined. */
export function modelDeliveryProblem(value: unknown): string | undefined {
    return typeof value === "string" && (MODEL_DELIVERIES as readonly string[]).includes(value)
        ? undefined
        : `must be one of ${MODEL_DELIVERIES.map((d) => `"${d}"`).join(", ")} (see ${MODEL_DELIVERY_DOC})`;
}

/** The name of the pod's volume that mounts the model artifact. */
export const MODEL_VOLUME = "model";

/**
 * The model config file at the artifact's root. The artifact always carries one: the pod names it with
 * `--model_config_file`, so the server needs nothing of the model but its name, and the versions and
 * labels served are part of the artifact's content (its tag and digest).
 */
export const ARTIFACT_CONFIG_FILE = "models.config";

/** Where the artifact is mounted: the model's base path, `/models/<name>`, the artifact's root (no `subPath`). */
export function artifactMountPath(model: string): string {
    return `${MODELS_ROOT}/${model}`;
}

/** The model config file as the server sees it: inside the mounted artifact. */
export function artifactConfigPath(model: string): string {
    return `${artifactMountPath(model)}/${ARTIFACT_CONFIG_FILE}`;
}

/** The parts of a pod spec that say what a model server runs. */
export interface ServedPodSpec {
    containers: { image?: string }[];
    volumes?: { name: string; image?: { reference?: string } }[];
}

/**
 * What a model server's pods run, as one string a canary compares: the server image, and with
 * `imageVolume` the model artifact beside it (a new base or a new model is a new release either way).
 * With `embedded` it is the image alone, as it always was.
 */
export function servedRelease(spec: ServedPodSpec): string | undefined {
    const image = spec.containers[0]?.image;
    const artifact = spec.volumes?.find((v) => v.name === MODEL_VOLUME)?.image?.reference;
    return image === undefined || artifact === undefined ? image : `${image} with model ${artifact}`;
}
