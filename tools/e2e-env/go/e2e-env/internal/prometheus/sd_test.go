package prometheus

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const pods = `{"kind":"PodList","items":[
 {"metadata":{"name":"half-plus-two-7c9d5f6b8-x2k4q","namespace":"tf-serving","uid":"u1",
   "labels":{"app.kubernetes.io/instance":"half-plus-two"},
   "annotations":{"prometheus.io/scrape":"true","prometheus.io/port":"8501","prometheus.io/path":"/monitoring/prometheus/metrics"},
   "ownerReferences":[{"kind":"ReplicaSet","name":"half-plus-two-7c9d5f6b8","controller":true}]},
  "spec":{"nodeName":"tfs-e2e-cpu","containers":[{"name":"tf-serving","image":"r/m@sha256:1",
   "ports":[{"name":"grpc","containerPort":8500,"protocol":"TCP"},{"name":"http","containerPort":8501,"protocol":"TCP"}]}]},
  "status":{"phase":"Running","podIP":"10.213.0.7","hostIP":"127.0.0.1","conditions":[{"type":"Ready","status":"False"}]}},
 {"metadata":{"name":"pending","namespace":"tf-serving"},"spec":{"containers":[{"name":"c","ports":[{"containerPort":1}]}]},"status":{"phase":"Pending"}},
 {"metadata":{"name":"done","namespace":"tf-serving"},"spec":{"containers":[{"name":"c","ports":[{"containerPort":1}]}]},"status":{"phase":"Succeeded","podIP":"10.213.0.9"}}
]}`

func TestTargetsAreKubernetesSDsPodRole(t *testing.T) {
	groups, err := Targets([]byte(pods))
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 2 {
		t.Fatalf("%d groups, want one per container port of the running pod with an IP: %+v", len(groups), groups)
	}
	http := groups[1]
	if http.Targets[0] != "10.213.0.7:8501" {
		t.Errorf("target %v", http.Targets)
	}
	for k, want := range map[string]string{
		"__meta_kubernetes_namespace": "tf-serving", "__meta_kubernetes_pod_name": "half-plus-two-7c9d5f6b8-x2k4q",
		"__meta_kubernetes_pod_container_name": "tf-serving", "__meta_kubernetes_pod_container_port_name": "http",
		"__meta_kubernetes_pod_container_port_number": "8501", "__meta_kubernetes_pod_ready": "false",
		"__meta_kubernetes_pod_annotation_prometheus_io_scrape": "true", "__meta_kubernetes_pod_annotation_prometheus_io_port": "8501",
		"__meta_kubernetes_pod_annotation_prometheus_io_path":    "/monitoring/prometheus/metrics",
		"__meta_kubernetes_pod_label_app_kubernetes_io_instance": "half-plus-two", "__meta_kubernetes_pod_controller_kind": "ReplicaSet",
		"__meta_kubernetes_pod_node_name": "tfs-e2e-cpu",
	} {
		if http.Labels[k] != want {
			t.Errorf("%s=%q, want %q", k, http.Labels[k], want)
		}
	}
	if _, err := Targets([]byte("not json")); err == nil {
		t.Fatal("want an error for a body that is no pod list")
	}
}

func TestPodSDAsksTheAPIServerForTheNodesPods(t *testing.T) {
	var asked string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = r.URL.String()
		w.Write([]byte(pods))
	}))
	defer api.Close()
	rec := httptest.NewRecorder()
	PodSD{APIServer: api.URL, Node: "tfs-e2e-cpu"}.Handler(api.Client()).ServeHTTP(rec, httptest.NewRequest("GET", "/targets", nil))
	if asked != "/api/v1/pods?fieldSelector=spec.nodeName%3Dtfs-e2e-cpu" {
		t.Errorf("asked %s", asked)
	}
	var groups []TargetGroup
	if err := json.Unmarshal(rec.Body.Bytes(), &groups); err != nil || len(groups) != 2 {
		t.Fatalf("%d %s", rec.Code, rec.Body.String())
	}
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "forbidden", 403) }))
	defer failing.Close()
	rec = httptest.NewRecorder()
	PodSD{APIServer: failing.URL, Node: "n"}.Handler(failing.Client()).ServeHTTP(rec, httptest.NewRequest("GET", "/targets", nil))
	if rec.Code != http.StatusBadGateway || !strings.Contains(rec.Body.String(), "forbidden") {
		t.Fatalf("an API server error is Prometheus' failed refresh: %d %s", rec.Code, rec.Body.String())
	}
}
