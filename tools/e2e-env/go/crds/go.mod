// Pins the Prometheus Operator whose CRDs (example/prometheus-operator-crd/ in
// its module) the e2e environment installs into its API server and the unit
// tests validate the PodMonitor and PrometheusRule objects against. Nothing is
// built from it.
module tfs-e2e/crds

go 1.26.0

require github.com/prometheus-operator/prometheus-operator v0.85.0

require sigs.k8s.io/gateway-api v1.6.3 // indirect
