/**
 * Sizing a TF Serving pod from its model: memory, CPU, thread flags and probe timing.
 *
 * Why these numbers:
 * - The server holds every served version in memory (variables plus the graph), a little more than
 *   their size on disk; on top sits the runtime (TensorFlow, gRPC and REST servers).
 * - A version change (a new image, or several served versions) makes TF Serving load the new
 *   version before unloading the old one, so the peak holds one version more than steady state.
 *   A limit below that peak is the classic OOMKilled-after-a-model-update incident.
 * - TF Serving sizes its thread pools from the node's CPU count, not the container's limit; on a
 *   big node a 2-CPU pod would run dozens of threads and be throttled. Threads follow the CPU limit.
 * - The server opens its ports only after the model is loaded, so the startup budget must cover the
 *   load time, which grows with the model's size, and the warmup replay that is part of the load: every
 *   record of each served version's warmup file, `--num_request_iterations_for_warmup` times.
 * - Local disk: the root file system is read-only and the model is in the image (image layers do not
 *   count as a pod's ephemeral storage), so the pod writes only its logs and `/tmp`. A pod without an
 *   ephemeral-storage limit that fills `/tmp` fills the node's disk and gets every pod on it evicted.
 */

import { humanBytes, parseQuantity } from "../contract/quantity";

const MI = 2 ** 20;

/** In-memory footprint of a loaded version relative to its size on disk. */
export const LOAD_FACTOR = 1.2;
/** Resident memory of the server with no model loaded. */
export const RUNTIME_OVERHEAD_BYTES = { cpu: 256 * MI, gpu: 1536 * MI };
/** Headroom on the limit above the reload peak, for request buffers and allocator growth under load. */
export const LIMIT_HEADROOM = 1.25;
/** Extra memory for batching queues when server-side batching is on. */
export const BATCHING_BYTES = 128 * MI;
/**
 * Startup seconds allowed per warmup request replayed at load. A replayed request runs the whole graph as a
 * client's would; the first of each shape pays for lazy initialisation (seconds), the rest take what a
 * predict takes (milliseconds for the models this sizes by disk alone). A quarter second each covers a file
 * of similar requests with room to spare, and keeps a full file (1,000 records, once each) to about 4 minutes.
 */
export const WARMUP_SECONDS_PER_REQUEST = 0.25;
/** The startup budget's ceiling: a pod that has not loaded in an hour is stuck, not slow. */
export const MAX_STARTUP_SECONDS = 3600;

/**
 * Local disk of a model-server pod. `/tmp` (an emptyDir) holds what TensorFlow writes at run time,
 * normally next to nothing; its size limit stops a runaway writer at 1 GiB (the kubelet evicts the pod)
 * instead of at a full node disk. Logs: the kubelet keeps at most 5 rotated files of 10 MiB per
 * container by default (`containerLogMaxFiles`, `containerLogMaxSize`), so 128 MiB covers them with
 * room for one being rotated. The kubelet evicts a pod whose logs and emptyDirs together pass the sum
 * of its containers' limits, so the limit is the `/tmp` cap plus the logs; the request (what the
 * scheduler reserves) is what a healthy server uses: its logs and a little scratch.
 */
export const TMP_LIMIT_BYTES = 1024 * MI;
export const LOG_BYTES = 128 * MI;
export const EPHEMERAL_STORAGE = {
    /** `sizeLimit` of the `/tmp` emptyDir. */
    tmpSizeLimit: toMi(TMP_LIMIT_BYTES),
    request: toMi(LOG_BYTES + 128 * MI),
    limit: toMi(TMP_LIMIT_BYTES + LOG_BYTES),
};

export interface SizingInput {
    /** Size on disk of each served version, in bytes. */
    servedVersionBytes: number[];
    gpu: boolean;
    batching: boolean;
    /**
     * Warmup requests replayed at load, over every served version: records times `--num_request_iterations_for_warmup`
     * (`warmupReplays`); 0 when warmup is off. Default 0.
     */
    warmupRequests?: number;
    /** User overrides from config, as Kubernetes quantities. */
    overrides: { cpu?: string; memoryRequest?: string; memoryLimit?: string };
}

export interface ProbeTiming {
    periodSeconds: number;
    timeoutSeconds: number;
    failureThreshold: number;
}

export interface Sizing {
    /** Memory the model needs at steady state (runtime + served versions), bytes. */
    steadyBytes: number;
    /** Memory at the peak of a version reload (steady + one more version), bytes. */
    peakBytes: number;
    memoryRequest: string;
    memoryLimit: string;
    /** CPU request and limit (equal: TF Serving's thread pools are sized from it). */
    cpu: string;
    /** Whole CPUs the thread flags are matched to. */
    cpuCount: number;
    threads: { intraOp: number; interOp: number; restApi: number; grpcMax: number };
    probes: { startup: ProbeTiming; readiness: ProbeTiming; liveness: ProbeTiming };
    /** Seconds a pod may take from start to ready: the startup probe's whole budget. */
    startupBudgetSeconds: number;
}

/** A sizing override that cannot work; the message names both numbers. */
export type SizingKey = "cpu" | "memoryRequest" | "memoryLimit";

export class SizingError extends Error {
    constructor(readonly key: SizingKey, message: string) {
        super(message);
        this.name = "SizingError";
    }
}

/** Parses a memory quantity to bytes ("512Mi", "2G", "1.5Gi"). */
export function memoryBytes(quantity: string, key: SizingKey = "memoryLimit"): number {
    const bytes = parseQuantity(quantity);
    if (bytes === undefined) {
        throw new SizingError(key, `"${quantity}" is not a memory quantity such as "512Mi" or "2Gi"`);
    }
    return Math.round(bytes);
}

/** Parses a CPU quantity to cores ("500m" → 0.5, "2" → 2). */
export function cpuCores(quantity: string): number {
    const cores = parseQuantity(quantity);
    if (cores === undefined) {
        throw new SizingError("cpu", `"${quantity}" is not a CPU quantity such as "500m" or "2"`);
    }
    return cores;
}

/** Renders bytes as a Kubernetes quantity in Mi, rounded up to a multiple of 64Mi. */
export function toMi(bytes: number): string {
    return `${Math.ceil(bytes / (64 * MI)) * 64}Mi`;
}

export function sizeServer(input: SizingInput): Sizing {
    const loaded = input.servedVersionBytes.map((b) => b * LOAD_FACTOR);
    const modelBytes = loaded.reduce((a, b) => a + b, 0);
    const largest = loaded.reduce((a, b) => Math.max(a, b), 0);
    const runtime = input.gpu ? RUNTIME_OVERHEAD_BYTES.gpu : RUNTIME_OVERHEAD_BYTES.cpu;
    const steadyBytes = runtime + modelBytes + (input.batching ? BATCHING_BYTES : 0);
    const peakBytes = steadyBytes + largest;

    const memoryRequest = input.overrides.memoryRequest ?? toMi(steadyBytes);
    const memoryLimit = input.overrides.memoryLimit ?? toMi(peakBytes * LIMIT_HEADROOM);
    const requestBytes = memoryBytes(memoryRequest, "memoryRequest");
    const limitBytes = memoryBytes(memoryLimit, "memoryLimit");
    if (input.overrides.memoryLimit !== undefined && limitBytes < peakBytes) {
        throw new SizingError("memoryLimit",
            `memoryLimit ${memoryLimit} (${humanBytes(limitBytes)}) is below the ${humanBytes(peakBytes)} the model needs while a new version loads beside the old one ` +
            `(runtime ${humanBytes(runtime)} + served versions ${humanBytes(modelBytes)} + reload ${humanBytes(largest)}); pods would be OOMKilled on the next model update. ` +
            `Set memoryLimit to at least ${toMi(peakBytes)}, or remove it to use the derived ${toMi(peakBytes * LIMIT_HEADROOM)}`);
    }
    if (input.overrides.memoryRequest !== undefined && requestBytes < steadyBytes) {
        throw new SizingError("memoryRequest",
            `memoryRequest ${memoryRequest} (${humanBytes(requestBytes)}) is below the ${humanBytes(steadyBytes)} the loaded model needs at steady state; ` +
            `set it to at least ${toMi(steadyBytes)}, or remove it`);
    }
    if (requestBytes > limitBytes) {
        throw new SizingError(input.overrides.memoryRequest !== undefined ? "memoryRequest" : "memoryLimit",
            `memoryRequest ${memoryRequest} is above memoryLimit ${memoryLimit}; the request must not exceed the limit`);
    }

    const cpu = input.overrides.cpu ?? (input.gpu ? "2" : "1");
    const cores = cpuCores(cpu);
    if (cores < 0.25) {
        throw new SizingError("cpu", `cpu ${cpu} is below the 250m TF Serving needs to load a model and answer probes in time; set cpu to at least "250m"`);
    }
    const cpuCount = Math.max(1, Math.ceil(cores));

    // Startup: at least 60 s, plus 10 s per 100 MiB on disk; CUDA initialisation adds a minute; each
    // replayed warmup request its allowance.
    const diskBytes = input.servedVersionBytes.reduce((a, b) => a + b, 0);
    const warmupSeconds = Math.ceil((input.warmupRequests ?? 0) * WARMUP_SECONDS_PER_REQUEST);
    const startupBudgetSeconds = Math.min(MAX_STARTUP_SECONDS, 60 + Math.ceil(diskBytes / (100 * MI)) * 10 + (input.gpu ? 60 : 0) + warmupSeconds);
    const startupPeriod = 5;

    return {
        steadyBytes,
        peakBytes,
        memoryRequest,
        memoryLimit,
        cpu,
        cpuCount,
        threads: {
            intraOp: cpuCount,
            interOp: Math.min(2, cpuCount),
            restApi: 4 * cpuCount,
            grpcMax: 4 * cpuCount,
        },
        probes: {
            startup: { periodSeconds: startupPeriod, timeoutSeconds: 3, failureThreshold: Math.ceil(startupBudgetSeconds / startupPeriod) },
            readiness: { periodSeconds: 5, timeoutSeconds: 3, failureThreshold: 2 },
            // Liveness is patient: a server busy with a large batch must not be killed for a slow answer.
            liveness: { periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 6 },
        },
        startupBudgetSeconds,
    };
}
