/**
 * The labels and annotations `ModelServer` writes and `tfs doctor` (and anything else that finds a
 * model server in a cluster) reads. The policy pack keeps its own copy (it is published alone);
 * `test/unit/policy/contract.test.ts` holds that copy equal to this one.
 */

export const NAME_LABEL = "app.kubernetes.io/name";
export const COMPONENT_LABEL = "app.kubernetes.io/component";
/** The model a model-server object serves. */
export const INSTANCE_LABEL = "app.kubernetes.io/instance";
export const MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";

const APP_NAME = "tf-serving";
export const MODEL_SERVER_COMPONENT = "model-server";

/** The name of the container that runs TF Serving in every model-server pod (cAdvisor's `container` label). */
export const SERVER_CONTAINER = "tf-serving";
/** The name of the pods' REST port, where TF Serving also serves its Prometheus metrics. */
export const REST_PORT_NAME = "http";

/** The labels every model-server object carries; the policy pack and `tfs doctor` select on them. */
export function modelServerLabels(model: string): Record<string, string> {
    return {
        [NAME_LABEL]: APP_NAME,
        [COMPONENT_LABEL]: MODEL_SERVER_COMPONENT,
        [INSTANCE_LABEL]: model,
        [MANAGED_BY_LABEL]: "pulumi",
    };
}

/** The reason of the event a canary release records on the serving Deployment when its gate rolls it back; `tfs doctor` reads it. */
export const CANARY_ROLLED_BACK = "CanaryRolledBack";

/** Marks a canary's pods (`canary`); the serving pods carry none. */
export const TRACK_LABEL = "tf-serving.dev/track";

/** The canary's name: its Deployment's and Service's, and its pods' instance label (so the model's selectors never match them). */
export function canaryName(modelName: string): string {
    return `${modelName}-canary`;
}

/** The canary pods' labels: the model server's, with an instance of their own. */
export function canaryLabels(modelName: string): Record<string, string> {
    return { ...modelServerLabels(modelName), [INSTANCE_LABEL]: canaryName(modelName), [TRACK_LABEL]: "canary" };
}

/** Selects every model server's objects (a label selector); the model name is the instance label. */
export const MODEL_SERVER_SELECTOR = `${NAME_LABEL}=${APP_NAME},${COMPONENT_LABEL}=${MODEL_SERVER_COMPONENT}`;

/** True for the labels of a model server's object (of `model`, when given). */
export function isModelServerLabelled(labels: Record<string, string>, model?: string): boolean {
    return labels[NAME_LABEL] === APP_NAME && labels[COMPONENT_LABEL] === MODEL_SERVER_COMPONENT
        && (model === undefined || labels[INSTANCE_LABEL] === model);
}

/**
 * Pod template annotations recording the model's size on disk and the memory it peaks at during a
 * version reload, in bytes. The OOMKilled diagnosis prints them beside the limit.
 */
export const MODEL_BYTES_ANNOTATION = "tf-serving.dev/model-bytes";
export const MEMORY_PEAK_ANNOTATION = "tf-serving.dev/memory-peak-bytes";

/** Set to "true" on a LoadBalancer Service to open it to every address on purpose; the policy pack reads it. */
export const PUBLIC_ANNOTATION = "tf-serving.dev/public";

/** A label name or a key's name part: at most 63 of letters, digits, '-', '_' and '.', alphanumeric at both ends. */
const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
/** A DNS-1123 subdomain: lowercase labels joined by '.'. */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Whether `name` is a DNS-1123 subdomain of at most 253 characters: what the API server accepts as
 * the name of most objects (a ConfigMap's, a Secret's) and as a label key's prefix
 * (k8s.io/apimachinery `pkg/util/validation/validation.go`, `IsDNS1123Subdomain`).
 */
export function isDnsSubdomain(name: string): boolean {
    return name.length <= 253 && DNS_SUBDOMAIN.test(name);
}

/**
 * Why the API server would refuse `key` as a label key, or undefined: `[prefix/]name` as
 * k8s.io/apimachinery's `validation.IsQualifiedName` checks it.
 */
export function labelKeyProblem(key: string): string | undefined {
    const slash = key.lastIndexOf("/");
    const [prefix, name] = slash < 0 ? [undefined, key] : [key.slice(0, slash), key.slice(slash + 1)];
    if (prefix !== undefined && !isDnsSubdomain(prefix)) {
        return "is not a Kubernetes label key: its prefix (before '/') must be a DNS subdomain such as \"example.com\"";
    }
    if (!LABEL_NAME.test(name)) {
        return "is not a Kubernetes label key: `[prefix/]name`, the name at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit (e.g. \"release\")";
    }
    return undefined;
}

/** Why the API server would refuse `value` as a label value (`validation.IsValidLabelValue`), or undefined. */
export function labelValueProblem(value: string): string | undefined {
    return value === "" || LABEL_NAME.test(value) ? undefined
        : "is not a Kubernetes label value: at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit, or empty";
}
