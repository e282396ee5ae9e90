/**
 * A model artifact mounted by an `image` volume (`modelDelivery: imageVolume`, KEP-4639) that the node
 * cannot pull or mount. The finding names the artifact, not the server image, though the kubelet
 * reports it on the server's container.
 *
 * What the kubelet reports (kubernetes/kubernetes):
 * - `pkg/kubelet/kuberuntime/kuberuntime_manager.go` (`SyncPod`, `getImageVolumes`): before it starts
 *   the containers, the kubelet pulls each image volume's reference through the same image manager as
 *   container images, with the pod's pull secrets; a failed pull fails each container that mounts the
 *   volume (`toKubeContainerImageVolumes`), so the pod stays Pending (ContainerCreating) and the
 *   server's container waits with `ErrImagePull`, then `ImagePullBackOff`, although its own image is
 *   present. `test/e2e/common/node/image_volume.go` ("should fail if image volume is not existing")
 *   waits for exactly that: the container failing with `ImagePullBackOff`.
 * - `pkg/kubelet/images/image_manager.go` (`EnsureImageExists`): the events `Pulling` "Pulling image
 *   \"REF\"", `Failed` "Failed to pull image \"REF\": <the runtime's error>", `BackOff` "Back-off pulling
 *   image \"REF\""; the waiting message is the runtime's error (`ErrImagePull`), then "Back-off pulling
 *   image \"REF\": ErrImagePull: <the runtime's error>" (`ImagePullBackOff`). For an image volume the
 *   events are about the pod itself (no `fieldPath` naming a container).
 * - A runtime without image volumes (containerd before 2.1) pulls the artifact, then fails to create
 *   the container: `CreateContainerError` "failed to generate container ... spec: failed to apply OCI
 *   options: failed to mkdir \"\": mkdir : no such file or directory". Such a runtime reads the CRI
 *   mount's host path only, empty for an image volume, and `WithMounts` creates a missing host path
 *   before it binds it (containerd 1.7, `pkg/cri/opts/spec_linux_opts.go`: "failed to mkdir %q: %w"
 *   of `MkdirAll("")`); kubernetes-sigs/kind#3745 reports the message on a node. A runtime that supports them but fails to mount one
 *   says "failed to mount image volume: ImageVolumeMountFailed: ..." (containerd/containerd#13534).
 * - A runtime that neither supports nor refuses them mounts an empty folder (k3s-io/k3s#14323): the
 *   server then finds no model config in it and exits; that is the crash loop's finding, whose evidence
 *   this rule's node line does not join.
 */
import { IMAGE_VOLUME_NEEDS, runtimeImageVolumeProblem } from "../../serving/imageVolumeSupport";
import { MODEL_DELIVERY_DOC } from "../../serving/modelDelivery";
import { Finding, Rule, containerSpec, describeEvent, podFinding } from "./findings";
import { PULL_REASONS, PullCause, pullCause } from "./pullCause";
import { ClusterSnapshot, ContainerStatus, Event, Pod, Volume, eventsFor } from "./snapshot";

/** The page that says where image volumes run. */
export const IMAGE_VOLUME_RUNTIME_DOC = "docs/concepts/model-image.md#where-imagevolume-runs";

/** Container creation failures that name an image volume the runtime could not mount. */
const MOUNT_FAILURE = /failed to mkdir "": mkdir : no such file or directory|ImageVolumeMountFailed|image volume/i;
/** The mount without a host path that a runtime without image volumes is handed (containerd before 2.1). */
const NO_IMAGE_VOLUME_SUPPORT = /failed to mkdir "": mkdir : no such file or directory/;
const CREATE_FAILURES = new Set(["CreateContainerError", "RunContainerError"]);

/** The image volumes of a pod. */
export function imageVolumes(pod: Pod): (Volume & { image: { reference: string } })[] {
    return (pod.spec?.volumes ?? []).filter((v): v is Volume & { image: { reference: string } } => typeof v.image?.reference === "string" && v.image.reference !== "");
}

export function hasImageVolume(pod: Pod): boolean {
    return imageVolumes(pod).length > 0;
}

/** What went wrong with an image volume for one container. */
export interface ArtifactTrouble {
    volume: Volume & { image: { reference: string } };
    /** `pull`: the node cannot pull the artifact. `mount`: pulled, but the runtime cannot mount it. */
    stage: "pull" | "mount";
    reason: string;
    message: string;
    events: Event[];
}

/**
 * The image volume that keeps container `cs` from starting, or undefined when its trouble (if any) is
 * not an image volume's: a pull whose message or events quote a volume's reference rather than the
 * container's own image, or a creation failure that names an image volume mount.
 */
export function artifactTrouble(pod: Pod, cs: ContainerStatus, snapshot: ClusterSnapshot): ArtifactTrouble | undefined {
    const waiting = cs.state?.waiting;
    const volumes = mountedBy(pod, cs.name);
    if (waiting?.reason === undefined || volumes.length === 0) {
        return undefined;
    }
    const message = waiting.message ?? "";
    const events = eventsFor(snapshot.events, "Pod", pod.metadata);
    if (PULL_REASONS.has(waiting.reason)) {
        const own = containerSpec(pod, cs.name)?.image ?? cs.image;
        const quotes = (text: string, ref: string) => text.includes(`"${ref}"`) || text.includes(` ${ref}:`) || text.endsWith(` ${ref}`);
        // The waiting message names the image that failed; without one, the pod's pull events do.
        const named = (ref: string) => message !== "" ? quotes(message, ref) : events.some((e) => isPullEvent(e) && quotes(e.message ?? "", ref));
        if (own !== undefined && named(own)) {
            return undefined;
        }
        const volume = volumes.find((v) => named(v.image.reference));
        if (volume === undefined) {
            return undefined;
        }
        return { volume, stage: "pull", reason: waiting.reason, message, events: events.filter((e) => isPullEvent(e) && quotes(e.message ?? "", volume.image.reference)) };
    }
    if (CREATE_FAILURES.has(waiting.reason)) {
        const failed = events.filter((e) => e.reason === "Failed" && MOUNT_FAILURE.test(e.message ?? ""));
        if (!MOUNT_FAILURE.test(message) && failed.length === 0) {
            return undefined;
        }
        return { volume: volumes[0], stage: "mount", reason: waiting.reason, message, events: failed };
    }
    return undefined;
}

function isPullEvent(e: Event): boolean {
    return (e.reason === "Failed" && /^Failed to pull image /.test(e.message ?? "")) || (e.reason === "BackOff" && /^Back-off pulling image /.test(e.message ?? ""));
}

/** The image volumes container `name` mounts (every image volume when the spec lists no mounts). */
function mountedBy(pod: Pod, name: string): (Volume & { image: { reference: string } })[] {
    const volumes = imageVolumes(pod);
    const mounts = containerSpec(pod, name)?.volumeMounts;
    return mounts === undefined ? volumes : volumes.filter((v) => mounts.some((m) => m.name === v.name));
}

export const imageVolume: Rule = (snapshot) => snapshot.pods.flatMap((pod) => (pod.status?.containerStatuses ?? []).flatMap((cs): Finding[] => {
    const trouble = artifactTrouble(pod, cs, snapshot);
    if (trouble === undefined) {
        return [];
    }
    const { volume, stage, reason, message } = trouble;
    const ref = volume.image.reference;
    const mount = containerSpec(pod, cs.name)?.volumeMounts?.find((m) => m.name === volume.name);
    const nodeName = pod.spec?.nodeName;
    const runtime = snapshot.nodes?.find((n) => n.metadata?.name === nodeName)?.status?.nodeInfo?.containerRuntimeVersion;
    const runtimeProblem = runtime === undefined ? undefined : runtimeImageVolumeProblem(runtime);
    const secrets = (pod.spec?.imagePullSecrets ?? []).map((s) => s.name).filter((s) => s !== undefined);
    const evidence = [
        `pod volume ${volume.name}: image ${ref}${volume.image.pullPolicy ? ` (pullPolicy ${volume.image.pullPolicy})` : ""}`
            + `${mount?.mountPath ? `, mounted by container ${cs.name} at ${mount.mountPath}` : ""}: the model artifact`,
        `container ${cs.name} image ${containerSpec(pod, cs.name)?.image ?? cs.image ?? "?"}: the server, not the image that fails`,
        `container ${cs.name} state.waiting: ${reason}${message ? `: ${message}` : ""}`,
        ...trouble.events.slice(0, 2).map(describeEvent),
        secrets.length > 0 ? `pod imagePullSecrets: ${secrets.join(", ")} (the kubelet pulls image volumes with them too)`
            : "pod has no imagePullSecrets: the node's own registry credentials pull the artifact",
    ];
    if (runtime !== undefined) {
        evidence.push(`node ${nodeName} runtime ${runtime}${runtimeProblem ? `: ${runtimeProblem}` : ": mounts image volumes"}`);
    }
    if (stage === "mount") {
        const unsupported = NO_IMAGE_VOLUME_SUPPORT.test([message, ...trouble.events.map((e) => e.message ?? "")].join("\n")) || runtimeProblem !== undefined;
        return [podFinding(pod, {
            kind: "image-volume",
            severity: "error",
            summary: `the node cannot mount the model artifact ${ref} (image volume ${volume.name}): `
                + `${unsupported ? "its container runtime does not support image volumes" : "the runtime failed to mount it"} (${reason})`,
            evidence,
            fix: unsupported
                ? `Image volumes need ${IMAGE_VOLUME_NEEDS}; this node's runtime has none (it handed the mount no source). `
                    + `Run the model on nodes with such a runtime, or set modelDelivery: embedded for it (${IMAGE_VOLUME_RUNTIME_DOC}).`
                : `The runtime pulled the artifact but could not mount it: read its message above and the runtime's log on node ${nodeName ?? "?"}; `
                    + `modelDelivery: embedded serves the model without a mount (${MODEL_DELIVERY_DOC}).`,
        })];
    }
    const text = [message, ...trouble.events.map((e) => e.message ?? "")].join("\n");
    const cause = pullCause(text, reason);
    return [podFinding(pod, {
        kind: "image-volume",
        severity: "error",
        summary: `the node cannot pull the model artifact ${ref} of image volume ${volume.name} (${reason}: ${cause}); the server image is not what fails`,
        evidence,
        fix: artifactPullFix(cause, ref),
    })];
}));

function artifactPullFix(cause: PullCause, ref: string): string {
    const doc = ` (${MODEL_DELIVERY_DOC})`;
    switch (cause) {
        case "not found":
            return `The registry holds no artifact at ${ref} (manifest unknown): its push did not happen or went to another registry than the `
                + "one the nodes pull from. `pulumi up` builds and pushes the model artifact (only when it changed); check that the stack's "
                + `imageRef for the model names the registry the nodes reach${doc}.`;
        case "not authorized":
            return "The nodes may not read the artifact's repository. The kubelet pulls an image volume with the pod's imagePullSecrets and the "
                + "node's credentials, as it pulls the server image: when the artifact lives in another repository or registry, give the nodes "
                + "read access there too (GKE: Artifact Registry Reader for the node service account; EKS: the node role's ECR pull policy) "
                + `or add an imagePullSecret for its registry${doc}.`;
        case "registry unreachable":
            return "The nodes cannot reach the artifact's registry (address, DNS, TLS): push it to a registry address the nodes resolve, "
                + `not one that only works from your machine (such as localhost)${doc}.`;
        case "invalid image name":
            return `The artifact reference ${ref} is malformed; the stack pins it by digest from the build: redeploy with \`pulumi up\`${doc}.`;
        case "wrong platform":
            return `The artifact has no linux/amd64 variant the node accepts: rebuild it with \`pulumi up\`, which builds it for linux/amd64${doc}.`;
        default:
            return `Read the pull events above (\`kubectl describe pod\` shows them too); the artifact is pulled like an image${doc}.`;
    }
}
