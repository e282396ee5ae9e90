package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The server's command line, as tensorflow_serving/model_servers/main.cc
// declares it (names, types, defaults), parsed the way
// tensorflow/core/util/command_line_flags.cc parses: "--name=value" only (a
// bool may be "--name" alone), first matching flag wins; a bad value of a
// known flag fails the parse (usage, exit 255); an unknown argument is only
// reported ("unknown argument: ..." and the usage on stdout) and the server
// starts anyway.

type options struct {
	grpcPort, httpPort, httpNumThreads, httpTimeoutMs              int64
	grpcSocketPath                                                 string
	enableCors, enableBatching, allowLabelsForUnavailable          bool
	batchingParametersFile                                         string
	perModelBatching                                               bool
	modelConfigFile                                                string
	modelConfigPollSeconds                                         int64
	modelName, modelBasePath                                       string
	numLoadThreads, numUnloadThreads, maxNumLoadRetries            int64
	loadRetryIntervalMicros                                        int64
	fileSystemPollWaitSeconds                                      int64
	flushFilesystemCaches                                          bool
	sessionParallelism                                             int64
	sessionConfigFile                                              string
	intraOpParallelism, interOpParallelism                         int64
	useAlts                                                        bool
	sslConfigFile, platformConfigFile                              string
	perProcessGPUMemoryFraction                                    float64
	savedModelTags, grpcChannelArguments                           string
	grpcMaxThreads                                                 int64
	enableModelWarmup                                              bool
	warmupIterations                                               int64
	version                                                        bool
	monitoringConfigFile                                           string
	removeUnusedFields, preferTflite                               bool
	numTflitePools, numTfliteInterpreters                          int64
	signatureMethodNameCheck, xlaCPU, xlaGPU, enableProfiler       bool
	threadPoolFactoryConfigFile, mixedPrecision                    string
	skipInitializeTPU, grpcHealthcheck, serializationTensorContent bool
}

type flagKind int

const (
	kindBool flagKind = iota
	kindInt32
	kindInt64
	kindFloat
	kindString
)

var kindNames = map[flagKind]string{kindBool: "bool", kindInt32: "int32", kindInt64: "int64", kindFloat: "float", kindString: "string"}

type flagDef struct {
	name   string
	kind   flagKind
	target any // *bool, *int64, *float64 or *string
	help   string
}

func defaultOptions() *options {
	return &options{
		grpcPort: 8500, httpTimeoutMs: 30000, modelName: "default", maxNumLoadRetries: 5,
		loadRetryIntervalMicros: 60_000_000, fileSystemPollWaitSeconds: 1, flushFilesystemCaches: true,
		savedModelTags: "serve", enableModelWarmup: true, numTfliteInterpreters: 1,
	}
}

func flagTable(o *options) []flagDef {
	return []flagDef{
		{"port", kindInt32, &o.grpcPort, "TCP port to listen on for gRPC/HTTP API. Disabled if port set to zero."},
		{"grpc_socket_path", kindString, &o.grpcSocketPath, "If non-empty, listen to a UNIX socket for gRPC API on the given path."},
		{"rest_api_port", kindInt32, &o.httpPort, "Port to listen on for HTTP/REST API. If set to zero HTTP/REST API will not be exported. This port must be different than the one specified in --port."},
		{"rest_api_num_threads", kindInt32, &o.httpNumThreads, "Number of threads for HTTP/REST API processing. If not set, will be auto set based on number of CPUs."},
		{"rest_api_timeout_in_ms", kindInt32, &o.httpTimeoutMs, "Timeout for HTTP/REST API calls."},
		{"rest_api_enable_cors_support", kindBool, &o.enableCors, "Enable CORS headers in response"},
		{"enable_batching", kindBool, &o.enableBatching, "enable batching"},
		{"allow_version_labels_for_unavailable_models", kindBool, &o.allowLabelsForUnavailable, "If true, allows assigning unused version labels to models that are not available yet."},
		{"batching_parameters_file", kindString, &o.batchingParametersFile, "If non-empty, read an ascii BatchingParameters protobuf from the supplied file name and use the contained values instead of the defaults."},
		{"enable_per_model_batching_parameters", kindBool, &o.perModelBatching, "Enables model specific batching params."},
		{"model_config_file", kindString, &o.modelConfigFile, "If non-empty, read an ascii ModelServerConfig protobuf from the supplied file name, and serve the models in that file. (If used, --model_name, --model_base_path are ignored.)"},
		{"model_config_file_poll_wait_seconds", kindInt32, &o.modelConfigPollSeconds, "Interval in seconds between each poll of the filesystem for model_config_file. If unset or set to zero, poll will be done exactly once and not periodically."},
		{"model_name", kindString, &o.modelName, "name of model (ignored if --model_config_file flag is set)"},
		{"model_base_path", kindString, &o.modelBasePath, "path to export (ignored if --model_config_file flag is set, otherwise required)"},
		{"num_load_threads", kindInt32, &o.numLoadThreads, "The number of threads in the thread-pool used to load servables."},
		{"num_unload_threads", kindInt32, &o.numUnloadThreads, "The number of threads in the thread-pool used to unload servables."},
		{"max_num_load_retries", kindInt32, &o.maxNumLoadRetries, "maximum number of times it retries loading a model after the first failure, before giving up. If set to 0, a load is attempted only once. Default: 5"},
		{"load_retry_interval_micros", kindInt64, &o.loadRetryIntervalMicros, "The interval, in microseconds, between each servable load retry. If set negative, it doesn't wait. Default: 1 minute"},
		{"file_system_poll_wait_seconds", kindInt32, &o.fileSystemPollWaitSeconds, "Interval in seconds between each poll of the filesystem for new model version. If set to zero poll will be exactly done once and not periodically. Setting this to negative value will disable polling entirely."},
		{"flush_filesystem_caches", kindBool, &o.flushFilesystemCaches, "If true (the default), filesystem caches will be flushed after the initial load of all servables."},
		{"tensorflow_session_parallelism", kindInt64, &o.sessionParallelism, "Number of threads to use for running a Tensorflow session. Auto-configured by default."},
		{"tensorflow_session_config_file", kindString, &o.sessionConfigFile, "If non-empty, read an ascii TensorFlow Session ConfigProto protobuf from the supplied file name."},
		{"tensorflow_intra_op_parallelism", kindInt64, &o.intraOpParallelism, "Number of threads to use to parallelize the execution of an individual op. Auto-configured by default."},
		{"tensorflow_inter_op_parallelism", kindInt64, &o.interOpParallelism, "Controls the number of operators that can be executed simultaneously. Auto-configured by default."},
		{"use_alts_credentials", kindBool, &o.useAlts, "Use Google ALTS credentials"},
		{"ssl_config_file", kindString, &o.sslConfigFile, "If non-empty, read an ascii SSLConfig protobuf from the supplied file name and set up a secure gRPC channel"},
		{"platform_config_file", kindString, &o.platformConfigFile, "If non-empty, read an ascii PlatformConfigMap protobuf from the supplied file name."},
		{"per_process_gpu_memory_fraction", kindFloat, &o.perProcessGPUMemoryFraction, "Fraction that each process occupies of the GPU memory space the value is between 0.0 and 1.0 (with 0.0 as the default)."},
		{"saved_model_tags", kindString, &o.savedModelTags, "Comma-separated set of tags corresponding to the meta graph def to load from SavedModel."},
		{"grpc_channel_arguments", kindString, &o.grpcChannelArguments, "A comma separated list of arguments to be passed to the grpc server. (e.g. grpc.max_connection_age_ms=2000)"},
		{"grpc_max_threads", kindInt32, &o.grpcMaxThreads, "Max grpc server threads to handle grpc messages."},
		{"enable_model_warmup", kindBool, &o.enableModelWarmup, "Enables model warmup, which triggers lazy initializations (such as TF optimizations) at load time, to reduce first request latency."},
		{"num_request_iterations_for_warmup", kindInt32, &o.warmupIterations, "Number of times a request is iterated during warmup replay. This value is used only if > 0."},
		{"version", kindBool, &o.version, "Display version"},
		{"monitoring_config_file", kindString, &o.monitoringConfigFile, "If non-empty, read an ascii MonitoringConfig protobuf from the supplied file name"},
		{"remove_unused_fields_from_bundle_metagraph", kindBool, &o.removeUnusedFields, "Removes unused fields from MetaGraphDef proto message to save memory."},
		{"prefer_tflite_model", kindBool, &o.preferTflite, "EXPERIMENTAL; CAN BE REMOVED ANYTIME! Prefer TensorFlow Lite model from `model.tflite` file in SavedModel directory."},
		{"num_tflite_pools", kindInt32, &o.numTflitePools, "EXPERIMENTAL; CAN BE REMOVED ANYTIME! Number of TFLite interpreters in an interpreter pool of TfLiteSession."},
		{"num_tflite_interpreters_per_pool", kindInt32, &o.numTfliteInterpreters, "EXPERIMENTAL; CAN BE REMOVED ANYTIME! Number of TFLite interpreters per pool."},
		{"enable_signature_method_name_check", kindBool, &o.signatureMethodNameCheck, "Enable method_name check for SignatureDef."},
		{"xla_cpu_compilation_enabled", kindBool, &o.xlaCPU, "EXPERIMENTAL; CAN BE REMOVED ANYTIME! Enable XLA:CPU JIT (default is disabled)."},
		{"xla_gpu_compilation_enabled", kindBool, &o.xlaGPU, "EXPERIMENTAL; CAN BE REMOVED ANYTIME! Enable both XLA:CPU JIT and XLA:GPU JIT (default is disabled)."},
		{"enable_profiler", kindBool, &o.enableProfiler, "Enable profiler service."},
		{"thread_pool_factory_config_file", kindString, &o.threadPoolFactoryConfigFile, "If non-empty, read an ascii ThreadPoolConfig protobuf from the supplied file name."},
		{"mixed_precision", kindString, &o.mixedPrecision, "specify mixed_precision mode"},
		{"skip_initialize_tpu", kindBool, &o.skipInitializeTPU, "Whether to skip auto initializing TPU."},
		{"enable_grpc_healthcheck_service", kindBool, &o.grpcHealthcheck, "Enable the standard gRPC healthcheck service."},
		{"enable_serialization_as_tensor_content", kindBool, &o.serializationTensorContent, "Enable serialization of predict response as tensor content."},
	}
}

// parseArgs parses args (without the program name). ok is false when a known
// flag has a value it cannot read, or the first leftover argument is --help;
// unknown holds every argument no flag took, in order.
func parseArgs(args []string, stderr io.Writer) (o *options, unknown []string, ok bool) {
	o = defaultOptions()
	table := flagTable(o)
	ok = true
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			unknown = append(unknown, args[i:]...)
			break
		}
		found := false
		for _, f := range table {
			var valueOK bool
			if found, valueOK = f.parse(arg, stderr); found {
				ok = ok && valueOK
				break
			}
		}
		if !found {
			unknown = append(unknown, arg)
		}
	}
	if len(unknown) > 0 && unknown[0] == "--help" {
		ok = false
	}
	return o, unknown, ok
}

func (f flagDef) parse(arg string, stderr io.Writer) (found, ok bool) {
	prefix := "--" + f.name
	if f.kind == kindBool && arg == prefix {
		*f.target.(*bool) = true
		return true, true
	}
	value, has := strings.CutPrefix(arg, prefix+"=")
	if !has {
		return false, false
	}
	var err error
	switch t := f.target.(type) {
	case *bool:
		switch value {
		case "true", "1":
			*t = true
		case "false", "0":
			*t = false
		default:
			err = fmt.Errorf("bad bool")
		}
	case *int64:
		bits := 64
		if f.kind == kindInt32 {
			bits = 32
		}
		var v int64
		if v, err = strconv.ParseInt(value, 10, bits); err == nil {
			*t = v
		}
	case *float64:
		var v float64
		if v, err = strconv.ParseFloat(value, 32); err == nil {
			*t = v
		}
	case *string:
		*t = value
	}
	if err != nil {
		logf(stderr, 'E', "command_line_flags.cc", "Couldn't interpret value %s for flag %s.", value, f.name)
		return true, false
	}
	return true, true
}

// usage is the text the server prints for --help and after a flag error.
func usage(o *options) string {
	var b strings.Builder
	b.WriteString("usage: tensorflow_model_server\nFlags:\n")
	for _, f := range flagTable(o) {
		var def string
		switch t := f.target.(type) {
		case *bool:
			def = strconv.FormatBool(*t)
		case *int64:
			def = strconv.FormatInt(*t, 10)
		case *float64:
			def = strconv.FormatFloat(*t, 'g', -1, 64)
		case *string:
			def = strconv.Quote(*t)
		}
		fmt.Fprintf(&b, "\t--%s=%s\t%s\t%s\n", f.name, def, kindNames[f.kind], f.help)
	}
	return b.String()
}
