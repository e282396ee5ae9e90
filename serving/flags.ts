/**
 * The `tensorflow_model_server` flags a pod adds to its image's entrypoint, and the text-proto
 * files those flags point at. The image bakes only what never changes (ports, model path);
 * everything sized from the pod's resources is passed here, so resizing rolls pods without a rebuild.
 */
import { Sizing } from "../model/sizing";

/** Where the pod mounts its server configuration (a ConfigMap). */
export const SERVER_CONFIG_DIR = "/etc/tf-serving";
export const MONITORING_CONFIG_FILE = "monitoring.config";
export const BATCHING_CONFIG_FILE = "batching.config";
/** Prometheus metrics path on the REST port. */
export const METRICS_PATH = "/monitoring/prometheus/metrics";

/**
 * Every flag this program sets, with what controls it; `extraServerArgs` may not repeat one (TF
 * Serving takes the last occurrence, so a repeat would silently win over the sizing or the image).
 * The image's entrypoint sets the first group (`serving/dockerfile.ts`), `serverArgs` the rest.
 */
export const MANAGED_FLAGS: Readonly<Record<string, string>> = {
    "--port": "the gRPC port is fixed at 8500 (the Service, probes and NetworkPolicy use it)",
    "--rest_api_port": "the REST port is fixed at 8501 (the Service, probes and NetworkPolicy use it)",
    "--model_name": "set modelName (or models[i].name) instead",
    "--model_base_path": "set modelPath (or models[i].path) instead",
    "--model_config_file": "set versions and versionLabels instead",
    "--file_system_poll_wait_seconds": "the model is baked into the image, so the server looks for versions once",
    "--monitoring_config_file": `Prometheus metrics are always on, at ${METRICS_PATH}`,
    "--enable_batching": "set batching instead",
    "--batching_parameters_file": "set batchingParametersFile instead",
    "--tensorflow_intra_op_parallelism": "threads follow the CPU limit: set cpu instead",
    "--tensorflow_inter_op_parallelism": "threads follow the CPU limit: set cpu instead",
    "--rest_api_num_threads": "threads follow the CPU limit: set cpu instead",
    "--grpc_max_threads": "threads follow the CPU limit: set cpu instead",
    "--enable_model_warmup": "set enableWarmup (true or false) instead",
    "--per_process_gpu_memory_fraction": "GPU pods run with TF_FORCE_GPU_ALLOW_GROWTH=true, so TensorFlow takes GPU memory as it needs it",
};

export interface ServerFlagInput {
    sizing: Sizing;
    batching: boolean;
    /** Replay the model's warmup requests at load; TF Serving's own default is true (server.h). */
    enableWarmup: boolean;
    extraServerArgs: string[];
}

export function serverArgs(input: ServerFlagInput): string[] {
    const { threads } = input.sizing;
    const args = [
        `--tensorflow_intra_op_parallelism=${threads.intraOp}`,
        `--tensorflow_inter_op_parallelism=${threads.interOp}`,
        `--rest_api_num_threads=${threads.restApi}`,
        `--grpc_max_threads=${threads.grpcMax}`,
        `--monitoring_config_file=${SERVER_CONFIG_DIR}/${MONITORING_CONFIG_FILE}`,
        // Always explicit: only `=false` changes what the server does, and saying `=true` too keeps
        // the pod's behaviour readable in `kubectl describe` whatever a future release defaults to.
        `--enable_model_warmup=${input.enableWarmup}`,
    ];
    if (input.batching) {
        args.push("--enable_batching=true", `--batching_parameters_file=${SERVER_CONFIG_DIR}/${BATCHING_CONFIG_FILE}`);
    }
    return [...args, ...input.extraServerArgs];
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
