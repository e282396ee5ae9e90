/**
 * What an image pull failure says about its cause, read from the kubelet's waiting message and pull
 * events: the same words whether the image is a container's or an image volume's (both go through the
 * kubelet's image manager, pkg/kubelet/images/image_manager.go).
 */

/** The waiting reasons of a container whose image (or an image volume it mounts) cannot be pulled. */
export const PULL_REASONS: ReadonlySet<string> = new Set(["ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull"]);

export type PullCause = "invalid image name" | "not authorized" | "not found" | "wrong platform" | "registry unreachable" | "see the events";

export function pullCause(text: string, reason: string): PullCause {
    if (reason === "InvalidImageName") {
        return "invalid image name";
    }
    if (/unauthorized|authentication required|\b401\b|\b403\b|denied|no basic auth credentials|forbidden/i.test(text)) {
        return "not authorized";
    }
    if (/manifest unknown|not found|NotFound|name unknown|does not exist/i.test(text)) {
        return "not found";
    }
    if (/no match for platform|exec format/i.test(text)) {
        return "wrong platform";
    }
    if (/dial tcp|i\/o timeout|no such host|connection refused|x509|tls:/i.test(text)) {
        return "registry unreachable";
    }
    return "see the events";
}

export function pullFix(text: string, reason: string): string {
    switch (pullCause(text, reason)) {
        case "invalid image name":
            return "The image reference is malformed; the stack pins `repo@sha256:...` from the build: redeploy, and check baseImage/registry config.";
        case "not authorized":
            return "The nodes may not read the registry: on GKE give the node service account Artifact Registry Reader on the "
                + "repository; on EKS the node role needs AmazonEC2ContainerRegistryPullOnly (or the older ReadOnly); elsewhere add an imagePullSecret.";
        case "not found":
            return "The registry has no such image or digest (manifest unknown): check that the push succeeded and that the "
                + "stack's imageRef names the registry the nodes pull from; `pulumi up` rebuilds and pushes it.";
        case "wrong platform":
            return "The image has no linux/amd64 variant: TF Serving is amd64 only; build with platform linux/amd64.";
        case "registry unreachable":
            return "The nodes cannot reach the registry (address, DNS, TLS): use a registry address the nodes resolve, "
                + "not one that only works from your machine (such as localhost).";
        default:
            return "Read the pull events above; `kubectl describe pod` shows them too.";
    }
}
