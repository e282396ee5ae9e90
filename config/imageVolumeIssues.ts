/**
 * A cluster that cannot mount a model artifact, as the config issues of the models that ask for one
 * (`modelDelivery: imageVolume`): each cloud says why (`components/clouds/<cloud>/imageVolumes.ts`),
 * this names the key and the way out, once per key.
 */
import type { ConfigIssue } from "./configReader";
import type { ModelSettings } from "./settings";
import { IMAGE_VOLUME_NEEDS } from "../serving/imageVolumeSupport";
import { MODEL_DELIVERY_DOC } from "../serving/modelDelivery";

/** One issue per `imageVolume` model's key for which `problem` says why its pods could not mount the artifact. */
export function imageVolumeIssues(models: readonly ModelSettings[], problem: (model: ModelSettings) => string | undefined): ConfigIssue[] {
    const issues = models.filter((m) => m.modelDelivery === "imageVolume").flatMap((m) => {
        const why = problem(m);
        const key = m.configKey("modelDelivery");
        return why === undefined ? [] : [{
            key, value: m.modelDelivery,
            expected: `cannot be mounted on this cluster: ${why}. Set ${key} to "embedded" (the default), or serve it on a cluster with ${IMAGE_VOLUME_NEEDS} (see ${MODEL_DELIVERY_DOC})`,
        }];
    });
    return [...new Map(issues.map((i) => [i.key, i])).values()];
}
