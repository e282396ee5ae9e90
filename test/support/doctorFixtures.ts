/**
 * Model-server objects as the Kubernetes API returns them (the JSON of `kubectl get -o json`), in
 * the states each failure leaves them in, for `tfs doctor`'s rules. The unit tests read them as
 * snapshots; the end-to-end test writes the same objects into a real API server.
 *
 * Shapes follow the Kubernetes API reference (core/v1 Pod, PodStatus, ContainerStatus, Event,
 * Service; apps/v1 Deployment); messages are the ones the kubelet, the scheduler and TF Serving write.
 */
import { modelServerLabels } from "../../contract/labels";
import {
    ClusterSnapshot, ContainerStatus, Deployment, DeploymentCondition, Event, Node, Pod, PodCondition, Service, Toleration,
} from "../../ops/doctor/snapshot";

export const MODEL = "half-plus-two";
export const NAMESPACE = "tf-serving";
export const IMAGE = "127.0.0.1:15000/tf-serving/half-plus-two@sha256:8d2c6a1f0e7b4c3d9a5e6f7081920a3b4c5d6e7f8091a2b3c4d5e6f708192a3b";
/** The time the unit tests diagnose at. */
export const NOW = Date.parse("2025-06-01T12:00:00Z");

/** An RFC 3339 time `seconds` before NOW, as the API writes it. */
export function ago(seconds: number, now = NOW): string {
    return new Date(now - seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

export function labels(model = MODEL): Record<string, string> {
    return modelServerLabels(model);
}

const httpProbe = (periodSeconds: number, timeoutSeconds: number, failureThreshold: number) => ({
    httpGet: { path: `/v1/models/${MODEL}`, port: "http", scheme: "HTTP" },
    periodSeconds, timeoutSeconds, failureThreshold, successThreshold: 1,
});

/** The pod spec `ModelServer` produces for a small CPU model (startup budget 70 s, limit 512Mi). */
export type PodSpec = NonNullable<Pod["spec"]>;

/** The objects carry every field the API returns; the snapshot types name only those the rules read. */
function api<T>(json: object): T {
    return json as T;
}

/** The pinned TF Serving base a pod runs with `modelDelivery: imageVolume`, by digest as the stack pins it. */
export const BASE_IMAGE = "tensorflow/serving:2.21.0@sha256:4f0a7c1e9b2d3c5a6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5";
/** The model-only artifact (`FROM scratch`) such a pod mounts by an `image` volume. */
export const ARTIFACT = "127.0.0.1:15000/tf-serving/half-plus-two-model@sha256:9c1d7e2f3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5";

export function podSpec(extra: { gpu?: number; tolerations?: Toleration[]; memoryLimit?: string; artifact?: string; pullSecret?: string } = {}): PodSpec {
    const gpu: Record<string, string> = extra.gpu ? { "nvidia.com/gpu": String(extra.gpu) } : {};
    // With an artifact, the pod ModelServer writes for imageVolume: the base image, the artifact mounted at the model's base path.
    const volume = extra.artifact === undefined ? {} : {
        volumes: [{ name: "model", image: { reference: extra.artifact, pullPolicy: "IfNotPresent" } }],
    };
    const mounts = extra.artifact === undefined ? {} : { volumeMounts: [{ name: "model", mountPath: `/models/${MODEL}`, readOnly: true }] };
    const configFile = extra.artifact === undefined ? [] : [`--model_config_file=/models/${MODEL}/models.config`];
    return api<PodSpec>({
        serviceAccountName: MODEL,
        automountServiceAccountToken: false,
        terminationGracePeriodSeconds: 30,
        securityContext: { runAsNonRoot: true, runAsUser: 10001, runAsGroup: 10001, fsGroup: 10001, seccompProfile: { type: "RuntimeDefault" } },
        nodeSelector: { "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux" },
        ...(extra.tolerations ? { tolerations: extra.tolerations } : {}),
        ...(extra.pullSecret ? { imagePullSecrets: [{ name: extra.pullSecret }] } : {}),
        ...volume,
        containers: [{
            name: "tf-serving",
            image: extra.artifact === undefined ? IMAGE : BASE_IMAGE,
            args: ["--port=8500", "--rest_api_port=8501", ...(configFile.length ? configFile : [`--model_name=${MODEL}`, `--model_base_path=/models/${MODEL}`])],
            ...mounts,
            ports: [{ name: "grpc", containerPort: 8500, protocol: "TCP" }, { name: "http", containerPort: 8501, protocol: "TCP" }],
            resources: {
                requests: { cpu: "1", memory: "384Mi", ...gpu },
                limits: { cpu: "1", memory: extra.memoryLimit ?? "512Mi", ...gpu },
            },
            startupProbe: httpProbe(5, 3, 14),
            readinessProbe: httpProbe(5, 3, 2),
            livenessProbe: httpProbe(10, 5, 6),
            securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ["ALL"] } },
        }],
    });
}

export function conditions(ready: boolean, since: string, scheduled = true): PodCondition[] {
    const status = ready ? "True" : "False";
    return scheduled
        ? [
            { type: "PodReadyToStartContainers", status: "True", lastTransitionTime: since },
            { type: "Initialized", status: "True", lastTransitionTime: since },
            { type: "Ready", status, lastTransitionTime: since, ...(ready ? {} : { reason: "ContainersNotReady", message: "containers with unready status: [tf-serving]" }) },
            { type: "ContainersReady", status, lastTransitionTime: since, ...(ready ? {} : { reason: "ContainersNotReady", message: "containers with unready status: [tf-serving]" }) },
            { type: "PodScheduled", status: "True", lastTransitionTime: since },
        ]
        : [];
}

export interface PodOptions {
    name?: string;
    model?: string;
    nodeName?: string;
    /** Seconds since the pod started. Default 600. */
    age?: number;
    spec?: PodSpec;
    phase?: string;
    ready?: boolean;
    conditions?: PodCondition[];
    containerStatus?: Partial<ContainerStatus>;
    annotations?: Record<string, string>;
    /** The time the ages count back from; default NOW. */
    now?: number;
}

export function pod(options: PodOptions = {}): Pod {
    const name = options.name ?? `${options.model ?? MODEL}-6b7c9d8f5-x2kqp`;
    const age = options.age ?? 600;
    const ready = options.ready ?? false;
    const scheduled = options.nodeName !== "";
    const nodeName = options.nodeName ?? "tfs-node-1";
    const at = (seconds: number) => ago(seconds, options.now);
    return api<Pod>({
        apiVersion: "v1",
        kind: "Pod",
        metadata: {
            name,
            namespace: NAMESPACE,
            uid: `uid-${name}`,
            creationTimestamp: at(age),
            labels: { ...labels(options.model), "pod-template-hash": "6b7c9d8f5" },
            annotations: { "prometheus.io/scrape": "true", "prometheus.io/port": "8501", ...options.annotations },
            ownerReferences: [{ kind: "ReplicaSet", name: `${options.model ?? MODEL}-6b7c9d8f5`, uid: "uid-rs" }],
        },
        spec: { ...(options.spec ?? podSpec()), ...(scheduled ? { nodeName } : {}) },
        status: {
            phase: options.phase ?? (scheduled ? "Running" : "Pending"),
            conditions: options.conditions ?? conditions(ready, at(age - 2), scheduled),
            ...(scheduled ? { hostIP: "10.0.0.5", podIP: "10.244.1.7", startTime: at(age) } : {}),
            ...(scheduled ? {
                containerStatuses: [{
                    name: "tf-serving",
                    image: options.spec?.containers?.[0]?.image ?? IMAGE,
                    imageID: options.spec?.containers?.[0]?.image ?? IMAGE,
                    containerID: "containerd://4f1c2e9a",
                    ready,
                    started: ready,
                    restartCount: 0,
                    state: { running: { startedAt: at(age - 2) } },
                    lastState: {},
                    ...options.containerStatus,
                }],
            } : {}),
            qosClass: "Burstable",
        },
    });
}

export interface EventOptions {
    reason: string;
    message: string;
    type?: "Normal" | "Warning";
    count?: number;
    /** Seconds before NOW it last happened. */
    last?: number;
    kind?: string;
    component?: string;
    /** The time `last` counts back from; default NOW. */
    now?: number;
    /**
     * What part of a pod it is about; default the server's container. `null`: the pod itself, as for the
     * pull of an image volume (its reference is the pod's, kuberuntime_manager.go getImageVolumes).
     */
    fieldPath?: string | null;
}

/** A core/v1 Event as the kubelet writes it (count and timestamps). */
export function event(about: { metadata?: { name?: string; uid?: string; namespace?: string } }, options: EventOptions): Event {
    const name = about.metadata?.name ?? "?";
    const last = options.last ?? 30;
    const count = options.count ?? 1;
    const at = (seconds: number) => ago(seconds, options.now);
    return api<Event>({
        apiVersion: "v1",
        kind: "Event",
        metadata: { name: `${name}.${options.reason.toLowerCase()}${last}`, namespace: NAMESPACE, creationTimestamp: at(last + count * 10) },
        involvedObject: {
            apiVersion: options.kind === "Deployment" || options.kind === "ReplicaSet" ? "apps/v1" : "v1",
            kind: options.kind ?? "Pod",
            name,
            namespace: NAMESPACE,
            uid: about.metadata?.uid,
            ...(options.kind ?? "Pod") === "Pod" && options.fieldPath !== null ? { fieldPath: options.fieldPath ?? "spec.containers{tf-serving}" } : {},
        },
        reason: options.reason,
        message: options.message,
        source: { component: options.component ?? "kubelet", host: "tfs-node-1" },
        firstTimestamp: at(last + count * 10),
        lastTimestamp: at(last),
        count,
        type: options.type ?? "Warning",
        reportingComponent: options.component ?? "kubelet",
        reportingInstance: "tfs-node-1",
    });
}

/** A FailedScheduling event as the scheduler writes it through events.k8s.io: eventTime and no count or timestamps. */
export function schedulingEvent(about: Pod, message: string, last = 20): Event {
    return api<Event>({
        apiVersion: "v1",
        kind: "Event",
        metadata: { name: `${about.metadata?.name}.failedscheduling`, namespace: NAMESPACE, creationTimestamp: ago(last) },
        involvedObject: { apiVersion: "v1", kind: "Pod", name: about.metadata?.name, namespace: NAMESPACE, uid: about.metadata?.uid },
        reason: "FailedScheduling",
        message,
        source: {},
        firstTimestamp: null,
        lastTimestamp: null,
        eventTime: new Date(NOW - last * 1000).toISOString().replace("Z", "000Z"),
        type: "Warning",
        action: "Scheduling",
        reportingComponent: "default-scheduler",
        reportingInstance: "default-scheduler-control-plane",
    });
}

export function service(options: { model?: string; age?: number; address?: string; loadBalancerClass?: string; type?: string } = {}): Service {
    const model = options.model ?? MODEL;
    return api<Service>({
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: model, namespace: NAMESPACE, uid: `uid-svc-${model}`, creationTimestamp: ago(options.age ?? 900), labels: labels(model) },
        spec: {
            type: options.type ?? "LoadBalancer",
            selector: labels(model),
            ports: [
                { name: "grpc", port: 8500, targetPort: "grpc", protocol: "TCP", appProtocol: "kubernetes.io/h2c" },
                { name: "http", port: 8501, targetPort: "http", protocol: "TCP", appProtocol: "http" },
            ],
            ...(options.loadBalancerClass ? { loadBalancerClass: options.loadBalancerClass } : {}),
            loadBalancerSourceRanges: ["10.0.0.0/8"],
        },
        status: { loadBalancer: options.address ? { ingress: [{ ip: options.address, ipMode: "VIP" }] } : {} },
    });
}

export function deployment(options: { model?: string; replicas?: number; ready?: number; conditions?: DeploymentCondition[]; annotations?: Record<string, string> } = {}): Deployment {
    const model = options.model ?? MODEL;
    const replicas = options.replicas ?? 2;
    const ready = options.ready ?? replicas;
    return api<Deployment>({
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: model, namespace: NAMESPACE, uid: `uid-deploy-${model}`, creationTimestamp: ago(900), labels: labels(model) },
        spec: {
            replicas,
            selector: { matchLabels: labels(model) },
            template: { metadata: { labels: labels(model), annotations: options.annotations ?? {} }, spec: podSpec() },
        },
        status: {
            replicas,
            updatedReplicas: replicas,
            readyReplicas: ready,
            availableReplicas: ready,
            ...(ready < replicas ? { unavailableReplicas: replicas - ready } : {}),
            conditions: options.conditions ?? [
                { type: "Available", status: ready >= replicas ? "True" : "False", reason: ready >= replicas ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable", message: "Deployment has minimum availability.", lastUpdateTime: ago(800), lastTransitionTime: ago(800) },
                { type: "Progressing", status: "True", reason: "NewReplicaSetAvailable", message: `ReplicaSet "${model}-6b7c9d8f5" has successfully progressed.`, lastUpdateTime: ago(800), lastTransitionTime: ago(900) },
            ],
        },
    });
}

/** A node as the API returns it: amd64 Linux, what it can allocate, and (for a GPU node) the GPU taint and GPUs. */
export function node(name: string, options: { cpu: string; memory: string; gpu?: number; runtime?: string }): Node {
    return api<Node>({
        apiVersion: "v1",
        kind: "Node",
        metadata: { name, uid: `uid-node-${name}`, labels: { "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux", "kubernetes.io/hostname": name } },
        spec: options.gpu ? { taints: [{ key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" }] } : {},
        status: {
            allocatable: { cpu: options.cpu, memory: options.memory, pods: "110", ...(options.gpu ? { "nvidia.com/gpu": String(options.gpu) } : {}) },
            capacity: { cpu: options.cpu, memory: options.memory, pods: "110" },
            nodeInfo: { containerRuntimeVersion: options.runtime ?? "containerd://2.2.1", kubeletVersion: "v1.35.4", operatingSystem: "linux", architecture: "amd64" },
        },
    });
}

export function snapshot(parts: Partial<ClusterSnapshot>): ClusterSnapshot {
    return { namespace: NAMESPACE, pods: [], events: [], services: [], deployments: [], replicaSets: [], logs: {}, previousLogs: {}, ...parts };
}

/** TF Serving's log lines (tensorflow_model_server 2.x), as `kubectl logs` prints them. */
export const TF_LOGS = {
    start: [
        "2025-06-01 11:50:01.101538: I tensorflow_serving/model_servers/server.cc:77] Building single TensorFlow model file config:  model_name: half-plus-two model_base_path: /models/half-plus-two",
        "2025-06-01 11:50:01.101871: I tensorflow_serving/model_servers/server_core.cc:474] Adding/updating models.",
        "2025-06-01 11:50:01.101887: I tensorflow_serving/model_servers/server_core.cc:603]  (Re-)adding model: half-plus-two",
    ],
    noVersions: "2025-06-01 11:50:02.203349: W tensorflow_serving/sources/storage_path/file_system_storage_path_source.cc:268] No versions of servable half-plus-two found under base path /models/half-plus-two. Did you forget to name your leaf directory as a number (eg. '/1/')?",
    noBasePath: "2025-06-01 11:50:02.203349: E tensorflow_serving/sources/storage_path/file_system_storage_path_source.cc:385] FileSystemStoragePathSource encountered a filesystem access error: Could not find base path /models/half-plus-two for servable half-plus-two with error NOT_FOUND: /models/half-plus-two not found",
    notFound: "2025-06-01 11:50:02.512207: E tensorflow_serving/util/retrier.cc:40] Loading servable: {name: half-plus-two version: 123} failed: NOT_FOUND: Could not find SavedModel .pb or .pbtxt at supplied export directory path: /models/half-plus-two/123. Check that the directory exists and that you have the right permissions for accessing it.",
    permissionDenied: "2025-06-01 11:50:02.512207: E tensorflow_serving/util/retrier.cc:40] Loading servable: {name: half-plus-two version: 123} failed: PERMISSION_DENIED: /models/half-plus-two/123/saved_model.pb; Permission denied",
    loaded: "2025-06-01 11:50:03.007019: I tensorflow_serving/core/loader_harness.cc:95] Successfully loaded servable version {name: half-plus-two version: 123}",
};
