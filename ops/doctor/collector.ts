/**
 * Reads the model server's objects, the namespace's events and the tail of each container's log
 * from a cluster with `@kubernetes/client-node`, into the plain snapshot the rules read.
 *
 * Bounded: each request has a time limit, logs are the last `logLines` lines (and at most
 * `LOG_BYTES`), events at most `maxEvents`. Logs are the kubelet's, read through the API server's pod
 * log endpoint.
 */
import type * as K8s from "@kubernetes/client-node";
import { ClusterInfo } from "./report";
import { MODEL_SERVER_SELECTOR } from "../../contract/labels";
import { ClusterSnapshot, ContainerStatus, HorizontalPodAutoscaler, Node, Pod, isPodReady, logKey } from "./snapshot";
import { hasImageVolume } from "./imageVolumeRules";
import { TargetError, apiConfiguration, loadKubeConfig } from "../../contract/kubeAccess";

export { NO_KUBECONFIG, TargetError, findAmbientKubeconfig, kubeconfigProblem } from "../../contract/kubeAccess";
export type { AmbientKubeconfig, KubeconfigShape } from "../../contract/kubeAccess";

/** Where to look: a kubeconfig (file, text or the ambient one), its context, and the namespace. */
export interface ClusterTarget {
    /** Kubeconfig file; neither this nor `kubeconfigText` means the ambient one (KUBECONFIG or ~/.kube/config). */
    kubeconfigFile?: string;
    /** Kubeconfig contents, e.g. a stack's `kubeconfig` output. */
    kubeconfigText?: string;
    /** Kubeconfig context; default its current context. */
    context?: string;
    namespace: string;
}

interface LogRequest {
    namespace: string;
    pod: string;
    container: string;
    /** The run before the current one (`kubectl logs --previous`). */
    previous: boolean;
    tailLines: number;
}

/** Returns the last lines of one container's log. */
type LogSource = (request: LogRequest) => Promise<string>;

export interface CollectOptions {
    /** Lines of each container log to read. Default 100. */
    logLines?: number;
    /** Limit for each API request, in milliseconds. Default 15000. */
    requestTimeoutMs?: number;
    /** Events of the namespace to read at most. Default 1000. */
    maxEvents?: number;
}

/** The API server could not be reached, or refused us: nothing can be diagnosed. */
export class ClusterUnreachableError extends Error {
    constructor(message: string) {
        super(message);
        this.name = "ClusterUnreachableError";
    }
}


export interface Collected {
    snapshot: ClusterSnapshot;
    cluster: ClusterInfo;
    /** Logs that could not be read, each with the reason. */
    unreadLogs: string[];
}

const LOG_BYTES = 256 * 1024;

/** Loaded on first use: the client is large and only `tfs doctor` needs it. */
function client(): Promise<typeof K8s> {
    return import("@kubernetes/client-node");
}

export async function collectSnapshot(target: ClusterTarget, options: CollectOptions = {}): Promise<Collected> {
    const k8s = await client();
    const kc = loadKubeConfig(k8s, target);
    const cluster = kc.getCurrentCluster();
    if (!cluster) {
        throw new TargetError(`kubeconfig context "${kc.getCurrentContext()}" names no cluster; \`kubectl config get-contexts\` lists the contexts`);
    }
    const info: ClusterInfo = { server: cluster.server, context: kc.getCurrentContext() };
    const config = apiConfiguration(k8s, kc, cluster.server, options.requestTimeoutMs ?? 15_000);
    const core = new k8s.CoreV1Api(config);
    const apps = new k8s.AppsV1Api(config);
    const autoscaling = new k8s.AutoscalingV2Api(config);
    const { namespace } = target;
    const call = <T>(what: string, request: () => Promise<T>) => request().catch((err) => {
        throw explain(k8s, err, what, info, namespace);
    });

    // An address that answers every request with a web page "succeeds": each answer must be the API's.
    const notTheApi = (what: string, answer: unknown) => new ClusterUnreachableError(`${info.server}${info.context ? ` (context ${info.context})` : ""} `
        + `answered, but not as a Kubernetes API server (to ${what} it sent ${describeAnswer(answer)}): check the kubeconfig's server address `
        + "(`kubectl cluster-info` shows the API server's)");
    const list = async <T extends { items?: unknown }>(what: string, request: () => Promise<T>): Promise<T> => {
        const answer = await call(what, request);
        if (!Array.isArray((answer as { items?: unknown } | undefined)?.items)) {
            throw notTheApi(what, answer);
        }
        return answer;
    };
    await call(`read namespace ${namespace}`, async () => {
        const answer = await core.readNamespace({ name: namespace });
        if (answer?.metadata?.name !== namespace) {
            throw notTheApi(`read namespace ${namespace}`, answer);
        }
        return answer;
    }).catch((err) => {
        // A user allowed only in their namespace may not read it; the lists below still work.
        if (!(err instanceof ClusterUnreachableError && /HTTP 403/.test(err.message))) {
            throw err;
        }
    });
    const labelSelector = MODEL_SERVER_SELECTOR;
    const [pods, services, deployments, replicaSets, events, hpas] = await Promise.all([
        list("list pods", () => core.listNamespacedPod({ namespace, labelSelector })),
        list("list services", () => core.listNamespacedService({ namespace, labelSelector })),
        list("list deployments", () => apps.listNamespacedDeployment({ namespace, labelSelector })),
        list("list replicasets", () => apps.listNamespacedReplicaSet({ namespace, labelSelector })),
        list("list events", () => core.listNamespacedEvent({ namespace, limit: options.maxEvents ?? 1000 })),
        // A user who may not read autoscalers still gets the rest: the autoscaler rule then has nothing to read.
        autoscaling.listNamespacedHorizontalPodAutoscaler({ namespace, labelSelector }).then((answer) => (Array.isArray(answer?.items) ? answer.items : undefined), () => undefined),
    ]);
    const podsJson = toJson<Pod[]>(pods.items);
    // Nodes are cluster-scoped: a user allowed only in the namespace cannot list them, and the rules do without.
    // Read for an unscheduled pod (what the scheduler weighed) and for an image volume's pod not Ready (the node's runtime).
    const nodes = podsJson.some((p) => !p.spec?.nodeName || (hasImageVolume(p) && !isPodReady(p)))
        ? await core.listNode().then((list) => toJson<Node[]>(list.items), () => undefined)
        : undefined;
    const logs = await readLogs(podsJson, namespace, apiLogSource(core), options.logLines ?? 100);
    return {
        snapshot: {
            namespace,
            pods: podsJson,
            services: toJson(services.items),
            deployments: toJson(deployments.items),
            replicaSets: toJson(replicaSets.items),
            ...(hpas === undefined ? {} : { hpas: toJson<HorizontalPodAutoscaler[]>(hpas) }),
            events: toJson(events.items),
            logs: logs.current,
            previousLogs: logs.previous,
            ...(nodes === undefined ? {} : { nodes }),
        },
        cluster: info,
        unreadLogs: logs.unread,
    };
}


/**
 * The API's objects as the API wrote them: plain JSON, timestamps as RFC 3339 strings. client-node
 * reads times into Date objects; written back they gain milliseconds the API never sent.
 */
function toJson<T>(objects: unknown): T {
    return JSON.parse(JSON.stringify(objects, (_key, value) =>
        (typeof value === "string" && WHOLE_SECOND.test(value) ? `${value.slice(0, -5)}Z` : value))) as T;
}

const WHOLE_SECOND = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/;

function apiLogSource(core: K8s.CoreV1Api): LogSource {
    return ({ namespace, pod, container, previous, tailLines }) =>
        core.readNamespacedPodLog({ name: pod, namespace, container, previous, tailLines, limitBytes: LOG_BYTES });
}

/** A container has a log once it has run: running now, terminated, or waiting after a crash. */
function hasRun(cs: ContainerStatus): boolean {
    return cs.state?.running !== undefined || cs.state?.terminated !== undefined || cs.lastState?.terminated !== undefined;
}

async function readLogs(pods: Pod[], namespace: string, source: LogSource, tailLines: number) {
    const current: Record<string, string> = {};
    const previous: Record<string, string> = {};
    const unread: string[] = [];
    const reads = pods.flatMap((pod) => (pod.status?.containerStatuses ?? []).filter(hasRun).flatMap((cs) => {
        const podName = pod.metadata?.name ?? "";
        const read = (prev: boolean, into: Record<string, string>) => source({ namespace, pod: podName, container: cs.name, previous: prev, tailLines })
            .then((text) => { into[logKey(podName, cs.name)] = text; })
            .catch((err) => { unread.push(`${prev ? "previous " : ""}log of ${podName}/${cs.name}: ${firstLine(err)}`); });
        // A crash-looping container's current log is its last run; a restarted running one keeps the crash in the previous run.
        return (cs.restartCount ?? 0) > 0 && cs.state?.running ? [read(false, current), read(true, previous)] : [read(false, current)];
    }));
    await Promise.all(reads);
    return { current, previous, unread: unread.sort() };
}

/** The body of a failed API call is the API server's Status object (`kind: Status`), as JSON or parsed. */
function isStatusBody(body: unknown): boolean {
    let parsed = body;
    if (typeof body === "string") {
        try {
            parsed = JSON.parse(body);
        } catch {
            return false;
        }
    }
    return (parsed as { kind?: unknown } | null)?.kind === "Status";
}

/** The API's own words for a failure (the `message` of its Status body), else the error's first line. */
function firstLine(err: unknown): string {
    const e = err as { body?: unknown; message?: string };
    let body = e.body;
    if (typeof body === "string") {
        try {
            body = JSON.parse(body);
        } catch {
            // Not a Status object: fall back to the error's own message.
        }
    }
    const status = (body as { message?: unknown } | undefined)?.message;
    return typeof status === "string" ? status : String(e.message ?? err).split("\n")[0];
}

/** A few words on what came back instead of an API object. */
function describeAnswer(answer: unknown): string {
    if (answer === undefined || answer === null || answer === "") {
        return "nothing usable";
    }
    const text = typeof answer === "string" ? answer : JSON.stringify(answer) ?? String(answer);
    return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}...` : text);
}

function explain(k8s: typeof K8s, err: unknown, what: string, cluster: ClusterInfo, namespace: string): Error {
    if (err instanceof ClusterUnreachableError) {
        return err;
    }
    const where = `${cluster.server}${cluster.context ? ` (context ${cluster.context})` : ""}`;
    if (err instanceof k8s.ApiException) {
        if (!isStatusBody(err.body)) {
            // The API server answers every failure with a Status object; a web page or proxy's error is someone else.
            return new ClusterUnreachableError(`${where} answered, but not as a Kubernetes API server (to ${what} it sent HTTP ${err.code}, `
                + `${describeAnswer(err.body)}): check the kubeconfig's server address (\`kubectl cluster-info\` shows the API server's)`);
        }
        if (err.code === 404 && what.startsWith("read namespace")) {
            return new TargetError(`namespace "${namespace}" does not exist on ${where}; \`kubectl get namespaces\` lists them`);
        }
        return new ClusterUnreachableError(`cannot ${what} on ${where}: HTTP ${err.code}: ${firstLine(err)}`
            + (err.code === 401 || err.code === 403 ? " (check the kubeconfig's credentials and their rights in the namespace)" : ""));
    }
    const e = err as { name?: string; code?: string; message?: string };
    const reason = e.name === "AbortError" || e.name === "TimeoutError" ? "no answer in time"
        : e.code === "ECONNREFUSED" ? "ECONNREFUSED: nothing listens there (is the cluster running, and is this its address?)"
            : e.code === "ECONNRESET" ? "ECONNRESET: something there accepted the connection and closed it (is this the API server's address and port?)"
                : e.code === "EPROTO" || e.code === "ERR_SSL_WRONG_VERSION_NUMBER"
                    ? `${e.code}: the server there does not speak TLS; if the API server is plain HTTP write http:// in the kubeconfig's server, otherwise check its address and port`
                    : e.code?.startsWith("HPE_") ? `${e.code}: the server there does not answer in HTTP; check the kubeconfig's server address and port`
                        : e.code !== undefined ? `${e.code}: ${firstLine(err)}` : firstLine(err);
    return new ClusterUnreachableError(`cannot reach the Kubernetes API at ${where} to ${what}: ${reason}`);
}
