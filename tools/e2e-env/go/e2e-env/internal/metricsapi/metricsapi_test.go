package metricsapi

import (
	"encoding/base64"
	"regexp"
	"strings"
	"testing"

	"tfs-e2e/e2e-env/internal/configs"
)

func settings(t *testing.T, env map[string]string) configs.Settings {
	t.Helper()
	s, err := configs.FromEnv(func(k string) string { return env[k] }, "/home/u", "/repo")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// field returns the value of the first line "  key: value" of doc.
func field(t *testing.T, doc, key string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^\s*(?:- )?` + regexp.QuoteMeta(key) + `: (.*)$`).FindStringSubmatch(doc)
	if m == nil {
		t.Fatalf("no %s in\n%s", key, doc)
	}
	return strings.Trim(m[1], "'")
}

func TestAddressIsTheBridgeHostAddress(t *testing.T) {
	a, err := Address(settings(t, nil))
	if err != nil || a.String() != "10.213.0.1" {
		t.Fatalf("%v %v", a, err)
	}
	a, err = Address(settings(t, map[string]string{"TFS_E2E_POD_SUBNET": "10.214.5.0/24"}))
	if err != nil || a.String() != "10.214.5.1" {
		t.Fatalf("%v %v", a, err)
	}
	if _, err := Address(settings(t, map[string]string{"TFS_E2E_POD_SUBNET": "nope"})); err == nil || !strings.Contains(err.Error(), "TFS_E2E_POD_SUBNET") {
		t.Fatalf("a bad subnet: %v", err)
	}
}

// The rule as prometheus-adapter applies it (pkg/naming: the name's matches
// and as, the metricsQuery template with .Series, .LabelMatchers, .GroupBy).
func TestAdapterRuleServesTheInferenceCallRatePerPod(t *testing.T) {
	c := AdapterConfig()
	if got := field(t, c, "seriesQuery"); got != `:tensorflow:serving:request_latency_count{namespace!="",pod!=""}` {
		t.Errorf("seriesQuery %s", got)
	}
	re := regexp.MustCompile(field(t, c, "matches"))
	if !re.MatchString(RequestSeries) || re.MatchString(RequestSeries+"_total") || re.MatchString(":tensorflow:serving:request_count") {
		t.Errorf("matches %s", re)
	}
	if got := field(t, c, "as"); got != "tfserving_inference_requests_per_second" {
		t.Errorf("as %s", got)
	}
	for _, o := range []string{"namespace: {resource: namespace}", "pod: {resource: pod}"} {
		if !strings.Contains(c, o) {
			t.Errorf("no override %q", o)
		}
	}
	q := strings.NewReplacer("<<.Series>>", RequestSeries, "<<.LabelMatchers>>", `namespace="m",pod=~"a|b"`, "<<.GroupBy>>", "pod").
		Replace(field(t, c, "metricsQuery"))
	want := `sum by (pod) (rate(:tensorflow:serving:request_latency_count{namespace="m",pod=~"a|b",API=~"Predict|Classify|Regress|predict|classify|regress"}[1m]))`
	if q != want {
		t.Errorf("metricsQuery\n got %s\nwant %s", q, want)
	}
}

func TestArgsListenOnTheBridgeAndReadTheEnvironment(t *testing.T) {
	s := settings(t, map[string]string{"TFS_E2E_METRICS_PORT": "20000", "TFS_E2E_PROMETHEUS_PORT": "20090", "TFS_E2E_STATE": "/st"})
	a, _ := Address(s)
	ms := strings.Join(MetricsServerArgs(s, a, "/st/kubeconfig"), " ")
	for _, w := range []string{"--bind-address 10.213.0.1 --secure-port 20000", "--kubeconfig /st/kubeconfig",
		"--tls-cert-file /st/pki/metrics-apis.crt", "--kubelet-use-node-status-port", "--node-selector node.kubernetes.io/instance-type=tfs-e2e-cpu"} {
		if !strings.Contains(ms, w) {
			t.Errorf("metrics-server args lack %q: %s", w, ms)
		}
	}
	ad := strings.Join(AdapterArgs(s, a, "/st/kubeconfig"), " ")
	for _, w := range []string{"--bind-address 10.213.0.1 --secure-port 20001", "--prometheus-url http://127.0.0.1:20090",
		"--config /st/prometheus-adapter.yaml", "--lister-kubeconfig /st/kubeconfig", "--metrics-relist-interval 15s"} {
		if !strings.Contains(ad, w) {
			t.Errorf("adapter args lack %q: %s", w, ad)
		}
	}
	if HealthURL(a, 20001) != "https://10.213.0.1:20001/livez" {
		t.Error(HealthURL(a, 20001))
	}
}

func TestMetricsPortLeavesRoomForTheAdapter(t *testing.T) {
	_, err := configs.FromEnv(func(k string) string { return map[string]string{"TFS_E2E_METRICS_PORT": "65535"}[k] }, "/h", "/r")
	if err == nil || !strings.Contains(err.Error(), "TFS_E2E_METRICS_PORT") {
		t.Fatal(err)
	}
}

func TestManifests(t *testing.T) {
	s := settings(t, nil)
	a, _ := Address(s)
	docs := strings.Split(Manifests(s, a, []byte("PEM")), "---\n")
	if len(docs) != 7 {
		t.Fatalf("%d documents", len(docs))
	}
	kinds := map[string][]string{}
	for _, d := range docs {
		kinds[field(t, d, "kind")] = append(kinds[field(t, d, "kind")], field(t, d, "name"))
	}
	want := map[string][]string{
		"Service":    {"metrics-server", "prometheus-adapter"},
		"Endpoints":  {"metrics-server", "prometheus-adapter"},
		"APIService": {"v1beta1.metrics.k8s.io", "v1beta1.custom.metrics.k8s.io", "v1beta2.custom.metrics.k8s.io"},
	}
	for k, names := range want {
		if strings.Join(kinds[k], ",") != strings.Join(names, ",") {
			t.Errorf("%s: %v, want %v", k, kinds[k], names)
		}
	}
	// Endpoints: the bridge address (never loopback, which the API server
	// refuses), the port the server listens on, named as the Service's port.
	for i, port := range []string{"19093", "19094"} {
		ep := docs[2*i+1]
		if field(t, ep, "ip") != "10.213.0.1" || field(t, ep, "port") != port || !strings.Contains(ep, "      - name: https\n") {
			t.Errorf("endpoints\n%s", ep)
		}
		if field(t, docs[2*i], "targetPort") != port || !strings.Contains(docs[2*i], "    - name: https\n") {
			t.Errorf("service\n%s", docs[2*i])
		}
	}
	for _, d := range docs[4:] {
		if field(t, d, "caBundle") != base64.StdEncoding.EncodeToString([]byte("PEM")) {
			t.Errorf("caBundle\n%s", d)
		}
	}
	if !strings.Contains(docs[6], "service: {name: prometheus-adapter, namespace: kube-system, port: 443}") || field(t, docs[6], "versionPriority") != "200" {
		t.Errorf("v1beta2\n%s", docs[6])
	}
	if got := strings.Join(APIServiceNames(), " "); got != "v1beta1.metrics.k8s.io v1beta1.custom.metrics.k8s.io v1beta2.custom.metrics.k8s.io" {
		t.Error(got)
	}
}

func TestCertNamesAreTheServicesDNSNamesAndTheAddress(t *testing.T) {
	a, _ := Address(settings(t, nil))
	dns, ips := CertNames(a)
	if strings.Join(dns, " ") != "metrics-server.kube-system.svc metrics-server.kube-system.svc.cluster.local prometheus-adapter.kube-system.svc prometheus-adapter.kube-system.svc.cluster.local" {
		t.Error(dns)
	}
	if len(ips) != 1 || ips[0].String() != "10.213.0.1" {
		t.Error(ips)
	}
}
