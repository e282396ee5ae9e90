/**
 * The canary release's work against the cluster, run by the `CanaryRelease` dynamic provider
 * (canaryRelease.ts) inside `pulumi up`:
 *
 * - `release`, before the serving Deployment takes a new image: the canary Deployment (the new
 *   image, its own pods) is created and waited on until every pod is Ready (the model loaded and
 *   its warmup requests replayed), then each step moves the routes' weights, holds, and reads the
 *   canary pods' own TF Serving metrics through the API server's pod proxy (serving/canary.ts
 *   judges them). A failed step puts all traffic back on the serving version at once, deletes the
 *   canary, records a `CanaryRolledBack` event on the serving Deployment (`tfs doctor` reads it) and
 *   throws, so the engine never updates the serving Deployment. After the last step the canary
 *   keeps its share while the serving Deployment rolls onto the image the canary proved.
 * - `finish`, after the serving Deployment has rolled: the routes back to it alone, the canary deleted.
 *
 * Whatever a release leaves behind when it is killed (weights moved, a canary Deployment) is found
 * by `leftovers`, which the provider's diff calls, so the next preview shows the cleanup.
 */
import type * as K8s from "@kubernetes/client-node";
import { apiConfiguration, loadGivenKubeConfig } from "../../contract/kubeAccess";
import { CANARY_ROLLED_BACK } from "../../contract/labels";
import { CaseResult, compareOutputs, parseGolden, restOutputs } from "../../contract/golden";
import { goldenFailure, goldenSummary } from "../../serving/goldenCheck";
import { ModelMetadata, parseModelMetadata } from "../../contract/modelMetadata";
import { METRICS_PATH } from "../../serving/flags";
import { REST_PORT } from "../../serving/images";
import { servedRelease } from "../../serving/modelDelivery";
import {
    CANARY_ROUTED_SECONDS, CallReading, CanaryGates, GateVerdict, InferenceCounters, RouteRule, canaryReplicasFor, canaryShare, countersSince, drainQuietMs, drained,
    gateFigures, gateVerdict, inferenceCounters, retryOnConflict, sumCounters, weightedRules,
} from "../../serving/canary";

export const CANARY_FIELD_MANAGER = "tf-serving-canary";

export interface ReleaseInputs {
    /** Kubeconfig contents or file; empty: the ambient one. */
    kubeconfig?: string;
    context?: string;
    namespace: string;
    model: string;
    /**
     * What the canary proves: the serving Deployment's next image, and with `imageVolume` the model
     * artifact beside it (`servedRelease`, the same string read back from the serving Deployment).
     */
    image: string;
    /** The serving Deployment and Service (the model's name). */
    serving: string;
    /** The canary's Deployment and Service. */
    canary: string;
    /** The canary Deployment as it is created (apiVersion, kind, metadata, spec). */
    canaryDeployment: Record<string, unknown>;
    routes: { kind: "HTTPRoute" | "GRPCRoute"; name: string }[];
    steps: number[];
    holdSeconds: number;
    gates: CanaryGates;
    /** Seconds the canary's pods may take to be Ready. */
    readySeconds: number;
    /**
     * Seconds the canary's counters must stay still after its weight went to 0 before its pods are
     * removed (the least: more when it answered few calls a second; see `drainQuietMs`).
     */
    settleSeconds: number;
    /**
     * The model's golden file (contract/golden.ts): its name for messages and its text, parsed again
     * here (the provider's state carries plain values). Checked on a canary pod before any weight moves.
     */
    golden?: { file: string; text: string };
}

/** What a release did, for its outputs: one line per step and the outcome. */
export interface ReleaseReport {
    /** `skipped` when the serving Deployment already runs the image (or does not exist yet). */
    outcome: "passed" | "skipped";
    image: string;
    lines: string[];
}

/** A release that failed: its message is the update's error. */
export class CanaryFailed extends Error {
    constructor(message: string, readonly verdict?: GateVerdict, readonly fix = "fix the model, or raise the gate in canary.gates") {
        super(message);
        this.name = "CanaryFailed";
    }
}

/** The API clients a release uses (a test passes its own). */
export interface Clients {
    core: K8s.CoreV1Api;
    apps: K8s.AppsV1Api;
    custom: K8s.CustomObjectsApi;
    /** POSTs `body` to `path` on a pod's REST port through the API server's pod proxy; the answer's status and text. */
    proxyPost(namespace: string, pod: string, path: string, body: unknown): Promise<{ status: number; text: string }>;
}

async function connect(inputs: ReleaseInputs): Promise<Clients> {
    const k8s = await import("@kubernetes/client-node");
    const kc = loadGivenKubeConfig(k8s, inputs.kubeconfig, inputs.context);
    const cluster = kc.getCurrentCluster();
    if (!cluster) {
        throw new CanaryFailed(`kubeconfig context "${kc.getCurrentContext()}" names no cluster`);
    }
    const config = apiConfiguration(k8s, kc, cluster.server, 15_000);
    const core = new k8s.CoreV1Api(config);
    return {
        core, apps: new k8s.AppsV1Api(config), custom: new k8s.CustomObjectsApi(config),
        async proxyPost(namespace, pod, path, body) {
            // The generated call sends no body: a middleware of this call alone sets it.
            const withBody = {
                pre: (ctx: K8s.RequestContext) => {
                    ctx.setHeaderParam("Content-Type", "application/json");
                    ctx.setBody(JSON.stringify(body));
                    return new k8s.Observable(Promise.resolve(ctx));
                },
                post: (response: K8s.ResponseContext) => new k8s.Observable(Promise.resolve(response)),
            };
            try {
                const text = await core.connectPostNamespacedPodProxyWithPath({ name: `${pod}:${REST_PORT}`, namespace, path },
                    { middleware: [withBody], middlewareMergeStrategy: "append" });
                return { status: 200, text: typeof text === "string" ? text : JSON.stringify(text) };
            } catch (err) {
                const e = err as { code?: number; body?: unknown };
                if (typeof e.code === "number" && e.code >= 400) {
                    return { status: e.code, text: typeof e.body === "string" ? e.body : JSON.stringify(e.body) };
                }
                throw err;
            }
        },
    };
}

const GROUP = "gateway.networking.k8s.io";
const PLURAL = { HTTPRoute: "httproutes", GRPCRoute: "grpcroutes" } as const;

function isNotFound(err: unknown): boolean {
    return (err as { code?: number }).code === 404;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Seconds the first step waits for the canary's first routed call before its hold starts anyway, and how often it looks. */
const ROUTED_SECONDS = CANARY_ROUTED_SECONDS;
const GOLDEN_DOCS = "docs/guides/model-contract.md#the-canary-checks-them-first";
const ROUTED_POLL_MS = 500;
/** The longest a drain waits for the canary's counters to stay still, the longest quiet spell it asks for, and how often it reads them. */
const DRAIN_SECONDS = 60;
const DRAIN_QUIET_CAP_MS = 20_000;
const DRAIN_POLL_MS = 500;

/** Stops a release when the engine that started it is gone (a killed `pulumi up`) or the provider is told to stop. */
class Abort {
    private readonly parent = process.ppid;
    private signalled?: string;
    private readonly handlers = (["SIGINT", "SIGTERM"] as const).map((signal) => {
        const handler = () => { this.signalled = signal; };
        process.once(signal, handler);
        return [signal, handler] as const;
    });

    /** Gives the signals back their default action (the process exits on them again). */
    dispose(): void {
        this.handlers.forEach(([signal, handler]) => process.off(signal, handler));
    }

    reason(): string | undefined {
        if (this.signalled) {
            return `the provider received ${this.signalled}`;
        }
        return process.ppid !== this.parent ? "the Pulumi engine that ran this update is gone" : undefined;
    }

    /** Sleeps `ms`, waking each half second to check for an abort. */
    async wait(ms: number): Promise<void> {
        const until = Date.now() + ms;
        while (Date.now() < until) {
            const why = this.reason();
            if (why) {
                throw new CanaryFailed(`canary stopped: ${why}; traffic is back on the serving version`);
            }
            await sleep(Math.min(500, until - Date.now()));
        }
    }
}

class Release {
    constructor(private readonly c: Clients, private readonly i: ReleaseInputs) {}

    private async route(kind: "HTTPRoute" | "GRPCRoute", name: string): Promise<{ spec: { rules?: RouteRule[] }; [key: string]: unknown }> {
        return await this.c.custom.getNamespacedCustomObject({ group: GROUP, version: "v1", namespace: this.i.namespace, plural: PLURAL[kind], name });
    }

    /**
     * Sets the canary's percent on every route: a replace with the read resourceVersion, so a change
     * made in between (another writer) fails it with a conflict, and then it reads and writes again.
     */
    async setWeight(percent: number): Promise<void> {
        for (const { kind, name } of this.i.routes) {
            await retryOnConflict(async () => {
                const route = await this.route(kind, name);
                const rules = route.spec.rules ?? [];
                if (canaryShare(rules, this.i.canary) === percent) {
                    return;
                }
                const body = { ...route, spec: { ...route.spec, rules: weightedRules(rules, { serving: this.i.serving, canary: this.i.canary }, percent) } };
                await this.c.custom.replaceNamespacedCustomObject({
                    group: GROUP, version: "v1", namespace: this.i.namespace, plural: PLURAL[kind], name, body, fieldManager: CANARY_FIELD_MANAGER,
                });
            });
        }
    }

    /** The canary's percent on each route, and whether its Deployment exists. */
    async state(): Promise<{ weights: number[]; deployment: boolean }> {
        const weights = await Promise.all(this.i.routes.map(async ({ kind, name }) => {
            try {
                return canaryShare((await this.route(kind, name)).spec.rules ?? [], this.i.canary);
            } catch (err) {
                if (isNotFound(err)) {
                    return 0;
                }
                throw err;
            }
        }));
        return { weights, deployment: (await this.canaryDeployment()) !== undefined };
    }

    private async canaryDeployment(): Promise<K8s.V1Deployment | undefined> {
        try {
            return await this.c.apps.readNamespacedDeployment({ name: this.i.canary, namespace: this.i.namespace });
        } catch (err) {
            if (isNotFound(err)) {
                return undefined;
            }
            throw err;
        }
    }

    /** The serving Deployment's image and pod count (the HPA's, when one scales it), or undefined when it does not exist. */
    async serving(): Promise<{ image?: string; replicas: number } | undefined> {
        try {
            const d = await this.c.apps.readNamespacedDeployment({ name: this.i.serving, namespace: this.i.namespace });
            const spec = d.spec?.template.spec;
            return { image: spec === undefined ? undefined : servedRelease(spec), replicas: d.spec?.replicas ?? 1 };
        } catch (err) {
            if (isNotFound(err)) {
                return undefined;
            }
            throw err;
        }
    }

    /**
     * Traffic back on the serving version, then, once the canary's pods are drained (their counters
     * stopped rising: the Gateway sends them nothing and their last calls are answered; bounded), the
     * canary's pods deleted (waited on, bounded). `callsPerSecond`: what the canary answered at its
     * last share, which sets how long a quiet spell proves the drain.
     */
    async retire(callsPerSecond?: number): Promise<void> {
        const { weights, deployment } = await this.state();
        if (weights.some((w) => w > 0)) {
            const rate = callsPerSecond ?? await this.lifetimeRate();
            await this.setWeight(0);
            await this.drain(drainQuietMs(rate, this.i.settleSeconds * 1000, DRAIN_QUIET_CAP_MS));
        }
        if (deployment) {
            await this.c.apps.deleteNamespacedDeployment({ name: this.i.canary, namespace: this.i.namespace, propagationPolicy: "Background" })
                .catch((err) => { if (!isNotFound(err)) throw err; });
        }
        for (let i = 0; i < 240 && (await this.canaryPods()).length > 0; i++) {
            await sleep(500);
        }
    }

    /** The canary pods' calls a second since they started (their counters are cumulative), or undefined when none answers. */
    private async lifetimeRate(): Promise<number | undefined> {
        const rates = await Promise.all((await this.canaryPods()).map(async (p) => {
            const started = p.status?.startTime ? new Date(p.status.startTime).getTime() : Date.now();
            const c = await this.counters(p.metadata?.name as string).catch(() => undefined);
            return c === undefined ? 0 : (c.succeeded + c.failed) / Math.max(1, (Date.now() - started) / 1000);
        }));
        return rates.length ? rates.reduce((n, r) => n + r, 0) : undefined;
    }

    /** Waits, at most `DRAIN_SECONDS`, until the canary pods' calls have not risen for `quietMs`. */
    private async drain(quietMs: number): Promise<void> {
        const readings: CallReading[] = [];
        const deadline = Date.now() + DRAIN_SECONDS * 1000;
        while (Date.now() < deadline && !drained(readings, quietMs)) {
            const pods = (await this.canaryPods()).map((p) => p.metadata?.name as string);
            // A pod that no longer answers its metrics answers no calls either.
            const counts = await Promise.all(pods.map((p) => this.counters(p).then((c) => c.succeeded + c.failed, () => 0)));
            readings.push({ atMs: Date.now(), calls: counts.reduce((n, c) => n + c, 0) });
            await sleep(DRAIN_POLL_MS);
        }
    }

    private async canaryPods(): Promise<K8s.V1Pod[]> {
        const selector = (this.i.canaryDeployment as { spec: { selector: { matchLabels: Record<string, string> } } }).spec.selector.matchLabels;
        const labelSelector = Object.entries(selector).map(([k, v]) => `${k}=${v}`).join(",");
        return (await this.c.core.listNamespacedPod({ namespace: this.i.namespace, labelSelector })).items;
    }

    /** Creates the canary Deployment with `replicas` pods and waits until it is available. */
    async startCanary(replicas: number, abort: Abort): Promise<K8s.V1Pod[]> {
        const body = this.i.canaryDeployment as K8s.V1Deployment;
        await this.c.apps.createNamespacedDeployment({
            namespace: this.i.namespace, body: { ...body, spec: { ...body.spec, replicas } as K8s.V1DeploymentSpec }, fieldManager: CANARY_FIELD_MANAGER,
        });
        return await this.canaryReady(replicas, abort);
    }

    /** Scales the canary Deployment to `replicas` pods (its own object: no other manager writes it) and waits until they are available. */
    async scaleCanary(replicas: number, abort: Abort): Promise<K8s.V1Pod[]> {
        await retryOnConflict(() => this.c.apps.replaceNamespacedDeploymentScale({
            name: this.i.canary, namespace: this.i.namespace, fieldManager: CANARY_FIELD_MANAGER,
            body: { apiVersion: "autoscaling/v1", kind: "Scale", metadata: { name: this.i.canary, namespace: this.i.namespace }, spec: { replicas } },
        }));
        return await this.canaryReady(replicas, abort);
    }

    /** Waits until the canary Deployment is available with `want` pods: every pod Ready for the Deployment's minReadySeconds. */
    private async canaryReady(want: number, abort: Abort): Promise<K8s.V1Pod[]> {
        const deadline = Date.now() + this.i.readySeconds * 1000;
        while (Date.now() < deadline) {
            const d = await this.canaryDeployment();
            if (d?.status?.availableReplicas === want && d.status.updatedReplicas === want && d.status.replicas === want) {
                const pods = (await this.canaryPods()).filter((p) => !p.metadata?.deletionTimestamp && p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"));
                if (pods.length >= want) {
                    return pods.slice(0, want);
                }
            }
            await abort.wait(1000);
        }
        const why = (await this.canaryPods()).map((p) => podTrouble(p)).filter((t) => t).join("; ");
        throw new CanaryFailed(`the canary's pods were not Ready within ${this.i.readySeconds} s${why ? ` (${why})` : ""}`);
    }

    /** One pod's inference counters from its own metrics page, through the API server's pod proxy. */
    async counters(pod: string): Promise<InferenceCounters> {
        const page = await this.c.core.connectGetNamespacedPodProxyWithPath({
            name: `${pod}:${REST_PORT}`, namespace: this.i.namespace, path: METRICS_PATH.replace(/^\//, ""),
        });
        return inferenceCounters(page, this.i.model);
    }

    /**
     * Waits, bounded by `ROUTED_SECONDS`, until the canary's pods have answered a call since `since`
     * (their counters at the weight change): the readings then, and the seconds it took (undefined
     * when no call came: no traffic, or a Gateway that never applied the weight).
     */
    async firstRoutedCall(pods: string[], since: InferenceCounters[], abort: Abort): Promise<{ counters: InferenceCounters[]; seconds?: number }> {
        const start = Date.now();
        let counters = since;
        while (Date.now() - start < ROUTED_SECONDS * 1000) {
            await abort.wait(ROUTED_POLL_MS);
            counters = await Promise.all(pods.map((p) => this.counters(p).catch(() => {
                throw new CanaryFailed(`canary pod ${p} stopped answering its metrics before its first routed call`);
            })));
            const { succeeded, failed } = sumCounters(counters.map((c, i) => countersSince(since[i], c)));
            if (succeeded + failed > 0) {
                return { counters, seconds: (Date.now() - start) / 1000 };
            }
        }
        return { counters };
    }

    /** The serving Deployment's Ready pods (not the canary's). */
    async servingPods(): Promise<K8s.V1Pod[]> {
        const d = await this.c.apps.readNamespacedDeployment({ name: this.i.serving, namespace: this.i.namespace });
        const labelSelector = Object.entries(d.spec?.selector.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`).join(",");
        const canary = new Set((await this.canaryPods()).map((p) => p.metadata?.name));
        return (await this.c.core.listNamespacedPod({ namespace: this.i.namespace, labelSelector })).items
            .filter((p) => !canary.has(p.metadata?.name) && !p.metadata?.deletionTimestamp && p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"));
    }

    /** The model's signatures as a pod's `/metadata` answers them; undefined when it does not. */
    private async signaturesOf(pod: string): Promise<ModelMetadata["signatures"] | undefined> {
        try {
            const text = await this.c.core.connectGetNamespacedPodProxyWithPath({ name: `${pod}:${REST_PORT}`, namespace: this.i.namespace, path: `v1/models/${this.i.model}/metadata` });
            return parseModelMetadata(typeof text === "string" ? JSON.parse(text) : text).signatures;
        } catch {
            return undefined;
        }
    }

    /** One `:predict` on a pod through the pod proxy: the parsed answer, or the failure in words. */
    private async predictOn(pod: string, body: unknown): Promise<{ answer?: unknown; error?: string }> {
        const { status, text } = await this.c.proxyPost(this.i.namespace, pod, `v1/models/${this.i.model}:predict`, body);
        let json: unknown;
        try {
            json = JSON.parse(text);
        } catch {
            return { error: `pod ${pod} answered ${status} with a body that is not JSON: ${text.slice(0, 200)}` };
        }
        if (status !== 200) {
            const said = (json as { error?: unknown })?.error;
            return { error: `pod ${pod} answered ${status}: ${typeof said === "string" ? said : text.slice(0, 200)}` };
        }
        return { answer: json };
    }

    /**
     * Sends every golden case to `canaryPod` and compares its answers with the expected outputs, or,
     * for a case without them, with the answers of `servingPod`. Sequential: the cases are few and
     * bounded, and the check measures the canary, not the API server. The results, in file order.
     */
    async goldenCheck(golden: { file: string; text: string }, canaryPod: string, servingPod: string | undefined, abort: Abort): Promise<CaseResult[]> {
        const results: CaseResult[] = [];
        // TF Serving leaves a single output unnamed in a row-format answer: the signature names it.
        const signatures = await this.signaturesOf(canaryPod);
        for (const c of parseGolden(golden.text, golden.file)) {
            const outputNames = signatures?.[c.signatureName] === undefined ? undefined : Object.keys(signatures[c.signatureName].outputs);
            const why = abort.reason();
            if (why) {
                throw new CanaryFailed(`canary stopped: ${why}`);
            }
            const got = await this.predictOn(canaryPod, c.request);
            if (got.error !== undefined) {
                results.push({ case: c, ok: false, outputs: [], error: `the canary ${got.error}` });
                continue;
            }
            let expected = c.expected;
            if (expected === undefined) {
                if (servingPod === undefined) {
                    results.push({ case: c, ok: false, outputs: [], error: "the case has no expected outputs and no serving pod is Ready to answer it; add its expected outputs to the golden file" });
                    continue;
                }
                const reference = await this.predictOn(servingPod, c.request);
                if (reference.error !== undefined) {
                    results.push({ case: c, ok: false, outputs: [], error: `the case has no expected outputs and the serving version's ${reference.error}; add its expected outputs to the golden file` });
                    continue;
                }
                expected = restOutputs(c, reference.answer, outputNames);
            }
            results.push(compareOutputs(c, expected, restOutputs(c, got.answer, outputNames)));
        }
        return results;
    }

    async event(message: string): Promise<void> {
        const now = new Date();
        await this.c.core.createNamespacedEvent({
            namespace: this.i.namespace,
            body: {
                metadata: { generateName: `${this.i.serving}-canary-`, namespace: this.i.namespace },
                involvedObject: { apiVersion: "apps/v1", kind: "Deployment", name: this.i.serving, namespace: this.i.namespace },
                reason: CANARY_ROLLED_BACK,
                message,
                type: "Warning",
                source: { component: CANARY_FIELD_MANAGER },
                firstTimestamp: now,
                lastTimestamp: now,
                count: 1,
            },
        }).catch(() => undefined);
    }
}

function podTrouble(pod: K8s.V1Pod): string | undefined {
    const status = pod.status?.containerStatuses?.[0];
    const waiting = status?.state?.waiting?.reason;
    const terminated = status?.lastState?.terminated?.reason;
    const reason = waiting ?? terminated ?? (pod.status?.phase !== "Running" ? pod.status?.phase : "not Ready");
    return `${pod.metadata?.name}: ${reason}${status?.restartCount ? `, ${status.restartCount} restarts` : ""}`;
}

/** What a killed release left: a canary Deployment, or routes that still send it traffic. Undefined when nothing. */
export async function leftovers(inputs: ReleaseInputs): Promise<string | undefined> {
    const release = new Release(await connect(inputs), inputs);
    const { weights, deployment } = await release.state();
    const found = [
        ...(deployment ? [`the canary Deployment ${inputs.canary}`] : []),
        ...weights.flatMap((w, i) => (w > 0 ? [`${inputs.routes[i].kind} ${inputs.routes[i].name} sending ${w} % to the canary`] : [])),
    ];
    return found.length ? found.join(", ") : undefined;
}

/** The `release` phase (see the module comment). `log` prints a line to the update's output. */
export async function release(inputs: ReleaseInputs, log: (line: string) => void, clients?: Clients): Promise<ReleaseReport> {
    const r = new Release(clients ?? await connect(inputs), inputs);
    const prefix = `canary of ${inputs.model}`;
    await r.retire();
    const current = await r.serving();
    const serving = current?.image;
    if (current === undefined || serving === undefined || serving === inputs.image) {
        return { outcome: "skipped", image: inputs.image, lines: [] };
    }
    const abort = new Abort();
    const lines: string[] = [];
    const say = (line: string) => { lines.push(line); log(`${prefix}: ${line}`); };
    const floor = (inputs.canaryDeployment as { spec?: { replicas?: number } }).spec?.replicas ?? 1;
    // Each step's canary pods carry no more than a serving pod did before the release (its count now, the HPA's when one scales it).
    const podsFor = (weight: number) => canaryReplicasFor(weight, current.replicas, floor);
    /** What the canary answered a second during the last hold, for the drain. */
    let callsPerSecond: number | undefined;
    try {
        say(`starting ${inputs.canary} with ${inputs.image} beside ${serving}`);
        let pods = await r.startCanary(podsFor(inputs.steps[0]), abort);
        say(`${pods.length} canary pod(s) Ready: ${pods.map((p) => p.metadata?.name).join(", ")}`);
        if (inputs.golden !== undefined) {
            // Before any weight moves: a version that answers wrong never gets a client's request.
            const started = Date.now();
            const servingPod = (await r.servingPods())[0]?.metadata?.name;
            const results = await r.goldenCheck(inputs.golden, pods[0].metadata?.name as string, servingPod, abort);
            const failed = goldenFailure(results, inputs.golden.file);
            if (failed !== undefined) {
                throw new CanaryFailed(failed, undefined, `fix the model, or the golden file's expected outputs or tolerances (see ${GOLDEN_DOCS})`);
            }
            say(goldenSummary(results, inputs.golden.file, (Date.now() - started) / 1000));
        }
        for (const [n, weight] of inputs.steps.entries()) {
            const step = { index: n + 1, count: inputs.steps.length, weight };
            if (pods.length < podsFor(weight)) {
                pods = await r.scaleCanary(podsFor(weight), abort);
                say(`${pods.length} canary pods Ready for ${weight} % beside ${current.replicas} serving pods`);
            }
            const names = pods.map((p) => p.metadata?.name as string);
            let before = await Promise.all(names.map((p) => r.counters(p)));
            await r.setWeight(weight);
            if (n === 0) {
                // The hold starts once the Gateway's data plane carries the weight, not when the route
                // says it: a controller takes seconds to apply a route, and the gate would count them.
                const routed = await r.firstRoutedCall(names, before, abort);
                say(routed.seconds === undefined
                    ? `no call reached the canary within ${ROUTED_SECONDS} s of its weight; holding anyway (the gate's minRequests decides)`
                    : `the Gateway routed the canary its first call ${routed.seconds.toFixed(1)} s after the weight was set; holding ${inputs.holdSeconds} s`);
                before = routed.counters;
            }
            const held = Date.now();
            await abort.wait(inputs.holdSeconds * 1000);
            const after = await Promise.all(names.map((p) => r.counters(p).catch(() => {
                throw new CanaryFailed(`step ${step.index}/${step.count} (${weight} %): canary pod ${p} stopped answering its metrics`);
            })));
            const figures = gateFigures(sumCounters(after.map((a, i) => countersSince(before[i], a))));
            callsPerSecond = figures.requests / Math.max(1, (Date.now() - held) / 1000);
            const verdict = gateVerdict(figures, inputs.gates, step);
            if (!verdict.passed) {
                throw new CanaryFailed(verdict.summary, verdict);
            }
            say(verdict.summary);
        }
        say(`every step passed; ${inputs.serving} now rolls onto ${inputs.image} while the canary keeps ${inputs.steps[inputs.steps.length - 1]} %`);
        return { outcome: "passed", image: inputs.image, lines };
    } catch (err) {
        const message = `${prefix} failed: ${(err as Error).message}`;
        const moved = (await r.state().catch(() => ({ weights: [1] }))).weights.some((w) => w > 0) || callsPerSecond !== undefined;
        await r.retire(callsPerSecond).catch((e) => log(`${prefix}: could not retire the canary: ${(e as Error).message}`));
        const outcome = `${message}. ${moved ? "Traffic is back on" : "No traffic moved from"} ${serving}, the canary's pods are deleted, and ${inputs.serving} was not changed; ` +
            `the next \`pulumi up\` runs the canary again (${err instanceof CanaryFailed ? err.fix : "fix the model, or raise the gate in canary.gates"})`;
        await r.event(outcome);
        throw new CanaryFailed(outcome);
    } finally {
        abort.dispose();
    }
}

/** The `finish` phase: every request to the serving Deployment again, the canary's pods deleted. */
export async function finish(inputs: ReleaseInputs, log: (line: string) => void, clients?: Clients): Promise<void> {
    const r = new Release(clients ?? await connect(inputs), inputs);
    const { weights, deployment } = await r.state();
    if (weights.some((w) => w > 0) || deployment) {
        log(`canary of ${inputs.model}: ${inputs.serving} serves ${inputs.image}; routes back to it alone, the canary retired`);
    }
    await r.retire();
}
