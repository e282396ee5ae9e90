package prometheus

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"tfs-e2e/e2e-env/internal/configs"
)

func settings(t *testing.T) configs.Settings {
	t.Helper()
	env := map[string]string{"TFS_E2E_STATE": "/st", "TFS_E2E_KUBELET_PORT": "11350", "TFS_E2E_PROMETHEUS_PORT": "19191"}
	s, err := configs.FromEnv(func(k string) string { return env[k] }, "/home/u", "/repo")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConfigScrapesTheRealNodesPodsByAnnotationTheKubeletsCAdvisorAndTheStateMetrics(t *testing.T) {
	c := Config(settings(t))
	for _, want := range []string{
		"  - /st/prometheus/rules/*.yaml\n",
		"url: http://127.0.0.1:19192/targets\n",
		"source_labels: [__meta_kubernetes_pod_annotation_prometheus_io_scrape]\n        action: keep\n        regex: \"true\"\n",
		"source_labels: [__meta_kubernetes_pod_container_port_name]\n        action: keep\n        regex: http\n",
		"target_label: __metrics_path__\n",
		"source_labels: [__meta_kubernetes_pod_name]\n        target_label: pod\n",
		"source_labels: [__meta_kubernetes_namespace]\n        target_label: namespace\n",
		"source_labels: [__meta_kubernetes_pod_container_name]\n        target_label: container\n",
		"metrics_path: /metrics/cadvisor\n",
		`targets: ["10.213.0.1:11350"]`,
		"cert_file: /st/pki/admin.crt\n",
		"job_name: kube-state-metrics\n    honor_labels: true\n    static_configs:\n      - targets: [\"127.0.0.1:19192\"]\n",
	} {
		if !strings.Contains(c, want) {
			t.Errorf("prometheus.yml lacks %q:\n%s", want, c)
		}
	}
}

func TestArgsKeepItOnLoopbackWithABoundedHistory(t *testing.T) {
	a := strings.Join(Args(settings(t)), " ")
	for _, want := range []string{"--config.file=/st/prometheus/prometheus.yml", "--storage.tsdb.path=/st/prometheus/data",
		"--storage.tsdb.retention.time=6h", "--storage.tsdb.retention.size=512MB", "--web.listen-address=127.0.0.1:19191", "--web.enable-lifecycle"} {
		if !strings.Contains(a, want) {
			t.Errorf("args lack %s: %s", want, a)
		}
	}
}

// Debian's promtool (installed with Debian's prometheus, like the server)
// accepts the configuration: every relabel rule, selector and file option.
func TestPromtoolAcceptsTheConfig(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal("promtool is not installed: apt-get install -y prometheus (scripts/e2e-env packages)")
	}
	dir := t.TempDir()
	s := settings(t)
	s.State = dir
	file := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(file, []byte(Config(s)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(promtool, "check", "config", "--syntax-only", file).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool check config: %v\n%s", err, out)
	}
}

// The CRD files exist where CRDFiles says: the operator's in its module (when
// the module cache has it, as after prepare), GMP's beside the pin.
func TestGMPCRDsAreBesideThePin(t *testing.T) {
	if _, err := os.Stat(filepath.Join("..", "..", "..", "crds", GMPCRDFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join("..", "..", "..", "crds", "go.mod")); err != nil {
		t.Fatal(err)
	}
}
