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
export function modelServerLabels(modelName: string): Record<string, string> {
    return {
        [NAME_LABEL]: APP_NAME,
        [COMPONENT_LABEL]: MODEL_SERVER_COMPONENT,
        [INSTANCE_LABEL]: modelName,
        [MANAGED_BY_LABEL]: "pulumi",
    };
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
