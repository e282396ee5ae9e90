package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseFlagsReadsTheServersFlagsAndIgnoresOthers(t *testing.T) {
	f := parseFlags([]string{"--port=9000", "--rest_api_port=9001", "--model_name=m",
		"--model_base_path=/models/m", "--enable_batching", "--tensorflow_intra_op_parallelism=2"})
	if f.port != 9000 || f.restPort != 9001 || f.modelName != "m" || f.basePath != "/models/m" {
		t.Fatalf("unexpected flags: %+v", f)
	}
	if d := parseFlags(nil); d.port != 8500 || d.restPort != 0 {
		t.Fatalf("defaults: want gRPC 8500 and no REST port, got %+v", d)
	}
}

func TestModelsFromConfigReadsNamesAndBasePathsInOrder(t *testing.T) {
	text := `model_config_list {
  config { name: 'a' base_path: '/models/a' model_platform: 'tensorflow' }
  config { name: "b" base_path: "/models/b" model_version_policy { latest { num_versions: 1 } } }
}`
	got := modelsFromConfig(text)
	if len(got) != 2 || got[0].name != "a" || got[0].basePath != "/models/a" || got[1].name != "b" || got[1].basePath != "/models/b" {
		t.Fatalf("unexpected models: %+v %+v", got[0], got)
	}
}

func TestLatestVersionTakesTheHighestNumericFolderKeepingItsName(t *testing.T) {
	base := t.TempDir()
	for _, d := range []string{"00000123", "7", "variables", "-1"} {
		if err := os.Mkdir(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(base, "999"), nil, 0o644); err != nil { // a file, not a folder
		t.Fatal(err)
	}
	v, dir := latestVersion(base)
	if v != 123 || dir != "00000123" {
		t.Fatalf("want 123 in 00000123, got %d in %q", v, dir)
	}
	if v, _ := latestVersion(t.TempDir()); v != 0 {
		t.Fatalf("empty base path: want 0, got %d", v)
	}
}

func get(t *testing.T, h http.Handler, method, path, body string) (int, map[string]any) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, strings.NewReader(body)))
	var out map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("%s %s: body is not JSON: %q", method, path, rec.Body.String())
	}
	return rec.Code, out
}

func TestRESTAnswersLikeTFServing(t *testing.T) {
	h := handler([]*model{{name: "hpt", basePath: "/models/hpt", version: 123}})

	code, body := get(t, h, http.MethodGet, "/v1/models/hpt", "")
	status := body["model_version_status"].([]any)[0].(map[string]any)
	if code != 200 || status["state"] != "AVAILABLE" || status["version"] != "123" {
		t.Fatalf("model status: %d %v", code, body)
	}
	if code, _ := get(t, h, http.MethodGet, "/v1/models/hpt/versions/123", ""); code != 200 {
		t.Fatalf("known version: %d", code)
	}
	if code, _ := get(t, h, http.MethodGet, "/v1/models/hpt/versions/5", ""); code != 404 {
		t.Fatalf("unknown version: want 404, got %d", code)
	}
	code, body = get(t, h, http.MethodGet, "/v1/models/other", "")
	if code != 404 || !strings.Contains(body["error"].(string), "other") {
		t.Fatalf("unknown model: %d %v", code, body)
	}
	code, body = get(t, h, http.MethodPost, "/v1/models/hpt:predict", `{"instances": [1.0, 2.0, 5.0]}`)
	if code != 200 || body["predictions"].([]any)[2].(float64) != 4.5 {
		t.Fatalf("predict: %d %v", code, body)
	}
	code, body = get(t, h, http.MethodPost, "/v1/models/hpt:predict", `{"instances": ["a"]}`)
	if code != 400 || body["error"] == nil {
		t.Fatalf("predict on a string: want 400 with error, got %d %v", code, body)
	}
	code, body = get(t, h, http.MethodGet, "/v1/models/hpt/metadata", "")
	if code != 200 || body["model_spec"].(map[string]any)["version"] != "123" {
		t.Fatalf("metadata: %d %v", code, body)
	}
}
