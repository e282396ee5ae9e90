/**
 * Whether an existing cluster's nodes mount image volumes (`modelDelivery: imageVolume` on cloud
 * local): read from the cluster at preview (`clusterRuntime.ts`), judged by `serving/imageVolumeSupport.ts`.
 * A cluster that cannot be read is refused with the reason: nothing else says what its nodes run.
 * `tfs plan` reads no cluster, so there the check is left to the preview.
 */
import type { ConfigIssue } from "../../../config/configReader";
import { imageVolumeIssues } from "../../../config/imageVolumeIssues";
import type { ModelSettings } from "../../../config/settings";
import { ClusterRuntime, PodToleration, clusterImageVolumeProblem } from "../../../serving/imageVolumeSupport";

/**
 * The issues of the `imageVolume` models on the cluster `read` describes; `read` is called only when a
 * model asks for one. Each model is judged on the nodes its pods may land on: those whose taints
 * `tolerationsOf(model)` (the stack's placement of its pods) tolerates.
 */
export async function localImageVolumeIssues(models: readonly ModelSettings[], read: () => Promise<ClusterRuntime>,
    tolerationsOf: (model: ModelSettings) => readonly PodToleration[] = () => []): Promise<ConfigIssue[]> {
    if (!models.some((m) => m.modelDelivery === "imageVolume")) {
        return [];
    }
    let cluster: ClusterRuntime;
    try {
        cluster = await read();
    } catch (err) {
        const problem = `the cluster's version and nodes could not be read at preview (${(err as Error).message}), so whether its nodes mount image volumes is not known`;
        return imageVolumeIssues(models, () => problem);
    }
    return imageVolumeIssues(models, (m) => clusterImageVolumeProblem(cluster, tolerationsOf(m)));
}
