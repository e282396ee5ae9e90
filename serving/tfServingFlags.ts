/**
 * Every flag `tensorflow_model_server` declares (tensorflow_serving/model_servers/main.cc, with its
 * type), and how TensorFlow's flag parser (tensorflow/core/util/command_line_flags.cc) reads a value:
 * `--name=value` only (a bool may be `--name` alone). The two ways an extra flag goes wrong in the
 * cluster: an argument the parser does not know is only printed ("unknown argument") and the
 * server starts without it, so a misspelt flag silently does nothing; a value the parser cannot read
 * makes the server print its usage and exit, so every pod crash-loops. Both are refused at preview.
 * The e2e stand-in server (tools/e2e-env/go/tfserving-standin/flags.go) declares the same list; a
 * unit test keeps the two equal.
 */
import { closest } from "../contract/spelling";

export type FlagType = "bool" | "int32" | "int64" | "float" | "string";

export const TF_SERVING_FLAGS: Readonly<Record<string, FlagType>> = {
    port: "int32",
    grpc_socket_path: "string",
    rest_api_port: "int32",
    rest_api_num_threads: "int32",
    rest_api_timeout_in_ms: "int32",
    rest_api_enable_cors_support: "bool",
    enable_batching: "bool",
    allow_version_labels_for_unavailable_models: "bool",
    batching_parameters_file: "string",
    enable_per_model_batching_parameters: "bool",
    model_config_file: "string",
    model_config_file_poll_wait_seconds: "int32",
    model_name: "string",
    model_base_path: "string",
    num_load_threads: "int32",
    num_unload_threads: "int32",
    max_num_load_retries: "int32",
    load_retry_interval_micros: "int64",
    file_system_poll_wait_seconds: "int32",
    flush_filesystem_caches: "bool",
    tensorflow_session_parallelism: "int64",
    tensorflow_session_config_file: "string",
    tensorflow_intra_op_parallelism: "int64",
    tensorflow_inter_op_parallelism: "int64",
    use_alts_credentials: "bool",
    ssl_config_file: "string",
    platform_config_file: "string",
    per_process_gpu_memory_fraction: "float",
    saved_model_tags: "string",
    grpc_channel_arguments: "string",
    grpc_max_threads: "int32",
    enable_model_warmup: "bool",
    num_request_iterations_for_warmup: "int32",
    version: "bool",
    monitoring_config_file: "string",
    remove_unused_fields_from_bundle_metagraph: "bool",
    prefer_tflite_model: "bool",
    num_tflite_pools: "int32",
    num_tflite_interpreters_per_pool: "int32",
    enable_signature_method_name_check: "bool",
    xla_cpu_compilation_enabled: "bool",
    xla_gpu_compilation_enabled: "bool",
    enable_profiler: "bool",
    thread_pool_factory_config_file: "string",
    mixed_precision: "string",
    skip_initialize_tpu: "bool",
    enable_grpc_healthcheck_service: "bool",
    enable_serialization_as_tensor_content: "bool",
};

const INTEGER_BOUNDS: Record<"int32" | "int64", [bigint, bigint]> = {
    int32: [-(2n ** 31n), 2n ** 31n - 1n],
    int64: [-(2n ** 63n), 2n ** 63n - 1n],
};

/** Why TF Serving would not take `arg` as one of its flags, or undefined if it would. */
export function tfServingFlagProblem(arg: string): string | undefined {
    const match = /^--([A-Za-z0-9_]+)(?:=(.*))?$/s.exec(arg);
    if (!match) {
        return "must be a flag of the form --name=value";
    }
    const [, name, value] = match;
    const type = TF_SERVING_FLAGS[name];
    if (type === undefined) {
        const near = closest(name, Object.keys(TF_SERVING_FLAGS), 3);
        return `--${name} is not a tensorflow_model_server flag${near ? ` (did you mean --${near}?)` : ""}: TF Serving ignores arguments it does not know and starts without them`;
    }
    const valueProblem = value === undefined
        ? (type === "bool" ? undefined : `needs a value (--${name}=VALUE)`)
        : valueTypeProblem(type, value);
    return valueProblem === undefined ? undefined : `--${name} ${valueProblem}: TF Serving exits at start on a value it cannot read, so every pod would crash-loop`;
}

function valueTypeProblem(type: FlagType, value: string): string | undefined {
    switch (type) {
        case "string":
            return undefined;
        case "bool":
            return ["true", "false", "1", "0"].includes(value) ? undefined : `takes true or false, not "${value}"`;
        case "float":
            return /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(value) ? undefined : `takes a number such as 0.5, not "${value}"`;
        case "int32":
        case "int64": {
            const [min, max] = INTEGER_BOUNDS[type];
            const ok = /^[+-]?\d+$/.test(value) && BigInt(value) >= min && BigInt(value) <= max;
            return ok ? undefined : `takes a whole number${type === "int32" ? " (32-bit)" : ""} such as 30000, not "${value}"`;
        }
    }
}
