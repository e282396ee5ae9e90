/**
 * Whether the GKE stack's nodes mount image volumes (`modelDelivery: imageVolume`), pure. GKE documents
 * the containerd of its Linux nodes (Container-Optimized OS and Ubuntu) as 1.7 up to GKE 1.32 and 2.0
 * from 1.33, and names no later containerd for any version (docs.cloud.google.com/kubernetes-engine/docs/deprecations/migrate-containerd-2);
 * image volumes need containerd 2.1 (`serving/imageVolumeSupport.ts`). The stack's nodes also take
 * their version from `gke.releaseChannel`, which a preview cannot know. Refused on every GKE stack,
 * with the reason, rather than guessed.
 */

/** Why no model's pods on the GKE stack could mount an image volume. */
export const GKE_IMAGE_VOLUME_PROBLEM = "GKE documents containerd 2.0 for its Linux nodes from GKE 1.33 and no later containerd for any version "
    + "(kubernetes-engine/docs/deprecations/migrate-containerd-2), while image volumes need containerd 2.1, and the nodes' version follows gke.releaseChannel, "
    + "which the preview cannot know";
