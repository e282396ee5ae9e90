/**
 * What `tfs doctor` looks at: the model server's objects as the Kubernetes API returns them (JSON,
 * as `kubectl get -o json` prints them), plus the tail of each container's log and what the
 * model's endpoint answered.
 *
 * The types name only the fields the rules read; everything is optional because the API omits
 * empty fields. Timestamps are RFC 3339 strings.
 */
import { INSTANCE_LABEL, TRACK_LABEL } from "../../contract/labels";
import type { CredentialOrigin, Refusal } from "../endpointCredential";

export interface ObjectMeta {
    name?: string;
    namespace?: string;
    uid?: string;
    creationTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { kind?: string; name?: string; uid?: string }[];
}

export interface Probe {
    httpGet?: { path?: string; port?: number | string };
    grpc?: { port?: number; service?: string };
    tcpSocket?: { port?: number | string };
    exec?: { command?: string[] };
    initialDelaySeconds?: number;
    periodSeconds?: number;
    timeoutSeconds?: number;
    failureThreshold?: number;
}

export interface Container {
    name: string;
    image?: string;
    command?: string[];
    args?: string[];
    resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
    startupProbe?: Probe;
    readinessProbe?: Probe;
    livenessProbe?: Probe;
    securityContext?: { runAsUser?: number; runAsGroup?: number; runAsNonRoot?: boolean };
    volumeMounts?: { name: string; mountPath?: string; readOnly?: boolean; subPath?: string }[];
}

/** A pod's volume; only an `image` volume (KEP-4639: an OCI image or artifact mounted read-only) is read. */
export interface Volume {
    name: string;
    image?: { reference?: string; pullPolicy?: string };
}

export interface Toleration {
    key?: string;
    operator?: string;
    value?: string;
    effect?: string;
}

export interface ContainerStateWaiting { reason?: string; message?: string }
export interface ContainerStateRunning { startedAt?: string }
export interface ContainerStateTerminated {
    exitCode?: number;
    signal?: number;
    reason?: string;
    message?: string;
    startedAt?: string;
    finishedAt?: string;
}
export interface ContainerState {
    waiting?: ContainerStateWaiting;
    running?: ContainerStateRunning;
    terminated?: ContainerStateTerminated;
}

export interface ContainerStatus {
    name: string;
    image?: string;
    ready?: boolean;
    started?: boolean;
    restartCount?: number;
    state?: ContainerState;
    lastState?: ContainerState;
}

export interface PodCondition {
    type: string;
    status: string;
    reason?: string;
    message?: string;
    lastTransitionTime?: string;
}

export interface Pod {
    metadata?: ObjectMeta;
    spec?: {
        nodeName?: string;
        nodeSelector?: Record<string, string>;
        tolerations?: Toleration[];
        containers?: Container[];
        volumes?: Volume[];
        imagePullSecrets?: { name?: string }[];
        securityContext?: { runAsUser?: number; runAsGroup?: number; fsGroup?: number; runAsNonRoot?: boolean };
    };
    status?: {
        phase?: string;
        reason?: string;
        message?: string;
        startTime?: string;
        conditions?: PodCondition[];
        containerStatuses?: ContainerStatus[];
    };
}

export interface ObjectReference {
    kind?: string;
    name?: string;
    namespace?: string;
    uid?: string;
    fieldPath?: string;
}

/** A core/v1 Event. Events written through events.k8s.io (the scheduler's) carry `eventTime`/`series` instead of timestamps and `count`. */
export interface Event {
    metadata?: ObjectMeta;
    involvedObject?: ObjectReference;
    reason?: string;
    message?: string;
    type?: string;
    count?: number;
    firstTimestamp?: string | null;
    lastTimestamp?: string | null;
    eventTime?: string | null;
    series?: { count?: number; lastObservedTime?: string };
    source?: { component?: string; host?: string };
    reportingComponent?: string;
}

export interface Service {
    metadata?: ObjectMeta;
    spec?: {
        type?: string;
        clusterIP?: string;
        loadBalancerClass?: string;
        loadBalancerSourceRanges?: string[];
        ports?: { name?: string; port?: number; nodePort?: number }[];
    };
    status?: { loadBalancer?: { ingress?: { ip?: string; hostname?: string }[] } };
}

export interface DeploymentCondition {
    type: string;
    status: string;
    reason?: string;
    message?: string;
    lastUpdateTime?: string;
    lastTransitionTime?: string;
}

export interface Deployment {
    metadata?: ObjectMeta;
    spec?: {
        replicas?: number;
        template?: { metadata?: ObjectMeta };
    };
    status?: {
        replicas?: number;
        readyReplicas?: number;
        availableReplicas?: number;
        updatedReplicas?: number;
        unavailableReplicas?: number;
        conditions?: DeploymentCondition[];
    };
}

export interface ReplicaSet {
    metadata?: ObjectMeta;
}

/** What the scheduler weighs of a node: its taints and what it can allocate to pods. */
export interface Node {
    metadata?: ObjectMeta;
    spec?: { taints?: { key?: string; value?: string; effect?: string }[]; unschedulable?: boolean };
    status?: {
        allocatable?: Record<string, string>;
        capacity?: Record<string, string>;
        nodeInfo?: { containerRuntimeVersion?: string; kubeletVersion?: string };
    };
}

export interface HorizontalPodAutoscalerCondition { type?: string; status?: string; reason?: string; message?: string; lastTransitionTime?: string }

/** An autoscaling/v2 HorizontalPodAutoscaler, as far as the rules read it. */
export interface HorizontalPodAutoscaler {
    metadata?: ObjectMeta;
    spec?: { minReplicas?: number; maxReplicas?: number; scaleTargetRef?: { kind?: string; name?: string } };
    status?: { currentReplicas?: number; desiredReplicas?: number; conditions?: HorizontalPodAutoscalerCondition[] };
}

/** The model server's objects in one namespace, and the tail of its containers' logs. */
export interface ClusterSnapshot {
    namespace: string;
    pods: Pod[];
    /** Events of the namespace (the rules pick those about the objects above). */
    events: Event[];
    services: Service[];
    deployments: Deployment[];
    replicaSets: ReplicaSet[];
    /** The models' HorizontalPodAutoscalers; absent when they could not be listed (no permission, an old snapshot). */
    hpas?: HorizontalPodAutoscaler[];
    /** Last lines of each container's current log, keyed `POD/CONTAINER`. */
    logs: Record<string, string>;
    /** Last lines of the previous run of restarted containers, keyed `POD/CONTAINER`. */
    previousLogs: Record<string, string>;
    /**
     * The cluster's nodes, read only when a pod is unscheduled or an image volume's pod is not Ready, and
     * absent when listing them is not allowed.
     */
    nodes?: Node[];
    /** What each model's endpoint answered a model status call; absent when none was asked (no address known). */
    endpoints?: EndpointAnswer[];
}

/** One model status call to a model's endpoint, from outside the cluster, as a client makes it. */
export interface EndpointAnswer {
    model: string;
    transport: "REST" | "gRPC";
    /** What was called: `GET http://ADDRESS:8501/v1/models/NAME`, `GetModelStatus grpc://ADDRESS:8500`. */
    call: string;
    /** What came back, in one line: "version 123 AVAILABLE", "HTTP 401", "no answer: connection refused". */
    answer: string;
    /** Set when the endpoint refused the caller (HTTP 401/403, UNAUTHENTICATED/PERMISSION_DENIED). */
    refusal?: Refusal;
    /** The scheme of the refusal's WWW-Authenticate challenge (REST only). */
    challenge?: string;
    /** The credential sent with the call (its kind and source, never its value); absent: none was sent. */
    credential?: CredentialOrigin;
}

export function logKey(podName: string, container: string): string {
    return `${podName}/${container}`;
}

export function isPodReady(pod: Pod): boolean {
    return pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
}

export function modelOf(object: { metadata?: ObjectMeta }): string | undefined {
    return object.metadata?.labels?.[INSTANCE_LABEL];
}

/** True for a canary's objects (`tf-serving.dev/track: canary`): their instance label is `<model>-canary`. */
export function isCanary(object: { metadata?: ObjectMeta }): boolean {
    return object.metadata?.labels?.[TRACK_LABEL] === "canary";
}

/** The model an object serves, a canary's included (its instance label less `-canary`). */
export function servedModelOf(object: { metadata?: ObjectMeta }): string | undefined {
    const instance = modelOf(object);
    return instance !== undefined && isCanary(object) ? instance.replace(/-canary$/, "") : instance;
}

/** The time an event last happened, whichever API wrote it. */
export function eventTime(event: Event): string | undefined {
    return event.lastTimestamp ?? event.series?.lastObservedTime ?? event.eventTime ?? event.firstTimestamp
        ?? event.metadata?.creationTimestamp ?? undefined;
}

export function eventCount(event: Event): number {
    return event.count ?? event.series?.count ?? 1;
}

/** Events about one object, newest first. */
export function eventsFor(events: Event[], kind: string, meta: ObjectMeta | undefined): Event[] {
    return events
        .filter((e) => e.involvedObject?.kind === kind && e.involvedObject.name === meta?.name
            && (e.involvedObject.uid === undefined || meta?.uid === undefined || e.involvedObject.uid === meta.uid))
        .sort((a, b) => timeMs(eventTime(b)) - timeMs(eventTime(a)));
}

/** Milliseconds since the epoch of an RFC 3339 time; 0 when absent or unreadable. */
export function timeMs(time: string | null | undefined): number {
    const ms = Date.parse(time ?? "");
    return Number.isNaN(ms) ? 0 : ms;
}
