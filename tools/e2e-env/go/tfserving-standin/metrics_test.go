package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// REST requests are counted as tensorflow/serving 2.19.1 counts them
// (model_servers/http_server.cc, RestApiRequestDispatcher::ProcessRequest):
// request_count{model_name, status} for every request under /v1/, the status
// GETs of probes and health checks included; request_latency only for the
// successful ones, with API the verb the URL matched (http_rest_api_util.cc,
// ParseModelInfo's `method`: "predict") or "" for a GET.
func TestRESTRequestsAreCountedAsTFServingCountsThem(t *testing.T) {
	s := twoVersionsWithLabels(t)
	h := s.handler()
	for _, r := range []struct {
		method, path, body string
		code               int
	}{
		{"POST", "/v1/models/m:predict", `{"instances": [1]}`, 200},
		{"POST", "/v1/models/m:predict", `{"instances": [1]}`, 200},
		{"GET", "/v1/models/m", "", 200},
		{"GET", "/v1/models/m", "", 200},
		{"GET", "/v1/models/m", "", 200},
		{"GET", "/v1/models/m/labels/stable/metadata", "", 200},
		{"GET", "/v1/models/nope", "", 404},
		// The regex ignores case, the dispatch does not: a malformed request.
		{"POST", "/v1/models/m:PREDICT", `{"instances": [1]}`, 400},
	} {
		if code, out := call(t, h, r.method, r.path, r.body); code != r.code {
			t.Errorf("%s %s: %d %v, want %d", r.method, r.path, code, out, r.code)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("GET /healthz: %d", rec.Code)
	}
	_, page := callText(t, h, "/monitoring/prometheus/metrics")
	for _, want := range []string{
		`:tensorflow:serving:request_count{model_name="m",status="OK"} 6` + "\n",
		`:tensorflow:serving:request_count{model_name="m",status="INVALID_ARGUMENT"} 1` + "\n",
		`:tensorflow:serving:request_count{model_name="nope",status="NOT_FOUND"} 1` + "\n",
		`:tensorflow:serving:request_latency_count{model_name="m",API="predict",entrypoint="REST"} 2` + "\n",
		`:tensorflow:serving:request_latency_count{model_name="m",API="",entrypoint="REST"} 4` + "\n",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("metrics lack %q:\n%s", want, page)
		}
	}
	for _, unwanted := range []string{`API="Predict",entrypoint="REST"`, `API="PREDICT"`, `model_name="nope",API`, `model_name=""`} {
		if strings.Contains(page, unwanted) {
			t.Errorf("metrics have %q:\n%s", unwanted, page)
		}
	}
}
