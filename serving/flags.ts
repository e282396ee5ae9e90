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

export interface ServerFlagInput {
    sizing: Sizing;
    batching: boolean;
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
    ];
    if (input.batching) {
        args.push("--enable_batching=true", `--batching_parameters_file=${SERVER_CONFIG_DIR}/${BATCHING_CONFIG_FILE}`);
    }
    if (input.enableWarmup) {
        args.push("--enable_model_warmup=true");
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
