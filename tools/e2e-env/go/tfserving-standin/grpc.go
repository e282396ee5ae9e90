package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// gRPC on --port, as TF Serving answers it: tensorflow.serving.PredictionService
// (Predict, GetModelMetadata) and tensorflow.serving.ModelService
// (GetModelStatus), following prediction_service_impl.cc,
// model_service_impl.cc, predict_util.cc, get_model_metadata_impl.cc and
// get_model_status_impl.cc. The transport is HTTP/2 without TLS (the real
// server's default, without --ssl_config_file), unary calls only; messages
// are read and written in the protobuf wire format with the field numbers of
// tensorflow_serving/apis/{model,predict,get_model_metadata,get_model_status}.proto
// and tensorflow_serving/util/status.proto, so any gRPC client with TF
// Serving's .proto files talks to it.

const (
	predictionService  = "/tensorflow.serving.PredictionService/"
	modelService       = "/tensorflow.serving.ModelService/"
	predictMethod      = "tensorflow/serving/predict"
	signatureDefMapURL = "type.googleapis.com/tensorflow.serving.SignatureDefMap"
	// grpcMessageLimit is where ToGRPCStatus cuts an error message.
	grpcMessageLimit = 1024
)

// grpcCodes are the status codes, shared by gRPC and tensorflow.error.Code.
var grpcCodes = map[string]int{
	"OK": 0, "CANCELLED": 1, "UNKNOWN": 2, "INVALID_ARGUMENT": 3, "DEADLINE_EXCEEDED": 4, "NOT_FOUND": 5,
	"ALREADY_EXISTS": 6, "PERMISSION_DENIED": 7, "RESOURCE_EXHAUSTED": 8, "FAILED_PRECONDITION": 9, "ABORTED": 10,
	"OUT_OF_RANGE": 11, "UNIMPLEMENTED": 12, "INTERNAL": 13, "UNAVAILABLE": 14, "DATA_LOSS": 15, "UNAUTHENTICATED": 16,
}

// modelVersionStates are ModelVersionStatus.State's numbers.
var modelVersionStates = map[string]uint64{"START": 10, "LOADING": 20, "AVAILABLE": 30, "UNLOADING": 40, "END": 50}

func (s *server) grpcServer() *http.Server {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	return &http.Server{Handler: http.HandlerFunc(s.serveGRPC), Protocols: &p, ReadHeaderTimeout: 10 * time.Second}
}

// errorCode is a status error's code name and message.
func errorCode(err error) (string, string) {
	if se, ok := err.(*statusError); ok {
		return se.code, se.msg
	}
	return splitStatus(err.Error())
}

func (s *server) serveGRPC(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc") {
		http.Error(w, "not a gRPC request", http.StatusUnsupportedMediaType)
		return
	}
	body, err := io.ReadAll(r.Body)
	var out []byte
	if err == nil {
		var msg []byte
		if msg, err = unframe(body); err == nil {
			out, err = s.grpcCall(r.URL.Path, msg)
		}
	}
	w.Header().Set("Content-Type", "application/grpc")
	if err != nil {
		// Trailers-only: the status in the one HEADERS frame, no message.
		code, msg := errorCode(err)
		if len(msg) > grpcMessageLimit {
			msg = msg[:grpcMessageLimit] + "...TRUNCATED"
		}
		n, ok := grpcCodes[code]
		if !ok {
			n = grpcCodes["UNKNOWN"]
		}
		w.Header().Set("Grpc-Status", strconv.Itoa(n))
		w.Header().Set("Grpc-Message", percentEncode(msg))
		w.WriteHeader(http.StatusOK)
		return
	}
	w.WriteHeader(http.StatusOK)
	frame := binary.BigEndian.AppendUint32([]byte{0}, uint32(len(out)))
	_, _ = w.Write(append(frame, out...))
	w.Header().Set(http.TrailerPrefix+"Grpc-Status", "0")
}

// unframe reads the one length-prefixed message of a unary call.
func unframe(b []byte) ([]byte, error) {
	if len(b) < 5 || uint64(len(b)-5) != uint64(binary.BigEndian.Uint32(b[1:5])) {
		return nil, &statusError{"INTERNAL", "the stand-in reads exactly one gRPC message per call"}
	}
	if b[0] != 0 {
		return nil, &statusError{"UNIMPLEMENTED", "the tensorflow_model_server stand-in reads uncompressed messages only"}
	}
	return b[5:], nil
}

// percentEncode escapes grpc-message as the gRPC HTTP/2 protocol asks.
func percentEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == '%' {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

func (s *server) grpcCall(path string, req []byte) ([]byte, error) {
	switch path {
	case predictionService + "Predict":
		started := time.Now()
		spec, out, err := s.grpcPredict(req)
		status := "OK"
		if err != nil {
			status, _ = errorCode(err)
		} else {
			s.metrics.requestLatency(spec.name, "Predict", "GRPC", time.Since(started).Microseconds())
		}
		s.metrics.request(spec.name, status)
		return out, err
	case predictionService + "GetModelMetadata":
		return s.grpcMetadata(req)
	case modelService + "GetModelStatus":
		return s.grpcModelStatus(req)
	case predictionService + "Classify", predictionService + "Regress", predictionService + "MultiInference", modelService + "HandleReloadConfigRequest":
		return nil, &statusError{"UNIMPLEMENTED", "the tensorflow_model_server stand-in serves Predict, GetModelMetadata and GetModelStatus only, not " + path[strings.LastIndex(path, "/")+1:]}
	}
	return nil, &statusError{"UNIMPLEMENTED", ""}
}

// modelSpec is tensorflow.serving.ModelSpec: name 1, version 2 (an
// Int64Value) or version_label 4, signature_name 3.
type modelSpec struct {
	name, label, signature string
	version                int64
	hasVersion             bool
}

func parseModelSpec(b []byte) (modelSpec, error) {
	var m modelSpec
	err := walkMessage(b, func(f wireField) error {
		switch f.num {
		case 1:
			m.name = string(f.bytes)
		case 2:
			m.hasVersion, m.label, m.version = true, "", 0
			return walkMessage(f.bytes, func(g wireField) error {
				if g.num == 1 {
					m.version = int64(g.varint)
				}
				return nil
			})
		case 3:
			m.signature = string(f.bytes)
		case 4:
			m.hasVersion, m.label = false, string(f.bytes)
		}
		return nil
	})
	return m, err
}

func (m modelSpec) versionString() string {
	if !m.hasVersion {
		return ""
	}
	return strconv.FormatInt(m.version, 10)
}

// encodeModelSpec writes the effective spec of an answer (name, version,
// and the signature when one is given).
func encodeModelSpec(name string, version int64, signature string) []byte {
	b := appendStringField(nil, 1, name)
	b = appendBytesField(b, 2, appendVarintField(nil, 1, uint64(version)))
	if signature != "" {
		b = appendStringField(b, 3, signature)
	}
	return b
}

func badRequest(err error) error {
	return &statusError{"INVALID_ARGUMENT", "the request is not a valid message: " + err.Error()}
}

// readRequest walks a request whose model_spec is field 1, as in every
// request the stand-in answers, and hands each other field to rest. The spec
// read so far comes back with an error too, so that Predict's metrics name
// the model of a failed call.
func readRequest(req []byte, rest func(wireField) error) (modelSpec, error) {
	var spec modelSpec
	hasSpec := false
	err := walkMessage(req, func(f wireField) error {
		if f.num == 1 {
			var err error
			spec, err = parseModelSpec(f.bytes)
			hasSpec = true
			return err
		}
		return rest(f)
	})
	if err != nil {
		return spec, badRequest(err)
	}
	if !hasSpec {
		return spec, invalidArgument("Missing ModelSpec")
	}
	return spec, nil
}

// predictCall is a PredictRequest read from the wire (model_spec 1,
// inputs 2, output_filter 3).
type predictCall struct {
	spec    modelSpec
	hasSpec bool
	inputs  map[string][]byte
	filter  []string
}

func parsePredictRequest(req []byte) (predictCall, error) {
	r := predictCall{inputs: map[string][]byte{}}
	err := walkMessage(req, func(f wireField) error {
		switch f.num {
		case 1:
			var err error
			r.spec, err = parseModelSpec(f.bytes)
			r.hasSpec = true
			return err
		case 2:
			k, v, err := mapEntry(f.bytes)
			r.inputs[k] = v
			return err
		case 3:
			r.filter = append(r.filter, string(f.bytes))
		}
		return nil
	})
	if err != nil {
		return r, badRequest(err)
	}
	return r, nil
}

// grpcPredict answers a PredictRequest on the version its model_spec names.
func (s *server) grpcPredict(req []byte) (modelSpec, []byte, error) {
	r, err := parsePredictRequest(req)
	if err != nil {
		return r.spec, nil, err
	}
	if !r.hasSpec {
		return r.spec, nil, invalidArgument("Missing ModelSpec")
	}
	v, err := s.servingVersion(r.spec.name, r.spec.versionString(), r.spec.label)
	if err != nil {
		return r.spec, nil, err
	}
	time.Sleep(v.loaded.delay)
	sigName, outputs, err := v.loaded.runPredict(r)
	if err != nil {
		return r.spec, nil, err
	}
	return r.spec, appendBytesField(outputs, 2, encodeModelSpec(r.spec.name, v.version, sigName)), nil
}

// runPredict evaluates a request on one loaded version, as predict_util.cc's
// RunPredict does for both a client's call and a warmup record: the
// signature (serving_default when the request names none), exactly its
// inputs with its dtypes, then each output asked for. It returns the
// signature used and the PredictResponse's outputs (field 1 entries).
func (lv *loadedVersion) runPredict(r predictCall) (string, []byte, error) {
	sigName := r.spec.signature
	if sigName == "" {
		sigName = "serving_default"
	}
	sig, ok := lv.graph.signatures[sigName]
	if !ok {
		return sigName, nil, &statusError{"FAILED_PRECONDITION", fmt.Sprintf("Serving signature key \"%s\" not found.", sigName)}
	}
	if sig.methodName != predictMethod && sig.methodName != "tensorflow/serving/classify" && sig.methodName != "tensorflow/serving/regress" {
		return sigName, nil, &statusError{"INTERNAL", "Expected prediction signature method_name to be one of {tensorflow/serving/predict, tensorflow/serving/classify, tensorflow/serving/regress}. Was: " + sig.methodName}
	}
	sent, wanted := sortedKeys(r.inputs), sortedKeys(sig.inputs)
	if len(sent) != len(wanted) {
		return sigName, nil, invalidArgument("input size does not match signature: %d!=%d len({%s}) != len({%s}). Sent extra: {%s}. Missing but required: {%s}.",
			len(sent), len(wanted), strings.Join(sent, ","), strings.Join(wanted, ","),
			strings.Join(missingFrom(sent, sig.inputs), ","), strings.Join(missingFrom(wanted, r.inputs), ","))
	}
	feeds := map[string]any{}
	for _, alias := range sent {
		info, ok := sig.inputs[alias]
		if !ok {
			return sigName, nil, invalidArgument("input tensor alias not found in signature: %s. Inputs expected to be in the set {%s}.", alias, strings.Join(wanted, ","))
		}
		t, dtype, err := readTensor(r.inputs[alias])
		switch {
		case err == errUnsupportedDtype:
			return sigName, nil, &statusError{"UNIMPLEMENTED", fmt.Sprintf("the tensorflow_model_server stand-in computes on numeric tensors only, not %s (input %s)", dataTypeName(dtype), alias)}
		case err != nil:
			return sigName, nil, invalidArgument("tensor parsing error: %s", alias)
		case dtype != info.dtype:
			return sigName, nil, invalidArgument("Expects arg[%d] to be %s but %s is provided", indexOf(wanted, alias), dtypeString(info.dtype), dtypeString(dtype))
		}
		feeds[feedName(info.name)] = toNested(t)
	}
	outputs, err := outputAliases(sig, r.filter)
	if err != nil {
		return sigName, nil, err
	}
	var resp []byte
	for _, alias := range outputs {
		value, err := lv.evaluate(sig.outputs[alias].name, feeds)
		if err != nil {
			return sigName, nil, err
		}
		t, err := encodeTensor(sig.outputs[alias].dtype, value)
		if err != nil {
			return sigName, nil, &statusError{"UNIMPLEMENTED", fmt.Sprintf("the tensorflow_model_server stand-in writes numeric tensors only, not %s (output %s)", dataTypeName(sig.outputs[alias].dtype), alias)}
		}
		resp = appendMapEntry(resp, 1, alias, t)
	}
	return sigName, resp, nil
}

// outputAliases are the outputs a request fetches: its filter, or every
// output of the signature.
func outputAliases(sig signatureDef, filter []string) ([]string, error) {
	if len(filter) == 0 {
		return sortedKeys(sig.outputs), nil
	}
	seen := map[string]bool{}
	for _, alias := range filter {
		if _, ok := sig.outputs[alias]; !ok {
			return nil, invalidArgument("output tensor alias not found in signature: %s Outputs expected to be in the set {%s}.", alias, strings.Join(sortedKeys(sig.outputs), ","))
		}
		if seen[alias] {
			return nil, invalidArgument("duplicate output tensor alias: %s", alias)
		}
		seen[alias] = true
	}
	return filter, nil
}

func missingFrom[V any](keys []string, in map[string]V) []string {
	var out []string
	for _, k := range keys {
		if _, ok := in[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}

func indexOf(list []string, s string) int {
	return sort.SearchStrings(list, s)
}

// dtypeString is TensorFlow's DataTypeString: "float" for DT_FLOAT.
func dtypeString(t int) string {
	return strings.ToLower(strings.TrimPrefix(dataTypeName(t), "DT_"))
}

// feedName is the tensor a signature's input names, with its output index.
func feedName(tensor string) string {
	if !strings.Contains(tensor, ":") {
		return tensor + ":0"
	}
	return tensor
}

// grpcMetadata answers a GetModelMetadataRequest (model_spec 1,
// metadata_field 2) with model_spec 1 and metadata 2: "signature_def" to an
// Any holding a SignatureDefMap (signature_def 1).
func (s *server) grpcMetadata(req []byte) ([]byte, error) {
	var fields []string
	spec, err := readRequest(req, func(f wireField) error {
		if f.num == 2 {
			fields = append(fields, string(f.bytes))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(fields) == 0 {
		return nil, invalidArgument("GetModelMetadataRequest must specify at least one metadata_field")
	}
	for _, f := range fields {
		if f != "signature_def" {
			// As get_model_metadata_impl.cc builds it: errors::InvalidArgument
			// concatenates, so "%s" stays and the field follows.
			return nil, invalidArgument("Metadata field %%s is not supported%s", f)
		}
	}
	v, err := s.servingVersion(spec.name, spec.versionString(), spec.label)
	if err != nil {
		return nil, err
	}
	var sigMap []byte
	for _, name := range sortedKeys(v.loaded.graph.signatures) {
		sigMap = appendMapEntry(sigMap, 1, name, v.loaded.graph.signatures[name].raw)
	}
	anyMsg := appendBytesField(appendStringField(nil, 1, signatureDefMapURL), 2, sigMap)
	b := appendBytesField(nil, 1, encodeModelSpec(spec.name, v.version, ""))
	return appendMapEntry(b, 2, "signature_def", anyMsg), nil
}

// grpcModelStatus answers a GetModelStatusRequest (model_spec 1) with
// model_version_status 1: version 1, state 2, status 3 (error_code 1,
// error_message 2). As get_model_status_impl.cc, only a version number
// narrows the answer; a label does not.
func (s *server) grpcModelStatus(req []byte) ([]byte, error) {
	spec, err := readRequest(req, func(wireField) error { return nil })
	if err != nil {
		return nil, err
	}
	var version *int64
	if spec.hasVersion {
		version = &spec.version
	}
	states, err := s.versionStates(spec.name, version)
	if err != nil {
		return nil, err
	}
	var b []byte
	for _, v := range states {
		var status []byte
		if n := grpcCodes[v.code]; n != 0 {
			status = appendVarintField(status, 1, uint64(n))
		}
		if v.message != "" {
			status = appendStringField(status, 2, v.message)
		}
		var vs []byte
		if v.version != 0 {
			vs = appendVarintField(vs, 1, uint64(v.version))
		}
		vs = appendVarintField(vs, 2, modelVersionStates[v.state])
		b = appendBytesField(b, 1, appendBytesField(vs, 3, status))
	}
	return b, nil
}
