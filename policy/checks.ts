/**
 * The policy pack's checks as pure functions: each takes a Kubernetes resource's properties (as
 * Pulumi passes them to a policy: the resource inputs, in Kubernetes' JSON field names) and
 * returns one message per violation, naming the field and the fix. An empty list means it passes.
 *
 * This folder stands apart from the program (a policy pack reads resources, it imports nothing of
 * the program's), so the label and annotation it selects on are spelled out here; a unit test
 * (`test/unit/policy/contract.test.ts`) holds them equal to the program's `contract/labels.ts`.
 */

/** A resource is the model server's when this label (on it, its pod template or its Service selector) has this value. */
export const MODEL_SERVER_LABEL = "app.kubernetes.io/component";
export const MODEL_SERVER_COMPONENT = "model-server";
/** Set to "true" on a LoadBalancer Service to open it to every address on purpose. */
export const PUBLIC_ANNOTATION = "tf-serving.dev/public";
/** Kubernetes' older, annotation form of `spec.loadBalancerSourceRanges` (comma-separated CIDRs). */
const SOURCE_RANGES_ANNOTATION = "service.beta.kubernetes.io/load-balancer-source-ranges";
export const GPU_RESOURCE = "nvidia.com/gpu";

type Quantity = string | number;

export interface ObjectMeta {
    name?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
}

export interface Probe {
    exec?: { command?: string[] };
    httpGet?: unknown;
    tcpSocket?: unknown;
    grpc?: unknown;
}

export interface Container {
    name?: string;
    image?: string;
    resources?: { limits?: Record<string, Quantity>; requests?: Record<string, Quantity> };
    readinessProbe?: Probe;
    livenessProbe?: Probe;
    startupProbe?: Probe;
}

export interface Toleration {
    key?: string;
    operator?: string;
    value?: string;
    effect?: string;
}

export interface PodSpec {
    containers?: Container[];
    initContainers?: Container[];
    tolerations?: Toleration[];
}

export interface DeploymentProps {
    metadata?: ObjectMeta;
    spec?: {
        replicas?: number;
        strategy?: { type?: string; rollingUpdate?: { maxUnavailable?: Quantity; maxSurge?: Quantity } };
        template?: { metadata?: ObjectMeta; spec?: PodSpec };
    };
}

export interface ServiceProps {
    metadata?: ObjectMeta;
    spec?: { type?: string; selector?: Record<string, string>; loadBalancerSourceRanges?: string[] };
}

const isModelServerLabels = (labels: Record<string, string> | undefined) => labels?.[MODEL_SERVER_LABEL] === MODEL_SERVER_COMPONENT;

/** Whether a Deployment runs the model server: labelled so itself or in its pod template. */
export function isModelServerDeployment(props: DeploymentProps): boolean {
    return isModelServerLabels(props.metadata?.labels) || isModelServerLabels(props.spec?.template?.metadata?.labels);
}

/** Whether a Service fronts the model server: labelled so itself, or selecting model-server pods. */
export function isModelServerService(props: ServiceProps): boolean {
    return isModelServerLabels(props.metadata?.labels) || isModelServerLabels(props.spec?.selector);
}

const CONTAINERS = "spec.template.spec.containers";

function containersOf(props: DeploymentProps): Array<[string, Container]> {
    return (props.spec?.template?.spec?.containers ?? []).map((c, i) => [`${CONTAINERS}[${i}] ("${c.name ?? "?"}")`, c]);
}

/** Every model-server container has a memory limit. */
export function checkMemoryLimits(props: DeploymentProps): string[] {
    return containersOf(props)
        .filter(([, c]) => c.resources?.limits?.memory === undefined)
        .map(([where]) => `${where} has no memory limit (resources.limits.memory): set one above the model's size plus `
            + "the runtime's overhead (a hot reload holds two versions, about double), so an overgrown server is "
            + "OOMKilled and restarted instead of starving its node");
}

/** Every model-server container has a readiness probe and a liveness or startup probe, none of them running curl. */
export function checkProbes(props: DeploymentProps): string[] {
    const violations: string[] = [];
    for (const [where, c] of containersOf(props)) {
        if (c.readinessProbe === undefined) {
            violations.push(`${where} has no readinessProbe: without one, traffic reaches the pod before the model is `
                + "loaded; probe GET /v1/models/NAME on the REST port (or gRPC health with --enable_grpc_healthcheck_service)");
        }
        if (c.livenessProbe === undefined && c.startupProbe === undefined) {
            violations.push(`${where} has neither a livenessProbe nor a startupProbe: a wedged server is never restarted; `
                + "add a startupProbe sized for the model's load time and a livenessProbe on the serving port");
        }
        for (const kind of ["readinessProbe", "livenessProbe", "startupProbe"] as const) {
            const command = c[kind]?.exec?.command ?? [];
            if (command.some((word) => /(^|\/)(curl|wget)\b/.test(word))) {
                violations.push(`${where} ${kind} runs ${command[0]}, which the tensorflow/serving image does not have, `
                    + "so the probe always fails: use an httpGet, tcpSocket or grpc probe");
            }
        }
    }
    return violations;
}

const DIGEST = /@sha256:[0-9a-f]{64}$/;

const TEMPLATE_POD_SPEC = ["spec", "template", "spec"];
/**
 * Where each Kubernetes workload type keeps its pod spec: every container the stack deploys (the
 * model server's Deployment, the device plugin's DaemonSet, anything else) runs from one of these.
 */
export const POD_SPEC_PATHS: Readonly<Record<string, readonly string[]>> = {
    "kubernetes:apps/v1:Deployment": TEMPLATE_POD_SPEC,
    "kubernetes:apps/v1:DaemonSet": TEMPLATE_POD_SPEC,
    "kubernetes:apps/v1:StatefulSet": TEMPLATE_POD_SPEC,
    "kubernetes:apps/v1:ReplicaSet": TEMPLATE_POD_SPEC,
    "kubernetes:core/v1:ReplicationController": TEMPLATE_POD_SPEC,
    "kubernetes:batch/v1:Job": TEMPLATE_POD_SPEC,
    "kubernetes:batch/v1:CronJob": ["spec", "jobTemplate", "spec", "template", "spec"],
    "kubernetes:core/v1:Pod": ["spec"],
};

/** The pod spec of a workload of `type` (undefined for other types), and its field path for messages. */
function podSpecOf(props: object, type: string): { path: string; spec?: PodSpec } | undefined {
    const keys = POD_SPEC_PATHS[type];
    if (keys === undefined) {
        return undefined;
    }
    let node: unknown = props;
    for (const key of keys) {
        node = node !== null && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined;
    }
    return { path: keys.join("."), spec: node as PodSpec | undefined };
}

/**
 * Every container image (init containers too) of a workload of any kind is pinned by digest, so a pod
 * runs exactly what was built and reviewed. `type` is the Pulumi type token; default a Deployment.
 */
export function checkImageDigests(props: object, type = "kubernetes:apps/v1:Deployment"): string[] {
    const pod = podSpecOf(props, type);
    if (pod === undefined) {
        return [];
    }
    const all: Array<[string, Container]> = [
        ...(pod.spec?.containers ?? []).map((c, i): [string, Container] => [`${pod.path}.containers[${i}]`, c]),
        ...(pod.spec?.initContainers ?? []).map((c, i): [string, Container] => [`${pod.path}.initContainers[${i}]`, c]),
    ];
    return all
        .filter(([, c]) => !DIGEST.test(c.image ?? ""))
        .map(([where, c]) => `${where} image "${c.image ?? ""}" is not pinned by digest: a tag can move, and a pod `
            + "restarted later may pull other bytes; use NAME@sha256:<digest> (docker.Image's repoDigest output)");
}

const isZero = (q: Quantity | undefined) => q === 0 || q === "0%";

/**
 * Rolling updates never take a serving pod away before its replacement is ready; at least one replica
 * runs. One exception, for GPU pods only: `maxSurge: 0, maxUnavailable: 1` (one pod at a time), which
 * the program chooses when the GPU pool has no GPU for a surge pod; a surge there would stay Pending
 * and the rollout would never finish.
 */
export function checkRollingUpdate(props: DeploymentProps): string[] {
    const violations: string[] = [];
    const replicas = props.spec?.replicas;
    if (replicas !== undefined && replicas < 1) {
        violations.push(`spec.replicas is ${replicas}: the model server must run at least 1 replica`);
    }
    const strategy = props.spec?.strategy;
    if (strategy?.type === "Recreate") {
        violations.push("spec.strategy.type is Recreate, which stops every pod before new ones load the model (an outage "
            + "on every update): use RollingUpdate with maxUnavailable 0");
        return violations;
    }
    const maxUnavailable = strategy?.rollingUpdate?.maxUnavailable;
    const oneGpuPodAtATime = maxUnavailable === 1 && isZero(strategy?.rollingUpdate?.maxSurge) && containersOf(props).some(([, c]) => requestsGpu(c));
    if (oneGpuPodAtATime) {
        return violations;
    }
    if (!isZero(maxUnavailable)) {
        const now = maxUnavailable === undefined ? "unset (Kubernetes then takes 25%)" : JSON.stringify(maxUnavailable);
        violations.push(`spec.strategy.rollingUpdate.maxUnavailable is ${now}: pods would stop before their replacements `
            + "have loaded the model; set it to 0 (and maxSurge to 1 or more), or, for GPU pods on a pool with no GPU to "
            + "spare, to 1 with maxSurge 0 (one pod at a time)");
    } else if (isZero(strategy?.rollingUpdate?.maxSurge)) {
        violations.push("spec.strategy.rollingUpdate.maxSurge is 0 while maxUnavailable is 0: the rollout could never "
            + "progress (Kubernetes rejects it); set maxSurge to 1 or more");
    }
    return violations;
}

/** A positive count of `nvidia.com/gpu` in limits or requests. */
function requestsGpu(c: Container): boolean {
    return [c.resources?.limits?.[GPU_RESOURCE], c.resources?.requests?.[GPU_RESOURCE]]
        .some((q) => q !== undefined && Number(q) > 0);
}

/** Whether a toleration lets a pod onto nodes tainted `nvidia.com/gpu=...:NoSchedule`. */
function toleratesGpuTaint(t: Toleration): boolean {
    const effectOk = t.effect === undefined || t.effect === "" || t.effect === "NoSchedule";
    const keyOk = t.key === GPU_RESOURCE || ((t.key === undefined || t.key === "") && t.operator === "Exists");
    return keyOk && effectOk;
}

/** Pods that ask for GPUs tolerate the GPU nodes' taint (GKE and EKS GPU pools carry one), or they stay Pending. */
export function checkGpuTolerations(props: DeploymentProps): string[] {
    const gpuContainers = containersOf(props).filter(([, c]) => requestsGpu(c));
    if (gpuContainers.length === 0 || (props.spec?.template?.spec?.tolerations ?? []).some(toleratesGpuTaint)) {
        return [];
    }
    return [`${gpuContainers.map(([where]) => where).join(", ")} ${gpuContainers.length > 1 ? "ask" : "asks"} for `
        + `${GPU_RESOURCE} but spec.template.spec.tolerations has none for the ${GPU_RESOURCE} taint, so the pod stays `
        + `Pending: add {key: "${GPU_RESOURCE}", operator: "Exists", effect: "NoSchedule"}`];
}

const OPEN_RANGES = new Set(["0.0.0.0/0", "::/0"]);

/** A model-server LoadBalancer admits only listed source ranges, unless annotated as public on purpose. */
export function checkLoadBalancerSourceRanges(props: ServiceProps): string[] {
    if (props.spec?.type !== "LoadBalancer" || props.metadata?.annotations?.[PUBLIC_ANNOTATION] === "true") {
        return [];
    }
    const fromAnnotation = (props.metadata?.annotations?.[SOURCE_RANGES_ANNOTATION] ?? "")
        .split(",").map((r) => r.trim()).filter((r) => r !== "");
    const ranges = props.spec.loadBalancerSourceRanges?.length ? props.spec.loadBalancerSourceRanges : fromAnnotation;
    const howToOpen = `or annotate the Service ${PUBLIC_ANNOTATION}: "true" to open it on purpose`;
    if (ranges.length === 0) {
        return ["spec.loadBalancerSourceRanges is empty, so the model server's load balancer admits every address: "
            + `list the client CIDRs (e.g. ["203.0.113.0/24"]), ${howToOpen}`];
    }
    const open = ranges.filter((r) => OPEN_RANGES.has(r));
    return open.length === 0 ? [] : [`spec.loadBalancerSourceRanges includes ${open.join(" and ")}, which admits every `
        + `address: list the client CIDRs instead, ${howToOpen}`];
}
