/**
 * Facts about the model-server image: which TF Serving release it starts from, where the model
 * lives inside it, which ports it serves and which user it runs as.
 */

/**
 * The pinned TensorFlow Serving release: `tensorflow/serving:2.21.0` (CPU) and its `-gpu` (CUDA) variant.
 * Pinned because `latest` moves, and kept on the release `pip install tensorflow` gives, so that a model exported
 * today is not newer than the server (serving/tensorflowVersion.ts). Its client package, tensorflow-serving-api
 * 2.21.0, requires tensorflow >= 2.21.0 and declares the gRPC methods and message fields model/tfProto.ts uses
 * (tensorflow_serving/apis). In tensorflow/serving's source after the 2.20.0 tag (master at 9d981c5c; the 2.21.0
 * tag itself was not readable), tensorflow_serving/model_servers/main.cc declares the same 48 flags, and http_server.cc, http_rest_api_handler.cc, prediction_service_impl.cc,
 * util/prometheus_exporter.cc and the metric names in servables/tensorflow/util.cc are unchanged, as are the
 * images' bases (Ubuntu 22.04; `-gpu`: CUDA 12.5, cuDNN 9, `tools/docker/Dockerfile{,.gpu}`).
 */
export const TF_SERVING_VERSION = "2.21.0";

/** The repository of the official images (amd64 only: there is no arm64 build). */
export const TF_SERVING_REPOSITORY = "tensorflow/serving";

/** The only platform the official images exist for; builds and node selection must match it. */
export const IMAGE_PLATFORM = "linux/amd64";

/**
 * The server binary, run directly as the entrypoint (not the stock bash wrapper). It has no SIGTERM
 * handler, so it must not be the pod's PID 1: the Deployment shares the pod's process namespace.
 */
export const MODEL_SERVER_BINARY = "/usr/bin/tensorflow_model_server";

/** Where models live in the image: `/models/<name>/<version>/`, TF Serving's own convention. */
export const MODELS_ROOT = "/models";

/** The model config file baked into the image when specific versions or labels are served. */
export const MODEL_CONFIG_PATH = `${MODELS_ROOT}/models.config`;

/** gRPC port (`--port`). */
export const GRPC_PORT = 8500;

/** REST port (`--rest_api_port`); TF Serving opens it only when the flag is set. */
export const REST_PORT = 8501;

/**
 * The numeric user and group the image runs as. The official image has no USER line (root); ours
 * runs as this non-root ID, which the pod's `runAsUser`/`runAsGroup` must match. It needs no
 * passwd entry: the server only reads the model (world-readable) and writes under `/tmp`. Above
 * 10000 (checkov CKV_K8S_40, kube-score, trivy KSV020/KSV021): 1000 is the first user of most
 * hosts, so a container escape as 1000 would own that user's files.
 */
export const SERVING_UID = 10001;
export const SERVING_GID = 10001;

/** The pinned official image: `tensorflow/serving:<version>`, or its `-gpu` variant. */
export function defaultBaseImage(gpu: boolean): string {
    return `${TF_SERVING_REPOSITORY}:${TF_SERVING_VERSION}${gpu ? "-gpu" : ""}`;
}

// The reference grammar of the distribution project (reference/regexp.go), which Docker, buildah
// and registries all share.
const ALNUM = "[a-z0-9]+";
const SEPARATOR = "(?:[._]|__|[-]+)";
const PATH_COMPONENT = `${ALNUM}(?:${SEPARATOR}${ALNUM})*`;
const DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[0-9a-fA-F:]+\\])(?::[0-9]+)?`;
const NAME = new RegExp(`^(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*$`);
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$/;
const MAX_NAME_LENGTH = 255;

/**
 * The tag of an image reference (`registry:5000/team/m:ctx-1` gives `ctx-1`), a digest after it
 * ignored; undefined when it has none. A tag follows the last ':' after the last '/'; an earlier ':'
 * is a registry port.
 */
export function imageTag(ref: string): string | undefined {
    const name = ref.split("@")[0];
    const colon = name.lastIndexOf(":");
    return colon > name.lastIndexOf("/") ? name.slice(colon + 1) : undefined;
}

/** True when `ref` names its bytes by a sha256 digest (`name@sha256:<64 hex>`, a tag before it or not). */
export function isDigestPinned(ref: string): boolean {
    return /@sha256:[0-9a-f]{64}$/.test(ref);
}

/** `ref` pinned to `digest` (`sha256:...`), its tag kept for readers: `tensorflow/serving:2.21.0@sha256:...`. */
export function pinnedReference(ref: string, digest: string): string {
    return `${ref.split("@")[0]}@${digest}`;
}

/**
 * Checks an image reference such as `tensorflow/serving:2.21.0`, `registry:5000/team/tfs:2.21.0-gpu`
 * or `repo@sha256:<64 hex>`. Returns what is wrong with it, or undefined when it is valid.
 * `scratch` (the empty base) is accepted.
 */
export function imageReferenceProblem(ref: string): string | undefined {
    const example = `e.g. "${defaultBaseImage(false)}" or "registry.local:5000/team/serving:2.21.0@sha256:<64 hex digits>"`;
    if (ref.trim() !== ref || ref === "") {
        return `"${ref}" is not an image reference: it is empty or has surrounding spaces (${example})`;
    }
    let rest = ref;
    let digest: string | undefined;
    const at = rest.indexOf("@");
    if (at >= 0) {
        digest = rest.slice(at + 1);
        rest = rest.slice(0, at);
        if (!DIGEST.test(digest)) {
            return `"${ref}" has a malformed digest "${digest}": expected ALGORITHM:HEX, e.g. sha256: and 64 hex digits`;
        }
    }
    // A tag follows the last ':' after the last '/'; an earlier ':' is a registry port.
    const lastColon = rest.lastIndexOf(":");
    if (lastColon > rest.lastIndexOf("/")) {
        const tag = rest.slice(lastColon + 1);
        rest = rest.slice(0, lastColon);
        if (!TAG.test(tag)) {
            return `"${ref}" has an invalid tag "${tag}": letters, digits, '_', '.' and '-', at most 128, not starting with '.' or '-'`;
        }
    }
    if (rest.length > MAX_NAME_LENGTH) {
        return `"${ref}" has a repository name longer than ${MAX_NAME_LENGTH} characters`;
    }
    if (!NAME.test(rest)) {
        return `"${ref}" is not a valid image name: repository path components are lowercase letters and digits separated by '.', '_', '__' or '-' (${example})`;
    }
    return undefined;
}
