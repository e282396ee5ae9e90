/**
 * A bounded stream of predict requests at a steady rate, for measuring what clients see while a
 * stack changes under them (end-to-end tests, `npm run bench`). Loopback only: the URL is the load
 * balancer address of the loopback environment.
 */

export interface TrafficOptions {
    /** `http://ADDRESS:8501/v1/models/NAME:predict`. */
    url: string;
    /** The JSON body of every request. */
    body: unknown;
    /** Requests started per second (default 20). */
    ratePerSecond?: number;
    /** Hard limit on the run, whatever happens (default 15 minutes). */
    maxSeconds?: number;
    /** Per-request timeout (default 10 s). */
    requestTimeoutMs?: number;
}

export interface RequestRecord {
    /** Milliseconds since the run started. */
    startedMs: number;
    latencyMs: number;
    /** HTTP status, or 0 when the request failed below HTTP (refused, reset, timed out). */
    status: number;
    /** The parsed answer of a 200, else the error text. */
    answer: unknown;
}

export interface TrafficSummary {
    requests: number;
    failed: number;
    p50Ms: number;
    p99Ms: number;
    records: RequestRecord[];
}

export interface Traffic {
    /** Stops starting requests, waits for those in flight, and summarises. */
    stop(): Promise<TrafficSummary>;
}

/** The q-quantile (0..1) of the values, nearest rank; 0 for none. */
export function quantile(values: readonly number[], q: number): number {
    if (values.length === 0) {
        return 0;
    }
    const sorted = [...values].sort((a, b) => a - b);
    const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
    return sorted[rank];
}

export function summarise(records: readonly RequestRecord[]): TrafficSummary {
    const latencies = records.map((r) => r.latencyMs);
    return {
        requests: records.length,
        failed: records.filter((r) => r.status !== 200).length,
        p50Ms: Math.round(quantile(latencies, 0.5) * 10) / 10,
        p99Ms: Math.round(quantile(latencies, 0.99) * 10) / 10,
        records: [...records],
    };
}

async function once(options: TrafficOptions, t0: number): Promise<RequestRecord> {
    const startedMs = performance.now() - t0;
    const begin = performance.now();
    try {
        const res = await fetch(options.url, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(options.body),
            signal: AbortSignal.timeout(options.requestTimeoutMs ?? 10_000),
        });
        const text = await res.text();
        let answer: unknown = text;
        try {
            answer = JSON.parse(text);
        } catch {
            // keep the text: a proxy's or server's error page
        }
        return { startedMs, latencyMs: performance.now() - begin, status: res.status, answer };
    } catch (err) {
        return { startedMs, latencyMs: performance.now() - begin, status: 0, answer: String((err as Error).cause ?? err) };
    }
}

/** Starts sending; call `stop()` to end. It also ends by itself after `maxSeconds`. */
export function startTraffic(options: TrafficOptions): Traffic {
    const interval = 1000 / (options.ratePerSecond ?? 20);
    const deadline = performance.now() + (options.maxSeconds ?? 15 * 60) * 1000;
    const t0 = performance.now();
    const inFlight = new Set<Promise<void>>();
    const records: RequestRecord[] = [];
    let stopped = false;
    let next = t0;
    const tick = () => {
        if (stopped || performance.now() >= deadline) {
            stopped = true;
            return;
        }
        const p = once(options, t0).then((r) => { records.push(r); inFlight.delete(p); });
        inFlight.add(p);
        next += interval;
        setTimeout(tick, Math.max(0, next - performance.now()));
    };
    tick();
    return {
        async stop() {
            stopped = true;
            await Promise.all([...inFlight]);
            records.sort((a, b) => a.startedMs - b.startedMs);
            return summarise(records);
        },
    };
}
