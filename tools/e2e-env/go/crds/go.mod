// Pins the modules whose CRDs the e2e environment installs into its API server
// and the unit tests validate the product's objects against: the Prometheus
// Operator's (example/prometheus-operator-crd/), the Gateway API's
// (config/crd/standard/) and Traefik's (integration/fixtures/k8s/, its
// Middleware; v3.7.13, the newest 3.7 the module proxy serves, beside the 3.7.15
// binary). Nothing is built from them.
module tfs-e2e/crds

go 1.26.0

require github.com/prometheus-operator/prometheus-operator v0.85.0

require (
	github.com/traefik/traefik/v3 v3.7.13
	sigs.k8s.io/gateway-api v1.6.3 // indirect
)
