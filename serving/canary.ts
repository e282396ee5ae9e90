/**
 * A canary release, as pure logic: the steps a new model image takes through the Gateway's
 * weighted routes, what its pods' own metrics say at each step, and the gate's verdict.
 *
 * The figures come from the canary pods' TF Serving metrics page (`METRICS_PATH`), read before
 * and after each step's hold, so they count only the requests of that step, on those pods:
 * - calls: the failed requests (`request_count` with a status other than OK) plus the successful
 *   inference calls (`request_latency_count` of predict/classify/regress). `request_count` has no
 *   `API` label and counts every status GET of the probes and health checks as OK, so its OK series
 *   would dilute the ratio; the latency histogram counts each successful inference call once.
 *   Unlike the alerts, INVALID_ARGUMENT counts as a failure here: the clients did not change, so a
 *   version that refuses their inputs (a changed signature) is the regression a canary exists for.
 * - p99: from the latency histogram's buckets (successful calls; microseconds), interpolated inside
 *   the bucket as Prometheus' `histogram_quantile` does.
 */
import { INFERENCE_APIS, TF_SERVING_METRICS } from "../observability/metrics";

export interface CanaryGates {
    /** Most failed calls per call on the canary's pods during a step's hold (0.01: 1 %). */
    maxErrorRatio: number;
    /** Slowest p99 latency of the canary's successful inference calls during a hold, in ms. */
    maxP99Ms: number;
    /** Fewest calls the canary's pods must answer during a hold for the gate to decide; fewer fails the step. */
    minRequests: number;
}

export interface CanarySettings {
    /** Percent of requests sent to the canary at each step, ascending, each from 1 to 99; then the new version takes all. */
    steps: number[];
    /** Seconds each step holds before its gate reads the canary's figures. */
    holdSeconds: number;
    /** The fewest canary pods (beside the serving ones, with the same sizing); a step runs ceil(weight x serving pods) when that is more. */
    replicas: number;
    gates: CanaryGates;
}

export const CANARY_DEFAULTS: CanarySettings = {
    steps: [10, 50],
    holdSeconds: 60,
    replicas: 1,
    gates: { maxErrorRatio: 0.01, maxP99Ms: 1000, minRequests: 50 },
};

/** Counters of one pod's inference calls, as its metrics page shows them (cumulative since it started). */
export interface InferenceCounters {
    succeeded: number;
    failed: number;
    /** Cumulative counts of successful calls under each latency bound (microseconds), ascending; the last one `Infinity`. */
    buckets: { le: number; count: number }[];
}

interface Sample { name: string; labels: Record<string, string>; value: number }

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL_PAIR = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The samples of a Prometheus text page (comments and unparsable lines skipped). */
function samples(page: string): Sample[] {
    const out: Sample[] = [];
    for (const line of page.split("\n")) {
        const m = SAMPLE_LINE.exec(line.trim());
        if (!m || line.startsWith("#")) {
            continue;
        }
        const labels: Record<string, string> = {};
        for (const [, key, value] of (m[2] ?? "").matchAll(LABEL_PAIR)) {
            labels[key] = value.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
        }
        const value = m[3] === "+Inf" ? Infinity : Number(m[3]);
        if (!Number.isNaN(value)) {
            out.push({ name: m[1], labels, value });
        }
    }
    return out;
}

const INFERENCE = new Set<string>(INFERENCE_APIS);

/** `model`'s inference counters on one pod's metrics page. */
export function inferenceCounters(page: string, model: string): InferenceCounters {
    const all = samples(page).filter((s) => s.labels.model_name === model);
    const sum = (pick: (s: Sample) => boolean) => all.filter(pick).reduce((n, s) => n + s.value, 0);
    const inference = (s: Sample) => INFERENCE.has(s.labels.API ?? "");
    const bounds = new Map<number, number>();
    for (const s of all) {
        if (s.name === `${TF_SERVING_METRICS.requestLatency}_bucket` && inference(s)) {
            const le = s.labels.le === "+Inf" ? Infinity : Number(s.labels.le);
            bounds.set(le, (bounds.get(le) ?? 0) + s.value);
        }
    }
    return {
        succeeded: sum((s) => s.name === `${TF_SERVING_METRICS.requestLatency}_count` && inference(s)),
        failed: sum((s) => s.name === TF_SERVING_METRICS.requestCount && s.labels.status !== "OK"),
        buckets: [...bounds.entries()].sort(([a], [b]) => a - b).map(([le, count]) => ({ le, count })),
    };
}

/**
 * What happened between two readings of one pod. A counter that went down means the server
 * restarted in between: the later reading is then all that happened since (as Prometheus' `rate`).
 */
export function countersSince(before: InferenceCounters | undefined, after: InferenceCounters): InferenceCounters {
    const restarted = before === undefined || after.succeeded < before.succeeded || after.failed < before.failed;
    if (restarted) {
        return after;
    }
    const earlier = new Map(before.buckets.map((b) => [b.le, b.count]));
    return {
        succeeded: after.succeeded - before.succeeded,
        failed: after.failed - before.failed,
        buckets: after.buckets.map((b) => ({ le: b.le, count: Math.max(0, b.count - (earlier.get(b.le) ?? 0)) })),
    };
}

/** The counters of several pods together. */
export function sumCounters(pods: InferenceCounters[]): InferenceCounters {
    const bounds = new Map<number, number>();
    pods.forEach((p) => p.buckets.forEach((b) => bounds.set(b.le, (bounds.get(b.le) ?? 0) + b.count)));
    return {
        succeeded: pods.reduce((n, p) => n + p.succeeded, 0),
        failed: pods.reduce((n, p) => n + p.failed, 0),
        buckets: [...bounds.entries()].sort(([a], [b]) => a - b).map(([le, count]) => ({ le, count })),
    };
}

/**
 * The `q` quantile of the calls in cumulative `buckets`, in the buckets' unit: linear inside the
 * bucket it falls in (from the bound below it, 0 for the first), the highest finite bound when it
 * falls in the overflow bucket; undefined without calls.
 */
export function quantile(q: number, buckets: { le: number; count: number }[]): number | undefined {
    const total = buckets.length ? buckets[buckets.length - 1].count : 0;
    if (total <= 0) {
        return undefined;
    }
    const rank = q * total;
    let lower = 0;
    let below = 0;
    for (const b of buckets) {
        if (b.count >= rank) {
            if (b.le === Infinity) {
                return lower;
            }
            const inside = b.count - below;
            return inside <= 0 ? b.le : lower + (b.le - lower) * ((rank - below) / inside);
        }
        lower = b.le === Infinity ? lower : b.le;
        below = b.count;
    }
    return lower;
}

/** What a step's gate read: the canary pods' calls during the hold. */
export interface GateFigures {
    requests: number;
    failed: number;
    errorRatio: number;
    /** Undefined when no call succeeded. */
    p99Ms?: number;
}

export function gateFigures(counters: InferenceCounters): GateFigures {
    const requests = counters.succeeded + counters.failed;
    const p99 = quantile(0.99, counters.buckets);
    return {
        requests,
        failed: counters.failed,
        errorRatio: requests === 0 ? 0 : counters.failed / requests,
        p99Ms: p99 === undefined ? undefined : p99 / 1000,
    };
}

export interface StepPosition {
    /** 1-based. */
    index: number;
    count: number;
    weight: number;
}

export interface GateVerdict {
    passed: boolean;
    /** The gate that failed. */
    gate?: "minRequests" | "maxErrorRatio" | "maxP99Ms";
    /** One line: the step, the figures, and for a failure the gate and its threshold. */
    summary: string;
}

const fixed = (n: number, digits: number) => n.toFixed(digits);

/** The step's line, whatever the verdict: `step 1/2 (10 %): 212 calls, 0 failed (error ratio 0.0000), p99 12.3 ms`. */
export function stepSummary(step: StepPosition, f: GateFigures): string {
    const p99 = f.p99Ms === undefined ? "no successful call" : `p99 ${fixed(f.p99Ms, 1)} ms`;
    return `step ${step.index}/${step.count} (${step.weight} %): ${f.requests} calls, ${f.failed} failed (error ratio ${fixed(f.errorRatio, 4)}), ${p99}`;
}

/** Checks the figures against the gates, the traffic first: too few calls decide nothing, and that is a failure. */
export function gateVerdict(f: GateFigures, gates: CanaryGates, step: StepPosition): GateVerdict {
    const line = stepSummary(step, f);
    if (f.requests < gates.minRequests) {
        return {
            passed: false, gate: "minRequests",
            summary: `${line}: too little traffic to decide, ${f.requests} calls < minRequests ${gates.minRequests} ` +
                "(send more traffic, hold longer, or lower canary.gates.minRequests)",
        };
    }
    if (f.errorRatio > gates.maxErrorRatio) {
        return { passed: false, gate: "maxErrorRatio", summary: `${line}: error ratio ${fixed(f.errorRatio, 4)} > maxErrorRatio ${gates.maxErrorRatio}` };
    }
    if (f.p99Ms !== undefined && f.p99Ms > gates.maxP99Ms) {
        return { passed: false, gate: "maxP99Ms", summary: `${line}: p99 ${fixed(f.p99Ms, 1)} ms > maxP99Ms ${gates.maxP99Ms}` };
    }
    return { passed: true, summary: `${line}: passed` };
}

/** A route's backend, as the Gateway API writes it. */
export interface BackendRef { name: string; port?: number; weight?: number; [key: string]: unknown }
/** A route rule: only its backends matter here. */
export interface RouteRule { backendRefs?: BackendRef[]; [key: string]: unknown }

/**
 * `rules` with the canary Service's backends at `canaryPercent` and the serving Service's at the
 * rest (each rule keeps its other backends and fields). Throws when a rule lacks either Service:
 * the route is not the one this program rendered.
 */
export function weightedRules(rules: RouteRule[], services: { serving: string; canary: string }, canaryPercent: number): RouteRule[] {
    return rules.map((rule, i) => {
        const refs = rule.backendRefs ?? [];
        if (!refs.some((r) => r.name === services.serving) || !refs.some((r) => r.name === services.canary)) {
            throw new Error(`rule ${i} of the route has no backend for both ${services.serving} and ${services.canary}; run pulumi up to restore the route`);
        }
        return {
            ...rule,
            backendRefs: refs.map((r) => r.name === services.canary ? { ...r, weight: canaryPercent }
                : r.name === services.serving ? { ...r, weight: 100 - canaryPercent } : r),
        };
    });
}

/** The canary's percent of a route's rules: the highest weight share of the canary Service in any rule (0 when it has none). */
export function canaryShare(rules: RouteRule[], canaryService: string): number {
    return Math.max(0, ...rules.map((rule) => {
        const refs = rule.backendRefs ?? [];
        const total = refs.reduce((n, r) => n + (r.weight ?? 1), 0);
        const canary = refs.filter((r) => r.name === canaryService).reduce((n, r) => n + (r.weight ?? 1), 0);
        return total === 0 ? 0 : Math.round((100 * canary) / total);
    }));
}

/**
 * The canary's pods while it takes `weightPercent` of the requests: enough that each carries no more
 * than a serving pod carried before the release (`servingReplicas` pods took them all), so the p99
 * gate judges a pod under the load it will serve, not an overloaded one; at least `floor`
 * (`canary.replicas`). One pod at 50 % beside 4 serving pods would take twice a serving pod's load.
 */
export function canaryReplicasFor(weightPercent: number, servingReplicas: number, floor: number): number {
    return Math.max(floor, Math.ceil((weightPercent * Math.max(1, servingReplicas)) / 100));
}

/** The most canary pods a release runs (at its last, largest step) beside `servingReplicas` serving pods. */
export function canaryPodsAtMost(settings: Pick<CanarySettings, "steps" | "replicas">, servingReplicas: number): number {
    return canaryReplicasFor(Math.max(0, ...settings.steps), servingReplicas, settings.replicas);
}

/** Seconds a release may wait, after its first weight change, for the Gateway to route the canary a call. */
export const CANARY_ROUTED_SECONDS = 30;

/**
 * Why a canary cannot run beside this HPA, or undefined. While the canary takes its share the serving
 * pods get less traffic; an HPA whose scale-down window is shorter than the release removes serving
 * pods during the holds, and when the canary ends they take all the traffic again, too few. Each
 * step's share lasts its hold (and the first waits up to `CANARY_ROUTED_SECONDS` for its first call).
 */
export function canaryHoldProblem(settings: Pick<CanarySettings, "steps" | "holdSeconds">, scaleDownStabilizationSeconds: number | undefined): string | undefined {
    if (scaleDownStabilizationSeconds === undefined) {
        return undefined;
    }
    const held = settings.steps.length * settings.holdSeconds + CANARY_ROUTED_SECONDS;
    if (held <= scaleDownStabilizationSeconds) {
        return undefined;
    }
    return `holds the canary's share for up to ${held} s (${settings.steps.length} steps of holdSeconds ${settings.holdSeconds}, ` +
        `and up to ${CANARY_ROUTED_SECONDS} s for its first routed call), longer than autoscaling.scaleDownStabilizationSeconds ` +
        `(${scaleDownStabilizationSeconds}): the HPA would remove serving pods while the canary takes their traffic, and too few would be left when it ends. ` +
        `Raise autoscaling.scaleDownStabilizationSeconds to at least ${held}, or shorten canary.holdSeconds or canary.steps ` +
        "(see docs/guides/canary.md#canary-and-autoscaling)";
}

/** One reading of a set of pods' counters: when, and their calls in all (succeeded and failed). */
export interface CallReading {
    atMs: number;
    calls: number;
}

/**
 * How long a canary's counters must stay still after its weight went to 0 before its pods may go:
 * `floorMs` (the Gateway's usual lag), or five of the mean gaps between the calls it answered at its
 * last share, whichever is longer (a quiet spell of a second proves nothing at one call every two
 * seconds), at most `capMs`.
 */
export function drainQuietMs(callsPerSecond: number | undefined, floorMs: number, capMs: number): number {
    const gapMs = callsPerSecond !== undefined && callsPerSecond > 0 ? 1000 / callsPerSecond : 0;
    return Math.min(capMs, Math.max(floorMs, 5 * gapMs));
}

/**
 * Whether the canary is drained: its readings span at least `quietMs` and its calls did not rise in
 * the last `quietMs` of them (the Gateway sends it nothing any more, and its last calls have been
 * answered). Readings in time order.
 */
export function drained(readings: CallReading[], quietMs: number): boolean {
    const last = readings[readings.length - 1];
    const baseline = last === undefined ? undefined : [...readings].reverse().find((r) => r.atMs <= last.atMs - quietMs);
    return baseline !== undefined && last.calls <= baseline.calls;
}

/**
 * Runs `write` (a read-modify-write of an object), again on a conflict (HTTP 409: the object changed
 * between its read and the write, another writer was first), at most `attempts` times in all, waiting
 * `waitMs` x the attempt between tries; any other error, or the last conflict, is thrown.
 */
export async function retryOnConflict<T>(write: () => Promise<T>, attempts = 5, waitMs = 200, sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))): Promise<T> {
    for (let attempt = 1; ; attempt++) {
        try {
            return await write();
        } catch (err) {
            if ((err as { code?: number }).code !== 409 || attempt >= attempts) {
                throw err;
            }
            await sleep(waitMs * attempt);
        }
    }
}
