/**
 * Client traffic for the end-to-end suite: requests to a model server through the load balancer,
 * one new TCP connection each (as many independent clients would; a kept-alive connection stays
 * pinned to one pod behind an L4 load balancer, see FACTS), and a bounded loop of them.
 */
import * as http from "http";

export interface Answer {
    status: number;
    body: string;
    ms: number;
}

/** One HTTP request on a connection of its own; rejects on a network error or after `timeoutMs`. */
export function request(url: string, options: { method?: string; body?: string; timeoutMs?: number; headers?: Record<string, string> } = {}): Promise<Answer> {
    const t0 = process.hrtime.bigint();
    return new Promise((resolve, reject) => {
        const req = http.request(url, {
            method: options.method ?? (options.body ? "POST" : "GET"),
            agent: false,
            headers: { Connection: "close", ...(options.body ? { "Content-Type": "application/json" } : {}), ...options.headers },
            timeout: options.timeoutMs ?? 5000,
        }, (res) => {
            let body = "";
            res.setEncoding("utf8");
            res.on("data", (d: string) => { body += d; });
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body, ms: Number(process.hrtime.bigint() - t0) / 1e6 }));
            res.on("error", reject);
        });
        req.on("timeout", () => req.destroy(new Error(`no answer within ${options.timeoutMs ?? 5000} ms`)));
        req.on("error", reject);
        req.end(options.body);
    });
}

/** `:predict` for the half-plus-N fixtures: the predictions for `instances`. */
export async function predict(restUrl: string, model: string, instances: number[], headers?: Record<string, string>): Promise<number[]> {
    const a = await request(`${restUrl}/v1/models/${model}:predict`, { body: JSON.stringify({ instances }), headers });
    if (a.status !== 200) {
        throw new Error(`predict: HTTP ${a.status}: ${a.body.slice(0, 300)}`);
    }
    return (JSON.parse(a.body) as { predictions: number[] }).predictions;
}

/** The version TF Serving reports AVAILABLE for the model, from `GET /v1/models/NAME`. */
export async function availableVersion(restUrl: string, model: string, headers?: Record<string, string>): Promise<string> {
    const a = await request(`${restUrl}/v1/models/${model}`, { headers });
    if (a.status !== 200) {
        throw new Error(`model status: HTTP ${a.status}: ${a.body.slice(0, 300)}`);
    }
    const status = (JSON.parse(a.body) as { model_version_status: { version: string; state: string }[] }).model_version_status;
    return status.filter((s) => s.state === "AVAILABLE").map((s) => s.version).sort().join(",");
}

export interface TrafficReport {
    requests: number;
    failures: string[];
    /** When each failure was seen (milliseconds since the epoch), in the order of `failures`. */
    failureTimes: number[];
    latenciesMs: number[];
    /** The versions that answered, in order, each with the request count it answered in a row. */
    versions: { version: string; count: number }[];
    p50: number;
    p99: number;
}

export function percentile(sorted: number[], p: number): number {
    if (sorted.length === 0) {
        return NaN;
    }
    return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * Sends `rps` requests a second until `stop()` resolves (bounded by `maxSeconds`): each tick a
 * predict that must answer `expected`, and every 4th tick a status read that records the version
 * answering. Every request that fails, answers non-200 or answers other than `expected` (or one of
 * `alternatives`, while a rollout switches between models) counts as a failure.
 */
export async function underTraffic(restUrl: string, model: string, during: Promise<unknown>, options: {
    rps?: number; maxSeconds?: number; instances?: number[]; expected: number[]; alternatives?: number[][];
    /** Sent with every request (an endpoint's `authorization`). */
    headers?: Record<string, string>;
}): Promise<TrafficReport> {
    const rps = options.rps ?? 20;
    const limit = (options.maxSeconds ?? 600) * rps;
    let done = false;
    void during.finally(() => { done = true; });
    const report: TrafficReport = { requests: 0, failures: [], failureTimes: [], latenciesMs: [], versions: [], p50: NaN, p99: NaN };
    const fail = (what: string) => { report.failures.push(what); report.failureTimes.push(Date.now()); };
    const inFlight: Promise<void>[] = [];
    const instances = options.instances ?? [1, 2, 5];
    const seen = (version: string) => {
        const last = report.versions[report.versions.length - 1];
        if (last?.version === version) {
            last.count++;
        } else {
            report.versions.push({ version, count: 1 });
        }
    };
    for (let tick = 0; !done && tick < limit; tick++) {
        const started = Date.now();
        report.requests++;
        inFlight.push(request(`${restUrl}/v1/models/${model}:predict`, { body: JSON.stringify({ instances }), headers: options.headers }).then((a) => {
            report.latenciesMs.push(a.ms);
            const got = a.status === 200 ? JSON.stringify((JSON.parse(a.body) as { predictions: number[] }).predictions) : "";
            if (![options.expected, ...(options.alternatives ?? [])].some((e) => got === JSON.stringify(e))) {
                fail(`predict: HTTP ${a.status} ${a.body.slice(0, 200)}`);
            }
        }, (err: Error) => { fail(`predict: ${err.message}`); }));
        if (tick % 4 === 0) {
            report.requests++;
            inFlight.push(availableVersion(restUrl, model, options.headers).then(seen, (err: Error) => { fail(`status: ${err.message}`); }));
        }
        await new Promise((r) => setTimeout(r, Math.max(0, 1000 / rps - (Date.now() - started))));
    }
    await Promise.all(inFlight);
    const sorted = [...report.latenciesMs].sort((a, b) => a - b);
    report.p50 = percentile(sorted, 50);
    report.p99 = percentile(sorted, 99);
    return report;
}
