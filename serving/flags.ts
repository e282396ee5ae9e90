/**
 * The `tensorflow_model_server` flags a pod adds to its image's entrypoint, and the text-proto
 * files those flags point at. The image bakes only what never changes (ports, model path);
 * everything sized from the pod's resources is passed here, so resizing rolls pods without a rebuild.
 */
import { Sizing } from "./sizing";
import { imageServerFlags } from "./dockerfile";
import { ServerFlag, flagArgs } from "./serverFlag";

/** Where the pod mounts its server configuration (a ConfigMap). */
export const SERVER_CONFIG_DIR = "/etc/tf-serving";
export const MONITORING_CONFIG_FILE = "monitoring.config";
export const BATCHING_CONFIG_FILE = "batching.config";
/** Prometheus metrics path on the REST port. */
export const METRICS_PATH = "/monitoring/prometheus/metrics";

export interface ServerFlagInput {
    sizing: Pick<Sizing, "threads">;
    batching: boolean;
    /** Replay the model's warmup requests at load; TF Serving's own default is true (server.h). */
    enableWarmup: boolean;
    extraServerArgs: string[];
}

/** The flags the pod adds to the image's, sized from its resources. */
function podServerFlags(input: Omit<ServerFlagInput, "extraServerArgs">): ServerFlag[] {
    const { threads } = input.sizing;
    const cpu = "threads follow the CPU limit: set cpu instead";
    const flags: ServerFlag[] = [
        { name: "--tensorflow_intra_op_parallelism", value: threads.intraOp, why: cpu },
        { name: "--tensorflow_inter_op_parallelism", value: threads.interOp, why: cpu },
        { name: "--rest_api_num_threads", value: threads.restApi, why: cpu },
        { name: "--grpc_max_threads", value: threads.grpcMax, why: cpu },
        { name: "--monitoring_config_file", value: `${SERVER_CONFIG_DIR}/${MONITORING_CONFIG_FILE}`, why: `Prometheus metrics are always on, at ${METRICS_PATH}` },
        // Always explicit: only `=false` changes what the server does, and saying `=true` too keeps
        // the pod's behaviour readable in `kubectl describe` whatever a future release defaults to.
        { name: "--enable_model_warmup", value: input.enableWarmup, why: "set enableWarmup (true or false) instead" },
    ];
    if (input.batching) {
        flags.push(
            { name: "--enable_batching", value: true, why: "set batching instead" },
            { name: "--batching_parameters_file", value: `${SERVER_CONFIG_DIR}/${BATCHING_CONFIG_FILE}`, why: "set batchingParametersFile instead" },
        );
    }
    return flags;
}

/**
 * Requests TF Serving replays at load for a warmup file of `records` records: none with warmup off, else each
 * record `--num_request_iterations_for_warmup` times (the last occurrence in `extraServerArgs`, as TensorFlow's
 * flag parser keeps it). The server passes the flag on only when it is above 0, and the replay's own default is
 * 1 (model_servers/server.cc, saved_model_warmup_util.cc).
 */
export function warmupReplays(records: number, warmup: Pick<ServerFlagInput, "enableWarmup" | "extraServerArgs">): number {
    if (!warmup.enableWarmup) {
        return 0;
    }
    let iterations = 1;
    for (const arg of warmup.extraServerArgs) {
        const match = /^--num_request_iterations_for_warmup=(-?\d+)$/.exec(arg);
        if (match) {
            const value = Number(match[1]);
            iterations = value > 0 ? value : 1;
        }
    }
    return records * iterations;
}

export function serverArgs(input: ServerFlagInput): string[] {
    return [...flagArgs(podServerFlags(input)), ...input.extraServerArgs];
}

/** Flags nothing here sets but that would fight what the pod does. */
const CONFLICTING_FLAGS: Readonly<Record<string, string>> = {
    "--per_process_gpu_memory_fraction": "GPU pods run with TF_FORCE_GPU_ALLOW_GROWTH=true, so TensorFlow takes GPU memory as it needs it",
};

/**
 * Every flag this program sets (rendered by the image's entrypoint and the pod, with every option
 * on), with what controls it; `extraServerArgs` may not repeat one: TF Serving takes the last
 * occurrence, so a repeat would silently win over the sizing or the image.
 */
export function managedFlags(): ReadonlyMap<string, string> {
    const threads = { intraOp: 1, interOp: 1, restApi: 1, grpcMax: 1 };
    const rendered = [
        ...imageServerFlags({ modelName: "m", versions: [1] }),
        ...imageServerFlags({ modelName: "m", versions: [1, 2] }),
        ...podServerFlags({ sizing: { threads }, batching: true, enableWarmup: true }),
    ];
    return new Map([...rendered.map((f): [string, string] => [f.name, f.why]), ...Object.entries(CONFLICTING_FLAGS)]);
}

/** `--monitoring_config_file` contents: Prometheus metrics on the REST port. */
export function monitoringConfig(): string {
    return `prometheus_config {\n  enable: true\n  path: "${METRICS_PATH}"\n}\n`;
}

/**
 * Default `--batching_parameters_file` contents, matched to the pod's CPUs: one batch thread per
 * CPU, a short timeout so a lone request is not held back long, and a bounded queue so overload
 * is refused rather than buffered into an OOM.
 */
export function defaultBatchingConfig(cpuCount: number): string {
    return [
        "max_batch_size { value: 32 }",
        "batch_timeout_micros { value: 2000 }",
        "max_enqueued_batches { value: 100 }",
        `num_batch_threads { value: ${cpuCount} }`,
        "pad_variable_length_inputs: true",
        "",
    ].join("\n");
}
