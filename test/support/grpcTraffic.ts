/**
 * gRPC client traffic for the end-to-end tests and the bench: Predicts to the half-plus-two fixture
 * on ONE channel (one HTTP/2 connection, as a real client keeps), and each pod's share of them read
 * from the pod's own metrics (TF Serving's `:tensorflow:serving:request_latency_count` with
 * `entrypoint="GRPC"`), so the share is what each replica answered, not what the client guessed.
 */
import { METRICS_PATH } from "../../serving/flags";
import { GrpcTransport, TfServingGrpcClient, describeGrpcError } from "../../ops/tfServingGrpc";
import { percentile } from "./traffic";

/** What one run of Predicts on one channel measured (the bench's `grpc.loadBalancer` / `grpc.gateway`). */
export interface GrpcBalanceReport {
    requests: number;
    failed: number;
    p50Ms: number;
    p99Ms: number;
    /** Each pod's share of the Predicts, in the order of the pod IPs given, from the pods' own counts. */
    podShare: number[];
    /** Each pod's count of gRPC Predicts during the run. */
    podCounts: number[];
}

/** The gRPC requests a pod has answered for `model`, from its own metrics page (on the REST port). */
export async function podGrpcRequests(podIp: string, model: string): Promise<number> {
    const page = await (await fetch(`http://${podIp}:8501${METRICS_PATH}`, { signal: AbortSignal.timeout(5000) })).text();
    const line = page.split("\n").find((l) =>
        l.startsWith(":tensorflow:serving:request_latency_count{") && l.includes(`model_name="${model}"`) && l.includes("entrypoint=\"GRPC\""));
    return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1));
}

interface PredictAnswer { model_spec?: { version?: { value?: string | number } }; outputs?: { y?: { float_val?: number[] } } }

/** One Predict of x = `i` on `client`; throws unless the answer is half plus two. Returns the answering version. */
export async function predictOnce(client: TfServingGrpcClient, model: string, i: number, timeoutMs = 10_000): Promise<string> {
    const answer = await client.call<PredictAnswer>("Predict", {
        model_spec: { name: model },
        inputs: { x: { dtype: "DT_FLOAT", tensor_shape: { dim: [{ size: 1 }, { size: 1 }] }, float_val: [i] } },
    }, timeoutMs);
    const y = answer.outputs?.y?.float_val;
    if (y?.length !== 1 || y[0] !== i / 2 + 2) {
        throw new Error(`Predict(${i}) answered ${JSON.stringify(y)}, want [${i / 2 + 2}]`);
    }
    return String(answer.model_spec?.version?.value ?? "");
}

/** `requests` Predicts in sequence on one channel to `endpoint`; the pods' shares from their own counts before and after. */
export async function grpcBalance(endpoint: string, transport: GrpcTransport, model: string, podIps: string[], requests: number): Promise<GrpcBalanceReport> {
    const before = await Promise.all(podIps.map((ip) => podGrpcRequests(ip, model)));
    const client = new TfServingGrpcClient(endpoint, transport);
    const latencies: number[] = [];
    let failed = 0;
    try {
        for (let i = 0; i < requests; i++) {
            const started = performance.now();
            try {
                await predictOnce(client, model, i);
                latencies.push(performance.now() - started);
            } catch {
                failed++;
            }
        }
    } finally {
        client.close();
    }
    const podCounts = (await Promise.all(podIps.map((ip) => podGrpcRequests(ip, model)))).map((n, i) => n - before[i]);
    latencies.sort((a, b) => a - b);
    const round = (ms: number) => Math.round(ms * 100) / 100;
    return {
        requests, failed,
        p50Ms: round(percentile(latencies, 50)),
        p99Ms: round(percentile(latencies, 99)),
        podShare: podCounts.map((c) => Math.round((c / requests) * 1000) / 1000),
        podCounts,
    };
}

/** The largest distance of a pod's count from the mean count, as a fraction of the mean. */
export function worstDeviationFromMean(counts: number[]): number {
    const mean = counts.reduce((a, b) => a + b, 0) / counts.length;
    return mean === 0 ? Infinity : Math.max(...counts.map((c) => Math.abs(c - mean) / mean));
}

export interface GrpcTrafficReport {
    requests: number;
    failures: string[];
    /** When each failure was seen (milliseconds since the epoch). */
    failureTimes: number[];
    /** The versions that answered, in order, each run of one version once. */
    versions: string[];
}

/**
 * Predicts on one channel, one after the other, until `during` settles (at most `maxSeconds`):
 * back to back with a 20 ms pause, or paced at `rps` a second.
 */
export async function grpcUnderTraffic(endpoint: string, transport: GrpcTransport, model: string, during: Promise<unknown>, maxSeconds = 600, rps?: number): Promise<GrpcTrafficReport> {
    let done = false;
    during.then(() => { done = true; }, () => { done = true; });
    const client = new TfServingGrpcClient(endpoint, transport);
    const report: GrpcTrafficReport = { requests: 0, failures: [], failureTimes: [], versions: [] };
    const until = Date.now() + maxSeconds * 1000;
    try {
        for (let i = 0; !done && Date.now() < until; i++) {
            const started = Date.now();
            report.requests++;
            try {
                const version = await predictOnce(client, model, i % 100);
                if (report.versions[report.versions.length - 1] !== version) {
                    report.versions.push(version);
                }
            } catch (err) {
                const e = describeGrpcError(err);
                report.failures.push(`${e.code}: ${e.details}`);
                report.failureTimes.push(Date.now());
            }
            await new Promise((r) => setTimeout(r, rps === undefined ? 20 : Math.max(0, 1000 / rps - (Date.now() - started))));
        }
    } finally {
        client.close();
    }
    return report;
}
