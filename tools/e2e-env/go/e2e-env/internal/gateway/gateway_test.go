package gateway

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tfs-e2e/e2e-env/internal/bundles"
	"tfs-e2e/e2e-env/internal/configs"
	"tfs-e2e/e2e-env/internal/versions"
)

func settings(t *testing.T, env map[string]string) configs.Settings {
	t.Helper()
	s, err := configs.FromEnv(func(k string) string { return env[k] }, "/h", "/r")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Traefik listens on the Gateway address only (the listener ports of the
// product's Gateway), its ping on loopback, and publishes that address as the
// Gateway's status address.
func TestConfigListensOnTheGatewayAddressOnly(t *testing.T) {
	c := Config(settings(t, map[string]string{"TFS_E2E_STATE": "/st", "TFS_E2E_GATEWAY_ADDRESS": "127.0.112.1", "TFS_E2E_GATEWAY_ADMIN_PORT": "19292"}))
	for _, want := range []string{`address: "127.0.112.1:8501"`, `address: "127.0.112.1:8500"`, `address: "127.0.0.1:19292"`,
		"entryPoint: admin", "kubernetesGateway:", "kubernetesCRD: {}", `ip: "127.0.112.1"`, "checkNewVersion: false", "sendAnonymousUsage: false"} {
		if !strings.Contains(c, want) {
			t.Errorf("config lacks %s:\n%s", want, c)
		}
	}
	for _, line := range strings.Split(c, "\n") {
		if strings.Contains(line, "address:") && !strings.Contains(line, `"127.`) {
			t.Errorf("an entryPoint off loopback: %s", line)
		}
	}
	if PingURL(settings(t, map[string]string{"TFS_E2E_GATEWAY_ADMIN_PORT": "19292"})) != "http://127.0.0.1:19292/ping" {
		t.Error("ping URL")
	}
}

// The listener ports are the product's (serving/images.ts), or Traefik would map the Gateway's listeners to no entryPoint.
func TestListenerPortsAreTheProducts(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "..", "..", "serving", "images.ts"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"REST_PORT = 8501", "GRPC_PORT = 8500"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("serving/images.ts lacks %s: update RESTPort/GRPCPort", want)
		}
	}
	if RESTPort != 8501 || GRPCPort != 8500 {
		t.Error("ports")
	}
}

// Traefik's Kubernetes client reads the environment's admin kubeconfig, whatever KUBECONFIG the caller had.
func TestEnvPointsAtTheAdminKubeconfig(t *testing.T) {
	env := Env([]string{"PATH=/bin", "KUBECONFIG=/elsewhere"}, settings(t, map[string]string{"TFS_E2E_STATE": "/st"}))
	if strings.Join(env, " ") != "PATH=/bin KUBECONFIG=/st/kubeconfig" {
		t.Errorf("env %v", env)
	}
}

func TestGatewayClassIsTraefiks(t *testing.T) {
	g := GatewayClass()
	for _, want := range []string{"kind: GatewayClass", "name: " + configs.GatewayClass, "controllerName: traefik.io/gateway-controller"} {
		if !strings.Contains(g, want) {
			t.Errorf("GatewayClass lacks %s:\n%s", want, g)
		}
	}
}

// The pin is where CRDs reads it, and names the version Traefik 3.7 is built against.
func TestThePinIsBesideThePrometheusOperators(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "crds", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := versions.ModuleVersion(b, Module)
	if err != nil || v != "v1.6.3" {
		t.Fatalf("crds/go.mod pins %s %q (%v), want v1.6.3", Module, v, err)
	}
	if !strings.HasPrefix(bundles.TraefikVersion, "3.7.") {
		t.Errorf("Traefik %s: check the Gateway API version it supports before moving the pin", bundles.TraefikVersion)
	}
}

// With the module in the cache (after prepare), its standard channel holds every CRD start waits for.
func TestCRDsHoldTheKindsStartWaitsFor(t *testing.T) {
	home, _ := os.UserHomeDir()
	cache := filepath.Join(home, ".cache", "tf-serving-e2e")
	if _, err := os.Stat(filepath.Join(cache, "go", "mod", "sigs.k8s.io", "gateway-api@v1.6.3")); err != nil {
		t.Skip("the module is not in the cache yet (scripts/e2e-env prepare fetches it)")
	}
	env := append(bundles.GoEnv(cache), "GOPROXY=off")
	dir, err := CRDs(filepath.Join("..", "..", ".."), env)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range CRDNames {
		if _, err := os.Stat(filepath.Join(dir, "gateway.networking.k8s.io_"+n+".yaml")); err != nil {
			t.Error(err)
		}
	}
}
