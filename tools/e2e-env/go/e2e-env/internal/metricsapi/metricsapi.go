// Package metricsapi renders what the environment's two aggregated metrics
// APIs need: metrics-server (metrics.k8s.io, from the real kubelet's
// /metrics/resource) and prometheus-adapter (custom.metrics.k8s.io, over the
// environment's Prometheus), their command lines, the adapter's rules, and the
// Services, Endpoints and APIServices through which the API server reaches
// them.
//
// Both run on the host, as the other components do, rather than as pods: they
// need no image, start before any pod can run, and are supervised, logged and
// stopped like Prometheus and Traefik. The API server finds an aggregated API
// through its Service's Endpoints (--enable-aggregator-routing: there is no
// kube-proxy to route a cluster IP), and Endpoints refuse loopback addresses,
// so both listen on the node bridge's host address (the node's InternalIP,
// where the kubelet listens too).
package metricsapi

import (
	"encoding/base64"
	"fmt"
	"net"
	"net/netip"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"tfs-e2e/e2e-env/internal/configs"
)

// RequestRateMetric is the per-pod metric prometheus-adapter serves: the rate,
// per second, of TF Serving's successful predict, classify and regress calls.
// The stack's request-rate HPA names it (serving/autoscaling.ts,
// INFERENCE_REQUEST_RATE_METRIC, pinned to this constant by
// test/unit/serving/autoscaling.test.ts).
const RequestRateMetric = "tfserving_inference_requests_per_second"

// RequestSeries is the series the rate is taken from: the latency histogram's
// count, which records each successful call once with its API. The request
// counter (:tensorflow:serving:request_count) has no API label, so it cannot
// leave out the kubelet's probe GETs (observability/metrics.ts, callRates).
const RequestSeries = ":tensorflow:serving:request_latency_count"

// InferenceAPIs are the API label's values of calls that run the model, as
// observability/metrics.ts' INFERENCE_APIS (gRPC's method names, REST's verbs).
var InferenceAPIs = []string{"Predict", "Classify", "Regress", "predict", "classify", "regress"}

// RateWindow is the adapter's rate window: four scrapes at 15 s, so the HPA
// (which reads every 15 s) follows a load within about a minute.
const RateWindow = "1m"

// RelistInterval is how often the adapter lists the series it can serve: a
// model deployed meanwhile is seen within it (upstream's default, 10 min, is
// longer than an end-to-end test).
const RelistInterval = "15s"

// Namespace of the Services and Endpoints.
const Namespace = "kube-system"

// The Services' names; the serving certificate carries their DNS names, which
// the aggregator checks.
const (
	MetricsServerService = "metrics-server"
	AdapterService       = "prometheus-adapter"
)

// ServingCert is the file name (under the PKI folder) of both servers' certificate.
const ServingCert = "metrics-apis"

// Address is the node bridge's host address (the pod subnet's first address).
func Address(s configs.Settings) (netip.Addr, error) {
	prefix, err := netip.ParsePrefix(s.PodSubnet)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("TFS_E2E_POD_SUBNET=%q: %w", s.PodSubnet, err)
	}
	return prefix.Masked().Addr().Next(), nil
}

// AdapterPort is prometheus-adapter's port: the one after metrics-server's.
func AdapterPort(s configs.Settings) int { return s.MetricsPort + 1 }

// CertNames are the serving certificate's DNS names and addresses.
func CertNames(addr netip.Addr) ([]string, []net.IP) {
	var dns []string
	for _, svc := range []string{MetricsServerService, AdapterService} {
		dns = append(dns, svc+"."+Namespace+".svc", svc+"."+Namespace+".svc.cluster.local")
	}
	return dns, []net.IP{net.IP(addr.AsSlice())}
}

// AdapterConfigFile is the adapter's rules file in the state folder.
func AdapterConfigFile(s configs.Settings) string {
	return filepath.Join(s.State, "prometheus-adapter.yaml")
}

// AdapterConfig is prometheus-adapter's rules (kubernetes-sigs/prometheus-adapter/docs/config.md): one
// metric per pod, RequestRateMetric, from RequestSeries' pod and namespace
// labels (which the environment's scrape sets, as a cluster's
// annotation-based scrape does).
func AdapterConfig() string {
	return `# Written by scripts/e2e-env: prometheus-adapter's rules (tools/e2e-env/go/e2e-env/internal/metricsapi).
rules:
  - seriesQuery: '` + RequestSeries + `{namespace!="",pod!=""}'
    resources:
      overrides:
        namespace: {resource: namespace}
        pod: {resource: pod}
    name:
      matches: '^` + regexp.QuoteMeta(RequestSeries) + `$'
      as: ` + RequestRateMetric + `
    metricsQuery: 'sum by (<<.GroupBy>>) (rate(<<.Series>>{<<.LabelMatchers>>,API=~"` + strings.Join(InferenceAPIs, "|") + `"}[` + RateWindow + `]))'
`
}

// MetricsServerArgs is metrics-server's command line (after the binary).
// admin is the admin kubeconfig: the API, the delegated authentication and
// authorization, and the kubelet's client certificate. The kubelet serves a
// certificate it made itself at start (no CA signs it), hence
// --kubelet-insecure-tls; the simulated GPU node has no kubelet to scrape,
// hence the node selector.
func MetricsServerArgs(s configs.Settings, addr netip.Addr, admin string) []string {
	p := s.PKI()
	return []string{
		"--kubeconfig", admin, "--authentication-kubeconfig", admin, "--authorization-kubeconfig", admin,
		"--bind-address", addr.String(), "--secure-port", strconv.Itoa(s.MetricsPort),
		"--tls-cert-file", filepath.Join(p, ServingCert+".crt"), "--tls-private-key-file", filepath.Join(p, ServingCert+".key"),
		"--kubelet-preferred-address-types", "InternalIP", "--kubelet-use-node-status-port", "--kubelet-insecure-tls",
		"--node-selector", "node.kubernetes.io/instance-type=" + configs.CPUNode,
		"--metric-resolution", "15s",
	}
}

// AdapterArgs is prometheus-adapter's command line (after the binary).
func AdapterArgs(s configs.Settings, addr netip.Addr, admin string) []string {
	p := s.PKI()
	return []string{
		"--lister-kubeconfig", admin, "--authentication-kubeconfig", admin, "--authorization-kubeconfig", admin,
		"--bind-address", addr.String(), "--secure-port", strconv.Itoa(AdapterPort(s)),
		"--tls-cert-file", filepath.Join(p, ServingCert+".crt"), "--tls-private-key-file", filepath.Join(p, ServingCert+".key"),
		"--prometheus-url", s.PrometheusURL(), "--config", AdapterConfigFile(s),
		"--metrics-relist-interval", RelistInterval, "--metrics-max-age", "5m",
	}
}

// HealthURL is a server's /livez (always allowed, without credentials). Not
// /readyz: metrics-server is ready only once it holds two scrapes of the
// kubelet (about 17 s at a 15 s resolution), which nothing at start needs.
func HealthURL(addr netip.Addr, port int) string {
	return "https://" + netip.AddrPortFrom(addr, uint16(port)).String() + "/livez"
}

// APIService is one aggregated group version.
type APIService struct {
	Group, Version, Service string
	VersionPriority         int
}

// APIServices are the group versions the two servers answer: metrics.k8s.io
// v1beta1 (metrics-server's only one), custom.metrics.k8s.io v1beta1 and
// v1beta2 (custom-metrics-apiserver serves both; the HPA controller prefers
// the higher version priority).
var APIServices = []APIService{
	{"metrics.k8s.io", "v1beta1", MetricsServerService, 100},
	{"custom.metrics.k8s.io", "v1beta1", AdapterService, 100},
	{"custom.metrics.k8s.io", "v1beta2", AdapterService, 200},
}

// Manifests are the Services (no selector), their Endpoints (the host
// address and port; the endpoint-slice mirroring controller copies them) and
// the APIServices, whose caBundle is the environment's CA (PEM).
func Manifests(s configs.Settings, addr netip.Addr, caPEM []byte) string {
	var b strings.Builder
	for _, svc := range []struct {
		name string
		port int
	}{{MetricsServerService, s.MetricsPort}, {AdapterService, AdapterPort(s)}} {
		fmt.Fprintf(&b, `apiVersion: v1
kind: Service
metadata:
  name: %[1]s
  namespace: %[2]s
  labels: {app.kubernetes.io/part-of: tfs-e2e}
spec:
  ports:
    - name: https
      port: 443
      protocol: TCP
      targetPort: %[3]d
---
apiVersion: v1
kind: Endpoints
metadata:
  name: %[1]s
  namespace: %[2]s
  labels: {app.kubernetes.io/part-of: tfs-e2e}
subsets:
  - addresses:
      - ip: %[4]s
    ports:
      - name: https
        port: %[3]d
        protocol: TCP
---
`, svc.name, Namespace, svc.port, addr)
	}
	ca := base64.StdEncoding.EncodeToString(caPEM)
	for i, a := range APIServices {
		if i > 0 {
			b.WriteString("---\n")
		}
		fmt.Fprintf(&b, `apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: %[2]s.%[1]s
  labels: {app.kubernetes.io/part-of: tfs-e2e}
spec:
  group: %[1]s
  version: %[2]s
  service: {name: %[3]s, namespace: %[4]s, port: 443}
  caBundle: %[5]s
  groupPriorityMinimum: 100
  versionPriority: %[6]d
`, a.Group, a.Version, a.Service, Namespace, ca, a.VersionPriority)
	}
	return b.String()
}

// APIServiceNames are the APIServices' object names (VERSION.GROUP).
func APIServiceNames() []string {
	var n []string
	for _, a := range APIServices {
		n = append(n, a.Version+"."+a.Group)
	}
	return n
}
