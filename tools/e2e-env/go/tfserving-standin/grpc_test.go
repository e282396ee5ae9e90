package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The gRPC API, called over HTTP/2 on loopback as a gRPC client does: one
// length-prefixed message in, the answer and grpc-status out. The requests
// are built field by field with the numbers of TF Serving's .proto files.

type grpcReply struct {
	code    int
	message string
	body    []byte
	elapsed time.Duration
}

// serveGRPCOnLoopback runs the server's gRPC listener on a loopback port.
func serveGRPCOnLoopback(t *testing.T, s *server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := s.grpcServer()
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
}

func h2cClient() *http.Client {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	return &http.Client{Transport: &http.Transport{Protocols: &p}, Timeout: 10 * time.Second}
}

func invoke(t *testing.T, client *http.Client, addr, method string, msg []byte) grpcReply {
	t.Helper()
	frame := append(binary.BigEndian.AppendUint32([]byte{0}, uint32(len(msg))), msg...)
	req, _ := http.NewRequest("POST", "http://"+addr+"/"+method, bytes.NewReader(frame))
	req.Header.Set("Content-Type", "application/grpc")
	req.Header.Set("TE", "trailers")
	started := time.Now()
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	elapsed := time.Since(started)
	if res.ProtoMajor != 2 || res.Header.Get("Content-Type") != "application/grpc" {
		t.Fatalf("%s: %s %q", method, res.Proto, res.Header.Get("Content-Type"))
	}
	status, message := res.Trailer.Get("Grpc-Status"), res.Trailer.Get("Grpc-Message")
	if status == "" { // trailers-only
		status, message = res.Header.Get("Grpc-Status"), res.Header.Get("Grpc-Message")
	}
	code, err := strconv.Atoi(status)
	if err != nil {
		t.Fatalf("%s: grpc-status %q", method, status)
	}
	message, _ = url.PathUnescape(message)
	r := grpcReply{code: code, message: message, elapsed: elapsed}
	if code == 0 {
		if len(raw) < 5 || int(binary.BigEndian.Uint32(raw[1:5])) != len(raw)-5 {
			t.Fatalf("%s: bad frame %x", method, raw)
		}
		r.body = raw[5:]
	} else if len(raw) != 0 {
		t.Fatalf("%s: an error with a message: %x", method, raw)
	}
	return r
}

// spec builds a ModelSpec: name 1, version 2 (Int64Value), signature_name 3,
// version_label 4.
func spec(name string, version int64, label, signature string) []byte {
	b := appendStringField(nil, 1, name)
	if version != 0 {
		b = appendBytesField(b, 2, appendVarintField(nil, 1, uint64(version)))
	}
	if signature != "" {
		b = appendStringField(b, 3, signature)
	}
	if label != "" {
		b = appendStringField(b, 4, label)
	}
	return b
}

func floatTensor(shape []int64, values ...float32) []byte {
	var dims, packed []byte
	for _, d := range shape {
		dims = appendBytesField(dims, 2, appendVarintField(nil, 1, uint64(d)))
	}
	for _, v := range values {
		packed = binary.LittleEndian.AppendUint32(packed, math.Float32bits(v))
	}
	return appendBytesField(appendBytesField(appendVarintField(nil, 1, 1), 2, dims), 5, packed)
}

func predictRequest(modelSpec []byte, inputs map[string][]byte) []byte {
	b := appendBytesField(nil, 1, modelSpec)
	for _, k := range sortedKeys(inputs) {
		b = appendMapEntry(b, 2, k, inputs[k])
	}
	return b
}

type decodedTensor struct {
	dtype  int
	shape  []int64
	values []float64
}

func decodeTensor(t *testing.T, b []byte) decodedTensor {
	t.Helper()
	var d decodedTensor
	err := walkMessage(b, func(f wireField) error {
		switch f.num {
		case 1:
			d.dtype = int(f.varint)
		case 2:
			dims, _, err := parseShape(f.bytes)
			for _, x := range dims {
				d.shape = append(d.shape, x.size)
			}
			return err
		case 5:
			var err error
			d.values, err = packedFloats(f, d.values)
			return err
		default:
			return fmt.Errorf("unexpected TensorProto field %d", f.num)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

type decodedSpec struct {
	name, signature string
	version         int64
}

func decodeSpec(t *testing.T, b []byte) decodedSpec {
	t.Helper()
	m, err := parseModelSpec(b)
	if err != nil {
		t.Fatal(err)
	}
	return decodedSpec{m.name, m.signature, m.version}
}

// decodePredict splits a PredictResponse into outputs (1) and model_spec (2).
func decodePredict(t *testing.T, b []byte) (map[string]decodedTensor, decodedSpec) {
	t.Helper()
	outputs := map[string]decodedTensor{}
	var ms decodedSpec
	err := walkMessage(b, func(f wireField) error {
		switch f.num {
		case 1:
			k, v, err := mapEntry(f.bytes)
			outputs[k] = decodeTensor(t, v)
			return err
		case 2:
			ms = decodeSpec(t, f.bytes)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return outputs, ms
}

func twoVersionsWithLabels(t *testing.T) *server {
	config := writeFile(t, t.TempDir(), "models.config", fmt.Sprintf(`model_config_list { config {
  name: 'm' base_path: '%s' model_platform: 'tensorflow'
  model_version_policy { all {} } version_labels { key: 'stable' value: 123 } version_labels { key: 'canary' value: 124 } } }`,
		fixture(t, "half_plus_two_2_versions")))
	return loadedServer(t, "--model_config_file="+config, "--monitoring_config_file="+writeFile(t, t.TempDir(), "monitoring.config",
		`prometheus_config { enable: true path: "/monitoring/prometheus/metrics" }`))
}

func TestGRPCPredictComputesWhatRESTComputes(t *testing.T) {
	config := writeFile(t, t.TempDir(), "models.config", fmt.Sprintf(`model_config_list {
  config { name: 'two' base_path: '%s' model_platform: 'tensorflow' }
  config { name: 'three' base_path: '%s' model_platform: 'tensorflow' } }`, fixture(t, "half_plus_two_cpu"), fixture(t, "half_plus_three")))
	s := loadedServer(t, "--model_config_file="+config)
	addr, client := serveGRPCOnLoopback(t, s), h2cClient()
	for model, plus := range map[string]float64{"two": 2, "three": 3} {
		r := invoke(t, client, addr, "tensorflow.serving.PredictionService/Predict",
			predictRequest(spec(model, 0, "", ""), map[string][]byte{"x": floatTensor([]int64{3}, 1, 2, 5)}))
		if r.code != 0 {
			t.Fatalf("%s: %d %s", model, r.code, r.message)
		}
		outputs, ms := decodePredict(t, r.body)
		want := decodedTensor{dtype: 1, shape: []int64{3}, values: []float64{0.5 + plus, 1 + plus, 2.5 + plus}}
		if !reflect.DeepEqual(outputs, map[string]decodedTensor{"y": want}) {
			t.Errorf("%s: outputs %+v, want y=%+v", model, outputs, want)
		}
		if ms != (decodedSpec{model, "serving_default", 123}) {
			t.Errorf("%s: model_spec %+v", model, ms)
		}
		_, rest := call(t, s.handler(), "POST", "/v1/models/"+model+":predict", `{"instances": [1, 2, 5]}`)
		if got := rest.(map[string]any)["predictions"]; !reflect.DeepEqual(got, []any{want.values[0], want.values[1], want.values[2]}) {
			t.Errorf("%s: REST %v, gRPC %v", model, got, want.values)
		}
	}
	// A scalar input fills its shape; a [2,1] batch keeps its shape.
	r := invoke(t, client, addr, "tensorflow.serving.PredictionService/Predict",
		predictRequest(spec("two", 0, "", ""), map[string][]byte{"x": floatTensor([]int64{2, 1}, 4)}))
	if outputs, _ := decodePredict(t, r.body); r.code != 0 || !reflect.DeepEqual(outputs["y"], decodedTensor{1, []int64{2, 1}, []float64{4, 4}}) {
		t.Errorf("filled [2,1]: %d %s %+v", r.code, r.message, outputs)
	}
	// Latency of one call on loopback, for the record.
	started := time.Now()
	const n = 200
	for i := 0; i < n; i++ {
		invoke(t, client, addr, "tensorflow.serving.PredictionService/Predict",
			predictRequest(spec("two", 0, "", ""), map[string][]byte{"x": floatTensor([]int64{1}, float32(i))}))
	}
	t.Logf("%d sequential Predict calls on one connection: %.3f ms each", n, float64(time.Since(started).Microseconds())/n/1000)
}

func TestGRPCErrorsAreTFServingsCodesAndMessages(t *testing.T) {
	s := twoVersionsWithLabels(t)
	addr, client := serveGRPCOnLoopback(t, s), h2cClient()
	x := map[string][]byte{"x": floatTensor([]int64{1}, 1)}
	int64X := appendBytesField(appendVarintField(nil, 1, 9), 10, binary.AppendUvarint(nil, 1))
	cases := []struct {
		name, method string
		req          []byte
		code         int
		message      string
	}{
		{"unknown model", "Predict", predictRequest(spec("nope", 0, "", ""), x), 5, "Servable not found for request: Latest(nope)"},
		{"unknown version", "Predict", predictRequest(spec("m", 7, "", ""), x), 5, "Servable not found for request: Specific(m, 7)"},
		{"unknown label", "Predict", predictRequest(spec("m", 0, "beta", ""), x), 3, "Unrecognized servable version label: beta"},
		{"unknown signature", "Predict", predictRequest(spec("m", 0, "", "nope"), x), 9, `Serving signature key "nope" not found.`},
		{"no model_spec", "Predict", appendMapEntry(nil, 2, "x", x["x"]), 3, "Missing ModelSpec"},
		{"missing input", "Predict", predictRequest(spec("m", 0, "", ""), nil), 3,
			"input size does not match signature: 0!=1 len({}) != len({x}). Sent extra: {}. Missing but required: {x}."},
		{"other input", "Predict", predictRequest(spec("m", 0, "", ""), map[string][]byte{"z": x["x"]}), 3,
			"input tensor alias not found in signature: z. Inputs expected to be in the set {x}."},
		{"wrong dtype", "Predict", predictRequest(spec("m", 0, "", ""), map[string][]byte{"x": int64X}), 3,
			"Expects arg[0] to be float but int64 is provided"},
		{"too many values", "Predict", predictRequest(spec("m", 0, "", ""), map[string][]byte{"x": floatTensor([]int64{1}, 1, 2)}), 3,
			"tensor parsing error: x"},
		{"unknown output", "Predict", append(predictRequest(spec("m", 0, "", ""), x), appendStringField(nil, 3, "z")...), 3,
			"output tensor alias not found in signature: z Outputs expected to be in the set {y}."},
		{"metadata of an unknown model", "GetModelMetadata", appendStringField(appendBytesField(nil, 1, spec("nope", 0, "", "")), 2, "signature_def"), 5,
			"Servable not found for request: Latest(nope)"},
		{"metadata without a field", "GetModelMetadata", appendBytesField(nil, 1, spec("m", 0, "", "")), 3,
			"GetModelMetadataRequest must specify at least one metadata_field"},
		{"status of an unknown model", "GetModelStatus", appendBytesField(nil, 1, spec("nope", 0, "", "")), 5, "Could not find any versions of model nope"},
		{"status of an unknown version", "GetModelStatus", appendBytesField(nil, 1, spec("m", 7, "", "")), 5, "Could not find version 7 of model m"},
		{"status without model_spec", "GetModelStatus", nil, 3, "Missing ModelSpec"},
	}
	for _, c := range cases {
		service := "tensorflow.serving.PredictionService/"
		if c.method == "GetModelStatus" {
			service = "tensorflow.serving.ModelService/"
		}
		if r := invoke(t, client, addr, service+c.method, c.req); r.code != c.code || r.message != c.message {
			t.Errorf("%s: %d %q, want %d %q", c.name, r.code, r.message, c.code, c.message)
		}
	}
	if r := invoke(t, client, addr, "tensorflow.serving.PredictionService/Classify", nil); r.code != 12 {
		t.Errorf("Classify: %d %q", r.code, r.message)
	}
}

func TestGRPCVersionsAndLabelsAreHonoured(t *testing.T) {
	s := twoVersionsWithLabels(t)
	addr, client := serveGRPCOnLoopback(t, s), h2cClient()
	x := map[string][]byte{"x": floatTensor([]int64{1}, 1)}
	for _, c := range []struct {
		version int64
		label   string
		want    int64
	}{{0, "", 124}, {123, "", 123}, {0, "stable", 123}, {0, "canary", 124}} {
		r := invoke(t, client, addr, "tensorflow.serving.PredictionService/Predict", predictRequest(spec("m", c.version, c.label, ""), x))
		if _, ms := decodePredict(t, r.body); r.code != 0 || ms.version != c.want {
			t.Errorf("version %d label %q: %d %q, answered by %d, want %d", c.version, c.label, r.code, r.message, ms.version, c.want)
		}
	}
}

// decodeStatus reads a GetModelStatusResponse as version: state/code/message.
func decodeStatus(t *testing.T, b []byte) []string {
	t.Helper()
	var out []string
	err := walkMessage(b, func(f wireField) error {
		var version, state, code uint64
		var message string
		err := walkMessage(f.bytes, func(g wireField) error {
			switch g.num {
			case 1:
				version = g.varint
			case 2:
				state = g.varint
			case 3:
				return walkMessage(g.bytes, func(h wireField) error {
					if h.num == 1 {
						code = h.varint
					} else {
						message = string(h.bytes)
					}
					return nil
				})
			}
			return nil
		})
		out = append(out, fmt.Sprintf("%d: %d/%d/%s", version, state, code, message))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestGRPCModelStatusAndMetadata(t *testing.T) {
	s := twoVersionsWithLabels(t)
	addr, client := serveGRPCOnLoopback(t, s), h2cClient()
	status := func(ms []byte) []string {
		r := invoke(t, client, addr, "tensorflow.serving.ModelService/GetModelStatus", appendBytesField(nil, 1, ms))
		if r.code != 0 {
			t.Fatalf("GetModelStatus: %d %s", r.code, r.message)
		}
		return decodeStatus(t, r.body)
	}
	// AVAILABLE is 30; a label does not narrow GetModelStatus (get_model_status_impl.cc reads the version only).
	if got, want := status(spec("m", 0, "", "")), []string{"124: 30/0/", "123: 30/0/"}; !reflect.DeepEqual(got, want) {
		t.Errorf("every version: %v, want %v", got, want)
	}
	if got, want := status(spec("m", 123, "", "")), []string{"123: 30/0/"}; !reflect.DeepEqual(got, want) {
		t.Errorf("version 123: %v, want %v", got, want)
	}
	if got, want := status(spec("m", 0, "stable", "")), []string{"124: 30/0/", "123: 30/0/"}; !reflect.DeepEqual(got, want) {
		t.Errorf("label: %v, want %v", got, want)
	}

	r := invoke(t, client, addr, "tensorflow.serving.PredictionService/GetModelMetadata",
		appendStringField(appendBytesField(nil, 1, spec("m", 0, "stable", "")), 2, "signature_def"))
	if r.code != 0 {
		t.Fatalf("GetModelMetadata: %d %s", r.code, r.message)
	}
	var ms decodedSpec
	var typeURL string
	sigs := map[string]signatureDef{}
	err := walkMessage(r.body, func(f wireField) error {
		if f.num == 1 {
			ms = decodeSpec(t, f.bytes)
			return nil
		}
		key, anyMsg, err := mapEntry(f.bytes)
		if err != nil || key != "signature_def" {
			return fmt.Errorf("metadata key %q (%v)", key, err)
		}
		return walkMessage(anyMsg, func(g wireField) error {
			if g.num == 1 {
				typeURL = string(g.bytes)
				return nil
			}
			return walkMessage(g.bytes, func(h wireField) error {
				name, raw, err := mapEntry(h.bytes)
				if err == nil {
					sigs[name], err = parseSignature(raw)
				}
				return err
			})
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if ms != (decodedSpec{"m", "", 123}) || typeURL != "type.googleapis.com/tensorflow.serving.SignatureDefMap" {
		t.Errorf("model_spec %+v, type_url %q", ms, typeURL)
	}
	def := sigs["serving_default"]
	if def.methodName != "tensorflow/serving/predict" || def.inputs["x"].dtype != 1 || def.inputs["x"].name != "x:0" || def.outputs["y"].name != "y:0" {
		t.Errorf("serving_default: %+v", def)
	}
	_, rest := call(t, s.handler(), "GET", "/v1/models/m/labels/stable/metadata", "")
	restSigs := rest.(map[string]any)["metadata"].(map[string]any)["signature_def"].(map[string]any)["signature_def"].(map[string]any)
	if got, want := strings.Join(sortedKeys(sigs), ","), strings.Join(sortedKeys(restSigs), ","); got != want {
		t.Errorf("signatures %s, REST %s", got, want)
	}
}

func TestGRPCCallsAreCountedWithEntrypointGRPC(t *testing.T) {
	s := twoVersionsWithLabels(t)
	addr, client := serveGRPCOnLoopback(t, s), h2cClient()
	x := map[string][]byte{"x": floatTensor([]int64{1}, 1)}
	for i := 0; i < 3; i++ {
		invoke(t, client, addr, "tensorflow.serving.PredictionService/Predict", predictRequest(spec("m", 0, "", ""), x))
	}
	invoke(t, client, addr, "tensorflow.serving.PredictionService/Predict", predictRequest(spec("m", 0, "", "nope"), x))
	call(t, s.handler(), "POST", "/v1/models/m:predict", `{"instances": [1]}`)
	_, page := callText(t, s.handler(), "/monitoring/prometheus/metrics")
	for _, want := range []string{
		`:tensorflow:serving:request_count{model_name="m",status="OK"} 4` + "\n",
		`:tensorflow:serving:request_count{model_name="m",status="FAILED_PRECONDITION"} 1` + "\n",
		"# TYPE :tensorflow:serving:request_latency histogram\n",
		`:tensorflow:serving:request_latency_bucket{model_name="m",API="Predict",entrypoint="GRPC",le="10"} `,
		`:tensorflow:serving:request_latency_bucket{model_name="m",API="Predict",entrypoint="GRPC",le="+Inf"} 3` + "\n",
		`:tensorflow:serving:request_latency_count{model_name="m",API="Predict",entrypoint="GRPC"} 3` + "\n",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("metrics lack %q:\n%s", want, page)
		}
	}
	// The REST predict has a histogram of its own (entrypoint "REST").
	if strings.Count(page, `request_latency_bucket{model_name="m",API="Predict",entrypoint="GRPC"`) != 34 {
		t.Errorf("want 33 limits and +Inf for gRPC:\n%s", page)
	}
}

func callText(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	return rec.Code, rec.Body.String()
}

// The child process serves gRPC on --port once the model is AVAILABLE.
func TestTheServerAnswersGRPCOnItsPort(t *testing.T) {
	c := start(t, "--model_name=m", "--model_base_path="+fixture(t, "half_plus_two_cpu"), "--file_system_poll_wait_seconds=0")
	waitFor(t, "the gRPC port", 10*time.Second, func() bool { return listening(c.grpc) })
	r := invoke(t, h2cClient(), fmt.Sprintf("127.0.0.1:%d", c.grpc), "tensorflow.serving.ModelService/GetModelStatus", appendBytesField(nil, 1, spec("m", 0, "", "")))
	if got := decodeStatus(t, r.body); r.code != 0 || !reflect.DeepEqual(got, []string{"123: 30/0/"}) {
		t.Fatalf("GetModelStatus: %d %q %v", r.code, r.message, got)
	}
}
