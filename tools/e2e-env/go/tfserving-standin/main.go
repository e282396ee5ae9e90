// Command tensorflow_model_server is a stand-in for TensorFlow Serving's
// server, installed at /usr/bin/tensorflow_model_server in the e2e
// environment's tensorflow/serving image (the real image cannot be pulled
// here). It behaves like the real server wherever the product depends on it:
//
//   - flags: the real server's whole flag list with its types and defaults,
//     parsed as TensorFlow's command_line_flags.cc parses them. A malformed
//     value of a known flag (or --help) prints the usage and exits 255; an
//     unknown argument prints "unknown argument: ARG" and the usage, and the
//     server starts anyway, as the real main.cc does (it does not return);
//   - models: --model_name/--model_base_path, or --model_config_file with
//     model_version_policy (latest N, all, specific) and version_labels;
//     --monitoring_config_file and --batching_parameters_file are read and
//     a bad one stops the start;
//   - version folders: children of the base path whose names parse as int64;
//     other names are ignored. With none it logs "No versions of servable NAME
//     found under base path PATH. Did you forget to name your leaf directory
//     as a number (eg. '/1/')?" at every poll (once with
//     --file_system_poll_wait_seconds=0) and never opens its ports; a base
//     path that does not exist is a "filesystem access error";
//   - loading: saved_model.pb is decoded (protobuf wire format) for its
//     MetaGraphDefs, the one tagged --saved_model_tags is used; every
//     variables/ file is read into memory and stays resident, each tensor's
//     CRC32C is verified, so memory and load time grow with the model (a
//     container limit below the model is a real OOMKilled). A load error is
//     retried --max_num_load_retries times, --load_retry_interval_micros
//     apart, then the start fails: "Failed to start server. Error: ...", exit
//     255. With periodic polling, new versions load while the old ones serve
//     (LOADING next to AVAILABLE) and replace them;
//   - ports: gRPC and REST open only once every model's versions are
//     AVAILABLE;
//   - signals: no handler for SIGTERM or SIGINT (tensorflow/serving#1853): as
//     PID 1 of a container it ignores SIGTERM and is killed at the end of the
//     grace period; otherwise SIGTERM's default action ends it;
//   - REST: GET /v1/models/NAME[/versions/N|/labels/L] (every version's
//     state, 404 for an unknown model), .../metadata (the signature_defs of
//     the decoded graph, in TF Serving's JSON shape), POST ...:predict with
//     "instances" or "inputs", computed by evaluating the graph's arithmetic
//     ops on the restored variables (the fixtures' half_plus_two and
//     half_plus_three), errors as {"error": "..."}; the monitoring config's
//     Prometheus path with the names and labels of TF Serving's exporter
//     (metrics.go): request_count (every REST request under /v1/, the
//     status GETs included, and every gRPC Predict), request_latency of
//     successful calls (REST with entrypoint "REST" and API "predict", or ""
//     for a GET; gRPC Predicts with entrypoint "GRPC" and API "Predict"),
//     load_attempt_count and load_latency;
//   - gRPC (HTTP/2 without TLS, unary): PredictionService's Predict and
//     GetModelMetadata and ModelService's GetModelStatus with TF Serving's
//     messages (grpc.go), the same graph evaluation as REST, the real
//     server's status codes and messages (a signature the model lacks is
//     FAILED_PRECONDITION over gRPC, INVALID_ARGUMENT over REST).
//
// Not done: grpc.health.v1, reflection, --ssl_config_file, Classify,
// Regress and MultiInference (UNIMPLEMENTED), :classify and :regress, ops
// other than elementwise arithmetic (ParseExample, functions of TF2 exports),
// batching, --rest_api_timeout_in_ms, saved_model.pbtxt.
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"
)

// standinVersion is what --version reports: the pinned release it stands in for
// (serving/images.ts TF_SERVING_VERSION; test/unit/serving/images.test.ts keeps them equal).
const standinVersion = "2.21.0-standin"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the server's main: it returns only when the server cannot start.
func run(args []string, stdout, stderr io.Writer) int {
	opts, unknown, ok := parseArgs(args, stderr)
	if !ok {
		fmt.Fprint(stdout, usage(defaultOptions()))
		return 255
	}
	if opts.version {
		fmt.Fprintf(stdout, "TensorFlow ModelServer: %s\nTensorFlow Library: stand-in\n", standinVersion)
		return 0
	}
	if len(unknown) > 0 {
		fmt.Fprintf(stdout, "unknown argument: %s\n%s", unknown[0], usage(defaultOptions()))
	}
	s, err := newServer(opts, stderr)
	if err == nil {
		err = s.waitForInitialModels()
	}
	if err == nil {
		err = s.serve()
	}
	fmt.Fprintf(stdout, "Failed to start server. Error: %v\n", err)
	return 255
}

// serve opens the ports and serves until a listener fails.
func (s *server) serve() error {
	go s.pollForever()
	errs := make(chan error, 2)
	if s.opts.grpcPort != 0 {
		ln, err := net.Listen("tcp", fmt.Sprintf("0.0.0.0:%d", s.opts.grpcPort))
		if err != nil {
			return fmt.Errorf("UNAVAILABLE: Failed to BuildAndStart gRPC server: %v", err)
		}
		s.logf('I', "tensorflow_serving/model_servers/server.cc", "Running gRPC ModelServer at 0.0.0.0:%d ...", s.opts.grpcPort)
		srv := s.grpcServer()
		go func() { errs <- srv.Serve(ln) }()
	}
	switch {
	case s.opts.httpPort == 0:
	case s.opts.httpPort == s.opts.grpcPort:
		s.logf('E', "tensorflow_serving/model_servers/server.cc", "--rest_api_port cannot be same as --port. Please use a different port for HTTP/REST API. Skipped exporting HTTP/REST API.")
	default:
		ln, err := net.Listen("tcp", fmt.Sprintf("0.0.0.0:%d", s.opts.httpPort))
		if err != nil {
			s.logf('E', "tensorflow_serving/model_servers/server.cc", "Failed to start HTTP Server at localhost:%d", s.opts.httpPort)
			break
		}
		s.logf('I', "tensorflow_serving/model_servers/server.cc", "Exporting HTTP/REST API at:localhost:%d ...", s.opts.httpPort)
		srv := &http.Server{Handler: s.handler(), ReadHeaderTimeout: 10 * time.Second}
		go func() { errs <- srv.Serve(ln) }()
	}
	if s.opts.grpcPort == 0 && s.opts.httpPort == 0 {
		waitForever()
	}
	return <-errs
}
