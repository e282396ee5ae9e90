package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The HTTP/REST API, as tensorflow_serving/model_servers/http_rest_api_handler.cc
// routes it and util/json_tensor.cc reads and writes predict bodies; errors are
// {"error": "..."} with the HTTP code http_server.cc maps the status to.

var (
	predictionPath = regexp.MustCompile(`(?i)^/v1/models/([^/:]+)(?:/versions/(\d+)|/labels/([^/:]+))?:(classify|regress|predict)$`)
	statusPath     = regexp.MustCompile(`(?i)^/v1/models(?:/([^/:]+))?(?:/versions/(\d+)|/labels/([^/:]+))?(?:/(metadata))?$`)
)

var httpCodes = map[string]int{
	"CANCELLED": 499, "UNKNOWN": 500, "INVALID_ARGUMENT": 400, "DEADLINE_EXCEEDED": 504, "NOT_FOUND": 404,
	"ALREADY_EXISTS": 409, "PERMISSION_DENIED": 403, "RESOURCE_EXHAUSTED": 429, "FAILED_PRECONDITION": 400,
	"ABORTED": 409, "OUT_OF_RANGE": 400, "UNIMPLEMENTED": 501, "INTERNAL": 500, "UNAVAILABLE": 503,
	"DATA_LOSS": 500, "UNAUTHENTICATED": 401,
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "    ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(buf.Bytes())
}

// statusCode is the name of err's TF Serving error code ("OK" for nil).
func statusCode(err error) string {
	if err == nil {
		return "OK"
	}
	if se, ok := err.(*statusError); ok {
		return se.code
	}
	code, _ := splitStatus(err.Error())
	return code
}

func writeError(w http.ResponseWriter, err error) {
	code, msg := "UNKNOWN", err.Error()
	if se, ok := err.(*statusError); ok {
		code, msg = se.code, se.msg
	} else {
		code, msg = splitStatus(msg)
	}
	status, ok := httpCodes[code]
	if !ok {
		status = 500
	}
	writeJSON(w, status, map[string]string{"error": msg})
}

func (s *server) handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.monitoring.prometheus && r.URL.Path == s.monitoring.path {
			w.Header().Set("Content-Type", "text/plain; version=0.0.4")
			s.metrics.write(w)
			return
		}
		if !strings.HasPrefix(strings.ToLower(r.URL.Path), "/v1/") {
			http.NotFound(w, r)
			return
		}
		started := time.Now()
		var out any
		var call restCall
		body, err := io.ReadAll(r.Body)
		if err != nil {
			err = invalidArgument("%v", err)
		} else {
			out, call, err = s.route(r.Method, r.URL.Path, body)
		}
		// As http_server.cc's ProcessRequest: every request it dispatches (every path under /v1/,
		// the status and metadata GETs of probes and health checks included) counts, with the model
		// name its path names ("" if none); a successful one is timed with the verb its URL matched
		// as API ("" for the GETs).
		if err == nil {
			s.metrics.requestLatency(call.model, call.api, "REST", time.Since(started).Microseconds())
		}
		s.metrics.request(call.model, statusCode(err))
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, out)
	})
}

// restCall is what http_rest_api_util.cc's ParseModelInfo reads from a
// request's path: the model's name and, for a POST, the verb (its `method`).
type restCall struct {
	model, api string
}

func (s *server) route(method, path string, body []byte) (any, restCall, error) {
	if method == http.MethodPost {
		m := predictionPath.FindStringSubmatch(path)
		if m == nil {
			return nil, restCall{}, invalidArgument("Malformed request: %s %s", method, path)
		}
		name, _ := url.PathUnescape(m[1])
		call := restCall{model: name, api: m[4]}
		switch m[4] {
		case "predict":
			out, err := s.predict(name, m[2], m[3], body)
			return out, call, err
		case "classify", "regress":
			return nil, call, &statusError{"UNIMPLEMENTED", fmt.Sprintf("the tensorflow_model_server stand-in serves :predict only, not :%s", m[4])}
		}
		// The path's regex ignores case, the handler's dispatch does not (http_rest_api_handler.cc
		// compares *method == "predict"): the request stays "Malformed".
		return nil, call, invalidArgument("Malformed request: %s %s", method, path)
	}
	m := statusPath.FindStringSubmatch(path)
	if m == nil || method != http.MethodGet {
		return nil, restCall{}, invalidArgument("Malformed request: %s %s", method, path)
	}
	if m[1] == "" {
		return nil, restCall{}, invalidArgument("Missing model name in request.")
	}
	name, _ := url.PathUnescape(m[1])
	call := restCall{model: name}
	var out any
	var err error
	if m[4] != "" {
		out, err = s.metadata(name, m[2], m[3])
	} else {
		out, err = s.modelStatus(name, m[2], m[3])
	}
	return out, call, err
}

// labelVersion is the version a label of the model's config stands for, or
// TF Serving's error for a label it does not know.
func labelVersion(m *servable, label string) (string, error) {
	v, ok := m.cfg.labels[label]
	if !ok {
		return "", invalidArgument("Unrecognized servable version label: %s", label)
	}
	return strconv.FormatInt(v, 10), nil
}

func (s *server) modelStatus(name, version, label string) (any, error) {
	if label != "" {
		s.mu.Lock()
		m := s.byName[name]
		var err error
		if m == nil {
			err = &statusError{"NOT_FOUND", "Could not find any versions of model " + name}
		} else {
			version, err = labelVersion(m, label)
		}
		s.mu.Unlock()
		if err != nil {
			return nil, err
		}
	}
	var want *int64
	if version != "" {
		v, _ := strconv.ParseInt(version, 10, 64)
		want = &v
	}
	versions, err := s.versionStates(name, want)
	if err != nil {
		return nil, err
	}
	list := make([]any, 0, len(versions))
	for _, v := range versions {
		list = append(list, map[string]any{
			"version": strconv.FormatInt(v.version, 10),
			"state":   v.state,
			"status":  map[string]string{"error_code": v.code, "error_message": v.message},
		})
	}
	return map[string]any{"model_version_status": list}, nil
}

// versionStates is what GetModelStatus reports: every version of the model
// (highest first), or the one asked for, copied under the lock.
func (s *server) versionStates(name string, version *int64) ([]versionState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.byName[name]
	if version != nil {
		var v *versionState
		if m != nil {
			v = m.versions[*version]
		}
		if v == nil {
			return nil, &statusError{"NOT_FOUND", fmt.Sprintf("Could not find version %d of model %s", *version, name)}
		}
		return []versionState{*v}, nil
	}
	if m == nil || len(m.versions) == 0 {
		return nil, &statusError{"NOT_FOUND", "Could not find any versions of model " + name}
	}
	var out []versionState
	for _, v := range sortedVersions(m) {
		out = append(out, *v)
	}
	return out, nil
}

// servingVersion finds the AVAILABLE version a request addresses: the
// highest one, a number or a label.
func (s *server) servingVersion(name, version, label string) (*versionState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.byName[name]
	if label != "" {
		if m == nil {
			return nil, &statusError{"NOT_FOUND", fmt.Sprintf("Servable not found for request: Latest(%s)", name)}
		}
		var err error
		if version, err = labelVersion(m, label); err != nil {
			return nil, err
		}
	}
	if version != "" {
		want, _ := strconv.ParseInt(version, 10, 64)
		if m != nil {
			if v := m.versions[want]; v != nil && v.state == "AVAILABLE" {
				return v, nil
			}
		}
		return nil, &statusError{"NOT_FOUND", fmt.Sprintf("Servable not found for request: Specific(%s, %d)", name, want)}
	}
	if m != nil {
		for _, v := range sortedVersions(m) {
			if v.state == "AVAILABLE" {
				return v, nil
			}
		}
	}
	return nil, &statusError{"NOT_FOUND", fmt.Sprintf("Servable not found for request: Latest(%s)", name)}
}

func tensorInfoJSON(t tensorInfo) map[string]any {
	dims := make([]any, 0, len(t.dims))
	for _, d := range t.dims {
		dims = append(dims, map[string]any{"size": strconv.FormatInt(d.size, 10), "name": d.name})
	}
	out := map[string]any{"dtype": dataTypeName(t.dtype), "name": t.name}
	// The proto3 JSON printer leaves out a message field that is not set.
	if t.hasShape {
		out["tensor_shape"] = map[string]any{"dim": dims, "unknown_rank": t.unknownRank}
	}
	return out
}

func (s *server) metadata(name, version, label string) (any, error) {
	v, err := s.servingVersion(name, version, label)
	if err != nil {
		return nil, err
	}
	sigs := map[string]any{}
	for sigName, sig := range v.loaded.graph.signatures {
		inputs, outputs := map[string]any{}, map[string]any{}
		for k, t := range sig.inputs {
			inputs[k] = tensorInfoJSON(t)
		}
		for k, t := range sig.outputs {
			outputs[k] = tensorInfoJSON(t)
		}
		sigs[sigName] = map[string]any{"inputs": inputs, "outputs": outputs, "method_name": sig.methodName, "defaults": map[string]any{}}
	}
	return map[string]any{
		"model_spec": map[string]any{"name": name, "signature_name": "", "version": strconv.FormatInt(v.version, 10)},
		"metadata":   map[string]any{"signature_def": map[string]any{"signature_def": sigs}},
	}, nil
}

func jsonTypeName(v any) string {
	switch t := v.(type) {
	case nil:
		return "Null"
	case bool:
		if t {
			return "True"
		}
		return "False"
	case map[string]any:
		return "Object"
	case []any:
		return "Array"
	case string:
		return "String"
	}
	return "Number"
}

var numericTypes = map[int]string{1: "float", 2: "double", 3: "int32", 4: "uint8", 5: "int16", 6: "int8", 9: "int64", 17: "uint16", 22: "uint32", 23: "uint64", 19: "half", 14: "bfloat16"}

// checkValues verifies every leaf of v against the input's dtype and turns
// it into the float64 tensor the graph computes on.
func checkValues(v any, t tensorInfo) (any, error) {
	typeName, numeric := numericTypes[t.dtype]
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			r, err := checkValues(e, t)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	case json.Number:
		if numeric {
			f, err := x.Float64()
			if err == nil && (t.dtype == 1 || t.dtype == 2 || t.dtype == 19 || t.dtype == 14 || !strings.ContainsAny(x.String(), ".eE")) {
				return f, nil
			}
		}
	case string, map[string]any:
		if t.dtype == 7 {
			return x, nil
		}
	}
	if !numeric {
		typeName = strings.ToLower(strings.TrimPrefix(dataTypeName(t.dtype), "DT_"))
	}
	raw, _ := json.Marshal(v)
	return nil, invalidArgument("JSON Value: %s Type: %s is not of expected type: %s", raw, jsonTypeName(v), typeName)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (s *server) predict(name, version, label string, body []byte) (any, error) {
	v, err := s.servingVersion(name, version, label)
	if err != nil {
		return nil, err
	}
	time.Sleep(v.loaded.delay)
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc any
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, invalidArgument("JSON Parse error: The document is empty")
	}
	if err := dec.Decode(&doc); err != nil {
		return nil, invalidArgument("JSON Parse error: %v", err)
	}
	req, ok := doc.(map[string]any)
	if !ok {
		return nil, invalidArgument("JSON Value: %s Is not object", truncate(string(body), 100))
	}
	sigName := "serving_default"
	if sn, present := req["signature_name"]; present {
		str, isString := sn.(string)
		if !isString {
			return nil, invalidArgument("JSON Value: 'signature_name' is not a string")
		}
		if str != "" {
			sigName = str
		}
	}
	sig, ok := v.loaded.graph.signatures[sigName]
	if !ok {
		return nil, invalidArgument("Serving signature name: \"%s\" not found in signature def", sigName)
	}
	inputNames := sortedKeys(sig.inputs)
	if len(inputNames) == 0 {
		return nil, invalidArgument("Failed to get input map for signature: %s", sigName)
	}
	instances, hasInstances := req["instances"]
	inputs, hasInputs := req["inputs"]
	feeds := map[string]any{}
	feed := func(input string, value any) error {
		checked, err := checkValues(value, sig.inputs[input])
		if err != nil {
			return err
		}
		feeds[feedName(sig.inputs[input].name)] = checked
		return nil
	}
	switch {
	case hasInstances && hasInputs:
		return nil, invalidArgument("Not formatted correctly expecting only one of 'inputs' or 'instances' keys to exist")
	case hasInstances:
		list, ok := instances.([]any)
		if !ok {
			return nil, invalidArgument("Excepting 'instances' to be an list/array")
		}
		if len(list) == 0 {
			return nil, invalidArgument("No values in 'instances' array")
		}
		columns := map[string][]any{}
		for i, inst := range list {
			obj, isObj := namedInputs(inst)
			if !isObj {
				if len(inputNames) > 1 {
					return nil, invalidArgument("instances is a plain list, but expecting list of objects as multiple input tensors required as per tensorinfo_map")
				}
				columns[inputNames[0]] = append(columns[inputNames[0]], inst)
				continue
			}
			if strings.Join(sortedKeys(obj), ",") != strings.Join(inputNames, ",") {
				raw, _ := json.Marshal(inst)
				return nil, invalidArgument("Failed to process element: %d of 'instances' list. JSON object: %s must only have keys: %s", i, raw, strings.Join(inputNames, ","))
			}
			for _, k := range inputNames {
				columns[k] = append(columns[k], obj[k])
			}
		}
		for _, k := range inputNames {
			if err := feed(k, columns[k]); err != nil {
				return nil, err
			}
		}
	case hasInputs:
		obj, isObj := namedInputs(inputs)
		if !isObj {
			if len(inputNames) > 1 {
				return nil, invalidArgument("inputs is a plain value/list, but expecting an object as multiple input tensors required as per tensorinfo_map")
			}
			obj = map[string]any{inputNames[0]: inputs}
		}
		for _, k := range inputNames {
			value, present := obj[k]
			if !present {
				return nil, invalidArgument("Missing named input: %s in 'inputs' object.", k)
			}
			if err := feed(k, value); err != nil {
				return nil, err
			}
		}
	default:
		return nil, invalidArgument("Missing 'inputs' or 'instances' key")
	}
	outputNames := sortedKeys(sig.outputs)
	results := map[string]any{}
	for _, k := range outputNames {
		r, err := v.loaded.evaluate(sig.outputs[k].name, feeds)
		if err != nil {
			return nil, err
		}
		results[k] = r
	}
	if hasInputs {
		if len(outputNames) == 1 {
			return map[string]any{"outputs": results[outputNames[0]]}, nil
		}
		return map[string]any{"outputs": results}, nil
	}
	if len(outputNames) == 1 {
		return map[string]any{"predictions": results[outputNames[0]]}, nil
	}
	rows := []any{}
	for _, k := range outputNames {
		list, _ := results[k].([]any)
		for i, e := range list {
			if i >= len(rows) {
				rows = append(rows, map[string]any{})
			}
			rows[i].(map[string]any)[k] = e
		}
	}
	return map[string]any{"predictions": rows}, nil
}

// namedInputs is v as an object of named inputs. An object whose one key is
// "b64" is a single binary value, as TF Serving's JSON reads it, not an
// input named b64.
func namedInputs(v any) (map[string]any, bool) {
	obj, isObj := v.(map[string]any)
	if _, b64 := obj["b64"]; isObj && len(obj) == 1 && b64 {
		return nil, false
	}
	return obj, isObj
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
