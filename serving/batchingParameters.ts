/**
 * A `--batching_parameters_file`'s text, read as TF Serving reads it at start: the server parses it as
 * a `BatchingParameters` text proto (tensorflow_serving/model_servers/server.cc,
 * `ParseProtoTextFile<BatchingParameters>`) and exits on a file it cannot parse, so every pod would
 * crash-loop. The schema is the message's fields as
 * tensorflow_serving/servables/tensorflow/session_bundle_config.proto declares them (the e2e stand-in
 * server, tools/e2e-env/go/tfserving-standin/config.go, accepts the same names).
 */
import * as protobuf from "protobufjs";
import * as textformat from "protobufjs/ext/textformat";

const SCHEMA = `
syntax = "proto3";
package google.protobuf;
message Int64Value { int64 value = 1; }
message StringValue { string value = 1; }
message BoolValue { bool value = 1; }
`;

const BATCHING_SCHEMA = `
syntax = "proto3";
package tensorflow.serving;
message BatchingParameters {
  google.protobuf.Int64Value max_batch_size = 1;
  google.protobuf.Int64Value batch_timeout_micros = 2;
  google.protobuf.Int64Value max_enqueued_batches = 3;
  google.protobuf.Int64Value num_batch_threads = 4;
  google.protobuf.StringValue thread_pool_name = 5;
  repeated int64 allowed_batch_sizes = 6;
  bool pad_variable_length_inputs = 7;
  google.protobuf.BoolValue enable_large_batch_splitting = 8;
  google.protobuf.Int64Value max_execution_batch_size = 9;
}
`;

const root = protobuf.parse(SCHEMA, { keepCase: true }).root;
protobuf.parse(BATCHING_SCHEMA, root, { keepCase: true });
root.resolveAll();
const batchingParametersType = root.lookupType("tensorflow.serving.BatchingParameters");

/** Why TF Serving would not start with `text` as its batching parameters file, or undefined when it would. */
export function batchingParametersProblem(text: string): string | undefined {
    try {
        textformat.fromText(batchingParametersType, text);
        return undefined;
    } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        return `does not parse as a BatchingParameters text proto (${reason}), and TF Serving exits at start on a batching parameters file it cannot parse, ` +
            "so every pod would crash-loop: write fields such as `max_batch_size { value: 32 }` " +
            "(tensorflow_serving/servables/tensorflow/session_bundle_config.proto; docs/reference/configuration.md)";
    }
}
