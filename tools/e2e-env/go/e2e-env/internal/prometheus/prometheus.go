// Package prometheus renders the loopback environment's Prometheus (Debian's
// /usr/bin/prometheus): its configuration, its command line, and the CRDs
// installed into the API server so the product's scrape and rule objects are
// validated against their schemas.
//
// Prometheus listens on loopback only, keeps a bounded history (a few hours,
// a few hundred MB), finds the real node's pods through the API server
// (e2e-env pod-sd, see sd.go) and scrapes them as their
// prometheus.io/* annotations say, on the port named "http" (the dev stack's
// collector is "annotations"; the port name is the one PodMonitor and
// PodMonitoring name), with the namespace, pod and container target labels
// the alert rules read; it scrapes the kubelet's cAdvisor endpoint for
// container memory, OOM events and start times (on the bridge address, where
// the kubelet listens); it loads every *.yaml rule
// file of its rules folder (the e2e tests copy a stack's rules there and POST
// /-/reload).
package prometheus

import (
	"net/netip"
	"path/filepath"
	"strconv"

	"tfs-e2e/e2e-env/internal/bundles"
	"tfs-e2e/e2e-env/internal/configs"
)

// Exe is Debian's Prometheus server.
const Exe = "/usr/bin/prometheus"

// Retention bounds what the environment keeps: end-to-end runs last minutes.
const (
	RetentionTime = "6h"
	RetentionSize = "512MB"
)

// ScrapeInterval is the pods' and the kubelet's scrape (and rule evaluation) interval.
const ScrapeInterval = "15s"

// CAdvisorSeries are the kubelet cAdvisor series kept (the alert rules' and
// the dashboard's); the rest of the endpoint is dropped at scrape.
const CAdvisorSeries = "container_(memory_working_set_bytes|spec_memory_limit_bytes|oom_events_total|start_time_seconds)"

// Config is prometheus.yml.
func Config(s configs.Settings) string {
	pki := s.PKI()
	return `# Written by scripts/e2e-env start: the loopback environment's Prometheus.
global:
  scrape_interval: ` + ScrapeInterval + `
  evaluation_interval: ` + ScrapeInterval + `
rule_files:
  - ` + filepath.Join(s.PrometheusRules(), "*.yaml") + `
scrape_configs:
  # The pods of the real node (the simulated GPU node's pods answer nothing),
  # found through the API server, scraped as their annotations say.
  # (e2e-env pod-sd serves them with kubernetes_sd's pod-role labels: Debian's
  # Prometheus has no Kubernetes discovery.)
  - job_name: kubernetes-pods
    http_sd_configs:
      - url: ` + SDURL(s) + `
        refresh_interval: 10s
    relabel_configs:
      - source_labels: [__meta_kubernetes_pod_annotation_prometheus_io_scrape]
        action: keep
        regex: "true"
      - source_labels: [__meta_kubernetes_pod_container_port_name]
        action: keep
        regex: http
      - source_labels: [__meta_kubernetes_pod_annotation_prometheus_io_path]
        action: replace
        regex: (.+)
        target_label: __metrics_path__
      - source_labels: [__meta_kubernetes_pod_ip, __meta_kubernetes_pod_annotation_prometheus_io_port]
        action: replace
        regex: (.+);(\d+)
        replacement: $1:$2
        target_label: __address__
      - source_labels: [__meta_kubernetes_namespace]
        target_label: namespace
      - source_labels: [__meta_kubernetes_pod_name]
        target_label: pod
      - source_labels: [__meta_kubernetes_pod_container_name]
        target_label: container
  # The kubelet's cAdvisor: container memory, OOM events, start times. The
  # kubelet's serving certificate is its own self-signed one, on the node's bridge.
  - job_name: kubelet-cadvisor
    scheme: https
    metrics_path: /metrics/cadvisor
    tls_config:
      cert_file: ` + pki + `/admin.crt
      key_file: ` + pki + `/admin.key
      insecure_skip_verify: true
    static_configs:
      - targets: ["` + KubeletAddress(s) + `"]
        labels:
          node: ` + configs.CPUNode + `
    metric_relabel_configs:
      - source_labels: [__name__]
        action: keep
        regex: ` + CAdvisorSeries + `
  # kube-state-metrics (a stand-in: e2e-env pod-sd's /metrics, see ksm.go), its
  # series labelled with the objects' own namespace and pod, as clusters scrape it.
  - job_name: kube-state-metrics
    honor_labels: true
    static_configs:
      - targets: ["` + SDAddress(s) + `"]
`
}

// KubeletAddress is the real node's kubelet API: on the bridge, the pod
// subnet's first address.
func KubeletAddress(s configs.Settings) string {
	prefix, err := netip.ParsePrefix(s.PodSubnet)
	if err != nil {
		return "invalid-TFS_E2E_POD_SUBNET:" + strconv.Itoa(s.KubeletPort)
	}
	return netip.AddrPortFrom(prefix.Masked().Addr().Next(), uint16(s.KubeletPort)).String()
}

// SDPort is the port of e2e-env pod-sd: the one after Prometheus'.
func SDPort(s configs.Settings) int { return s.PrometheusPort + 1 }

// SDAddress is e2e-env pod-sd's listening address.
func SDAddress(s configs.Settings) string { return "127.0.0.1:" + strconv.Itoa(SDPort(s)) }

// SDURL is where Prometheus asks e2e-env pod-sd for the node's pods.
func SDURL(s configs.Settings) string { return "http://" + SDAddress(s) + "/targets" }

// SD is e2e-env pod-sd's configuration for the environment.
func SD(s configs.Settings) PodSD {
	p := s.PKI()
	return PodSD{APIServer: s.APIServer(), CA: p + "/ca.crt", Cert: p + "/admin.crt", Key: p + "/admin.key",
		Node: configs.CPUNode, Listen: SDAddress(s)}
}

// ConfigFile is where Config is written.
func ConfigFile(s configs.Settings) string { return filepath.Join(s.Prometheus(), "prometheus.yml") }

// Args is Prometheus' command line (after the executable).
func Args(s configs.Settings) []string {
	return []string{
		"--config.file=" + ConfigFile(s),
		"--storage.tsdb.path=" + filepath.Join(s.Prometheus(), "data"),
		"--storage.tsdb.retention.time=" + RetentionTime,
		"--storage.tsdb.retention.size=" + RetentionSize,
		"--web.listen-address=127.0.0.1:" + strconv.Itoa(s.PrometheusPort),
		"--web.enable-lifecycle",
	}
}

// OperatorModule is the Prometheus Operator's Go module; tools/e2e-env/go/crds/go.mod pins its version.
const OperatorModule = "github.com/prometheus-operator/prometheus-operator"

// OperatorCRDs are the Prometheus Operator CRDs installed: the kinds the
// product renders (PodMonitor, PrometheusRule) and ServiceMonitor.
var OperatorCRDs = []string{"podmonitors", "servicemonitors", "prometheusrules"}

// GMPCRDFile holds the structural CRDs of GMP's PodMonitoring and Rules, written from its API reference.
const GMPCRDFile = "monitoring.googleapis.com_v1.yaml"

// CRDFiles are the CRD files to apply: the Prometheus Operator's, from its
// module (go mod download in tools/e2e-env/go/crds, with goEnv), and GMP's.
func CRDFiles(tools string, goEnv []string) ([]string, error) {
	dir := filepath.Join(tools, "crds")
	moduleDir, err := bundles.DownloadModule(dir, goEnv, OperatorModule)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, plural := range OperatorCRDs {
		files = append(files, filepath.Join(moduleDir, "example", "prometheus-operator-crd", "monitoring.coreos.com_"+plural+".yaml"))
	}
	return append(files, filepath.Join(dir, GMPCRDFile)), nil
}
