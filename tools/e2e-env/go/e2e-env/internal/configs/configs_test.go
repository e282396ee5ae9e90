package configs

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func settings(t *testing.T, env map[string]string) Settings {
	t.Helper()
	s, err := FromEnv(func(k string) string { return env[k] }, "/home/u", "/repo")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestDefaultsAndOverrides(t *testing.T) {
	s := settings(t, nil)
	if s.Cache != "/home/u/.cache/tf-serving-e2e" || s.State != s.Cache+"/state" || s.Bin() != s.Cache+"/bin" {
		t.Fatalf("folders: %+v", s)
	}
	if s.APIPort != 16443 || s.EtcdPort != 12379 || s.EtcdPeerPort() != 12380 || s.RegistryPort != 5001 || s.KCMPort != 10257 ||
		s.SchedulerPort != 10259 || s.KwokPort != 10247 || s.KubeletPort != 10350 || s.KubeletHealthzPort() != 10348 || s.PrometheusPort != 19090 {
		t.Fatalf("ports: %+v", s)
	}
	if s.LBMode != "ip" || s.LBIPRange != "127.0.100.0/24" || s.PodSubnet != "10.213.0.0/24" || s.NodeBridge != "tfse2e0" ||
		s.NodeCgroup != "/tfs-e2e" || s.NoApt || s.Registry() != "127.0.0.1:5001" || s.LoginRegistry() != "127.0.0.1:5002" {
		t.Fatalf("settings: %+v", s)
	}
	s = settings(t, map[string]string{"TFS_E2E_CACHE": "/c", "TFS_E2E_API_PORT": "17443", "TFS_E2E_REGISTRY_PORT": "5002",
		"TFS_E2E_KUBELET_PORT": "11350", "TFS_E2E_NO_APT": "1", "TFS_E2E_LB_MODE": "hostname"})
	if s.State != "/c/state" || s.APIPort != 17443 || s.KubeletHealthzPort() != 11348 || !s.NoApt || s.LBMode != "hostname" ||
		s.BaseImage() != "127.0.0.1:5002/tensorflow/serving:stand-in" || s.LoginRegistry() != "127.0.0.1:5003" {
		t.Fatalf("overrides: %+v", s)
	}
	if s := settings(t, map[string]string{"TFS_E2E_LOGIN_REGISTRY_PORT": "15002"}); s.LoginRegistry() != "127.0.0.1:15002" {
		t.Fatalf("login registry: %+v", s)
	}
	if _, err := FromEnv(func(k string) string { return map[string]string{"TFS_E2E_ETCD_PORT": "x"}[k] }, "/h", "/r"); err == nil {
		t.Fatal("want an error for a port that is no number")
	}
}

func TestRendered(t *testing.T) {
	s := settings(t, map[string]string{"TFS_E2E_STATE": "/st", "TFS_E2E_API_PORT": "17443", "TFS_E2E_REGISTRY_PORT": "5002"})
	k := Kubeconfig(s, "scheduler")
	for _, want := range []string{"server: https://127.0.0.1:17443\n", "certificate-authority: /st/pki/ca.crt\n",
		"client-certificate: /st/pki/scheduler.crt\n", "client-key: /st/pki/scheduler.key\n", "current-context: tfs-e2e\n"} {
		if !strings.Contains(k, want) {
			t.Errorf("kubeconfig lacks %q:\n%s", want, k)
		}
	}
	if r := RegistryYML(s); !strings.Contains(r, "rootdirectory: /st/registry\n") || !strings.Contains(r, "addr: 127.0.0.1:5002\n") {
		t.Errorf("registry.yml:\n%s", r)
	}
	if r := RegistriesConf(s); !strings.Contains(r, `location = "127.0.0.1:5002"`) || !strings.Contains(r, `location = "localhost:5002"`) ||
		!strings.Contains(r, "location = \"127.0.0.1:5003\"\ninsecure = true\n") {
		t.Errorf("registries.conf:\n%s", r)
	}
	if c := StorageConf(s); !strings.Contains(c, `graphroot = "/st/podman/storage"`) {
		t.Errorf("storage.conf:\n%s", c)
	}
	if c := ContainersConf(s); !strings.Contains(c, `tmp_dir = "/st/podman/tmp"`) || !strings.Contains(c, `events_logfile_path = "/st/podman/events.log"`) {
		t.Errorf("containers.conf:\n%s", c)
	}
	g := GPUNodeManifest("v1.33.13")
	for _, want := range []string{"name: tfs-e2e-gpu\n", "cloud.google.com/gke-accelerator: nvidia-tesla-t4\n", "kubeletVersion: v1.33.13\n",
		"effect: NoSchedule\n", `nvidia.com/gpu: "1"`} {
		if !strings.Contains(g, want) {
			t.Errorf("GPU node lacks %q", want)
		}
	}
}

// The env file, sourced by a shell, sets every variable the README lists.
func TestEnvFile(t *testing.T) {
	s := settings(t, map[string]string{"TFS_E2E_STATE": "/st", "TFS_E2E_REGISTRY_PORT": "5002", "TFS_E2E_POD_SUBNET": "10.214.0.0/24"})
	file := filepath.Join(t.TempDir(), "env.sh")
	if err := os.WriteFile(file, []byte(EnvFile(s, "/b/pulumi-x", "/b/kube-y", "")), 0o644); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"TFS_E2E_STATE": "/st", "BUILDAH_ISOLATION": "chroot", "KUBECONFIG": "/st/kubeconfig",
		"DOCKER_HOST":             "unix:///st/run/podman.sock",
		"CONTAINERS_STORAGE_CONF": "/st/podman/storage.conf", "CONTAINERS_REGISTRIES_CONF": "/st/podman/registries.conf",
		"CONTAINERS_CONF": "/st/podman/containers.conf", "PATH": "/b/pulumi-x/bin:/b/kube-y/bin:/usr/bin:/bin",
		"PULUMI_HOME": "/st/pulumi-home", "PULUMI_BACKEND_URL": "file:///st/pulumi-backend?metadata=skip", "PULUMI_CONFIG_PASSPHRASE": "tfs-e2e-local",
		"PULUMI_SKIP_UPDATE_CHECK": "true", "PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK": "true",
		"PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION": "true", "PULUMI_IGNORE_AMBIENT_PLUGINS": "true",
		"PULUMI_DIY_BACKEND_NO_LEGACY_WARNING": "true", "TFS_E2E_REGISTRY": "127.0.0.1:5002",
		"TFS_E2E_BASE_IMAGE": "127.0.0.1:5002/tensorflow/serving:stand-in", "TFS_E2E_LOGIN_REGISTRY": "127.0.0.1:5003", "TFS_E2E_KUBE_CONTEXT": "tfs-e2e",
		"TFS_E2E_CPU_NODE": "tfs-e2e-cpu", "TFS_E2E_GPU_NODE": "tfs-e2e-gpu",
		"TFS_E2E_GPU_NODE_LABEL": "cloud.google.com/gke-accelerator=nvidia-tesla-t4", "TFS_E2E_LB_MODE": "ip",
		"TFS_E2E_POD_SUBNET": "10.214.0.0/24", "TFS_E2E_PROMETHEUS_URL": "http://127.0.0.1:19090",
		"TFS_E2E_PROMETHEUS_RULES": "/st/prometheus/rules",
		"TFS_E2E_GATEWAY_CLASS":    "tfs-e2e-traefik", "TFS_E2E_GATEWAY_ADDRESS": "127.0.110.1",
	}
	names := Exported(EnvFile(s, "/b/pulumi-x", "/b/kube-y", ""))
	if len(names) != len(want) {
		t.Errorf("the env file exports %d variables, want %d: %v", len(names), len(want), names)
	}
	for _, n := range names {
		cmd := exec.Command("bash", "-c", `source "$1"; printf %s "${!2}"`, "_", file, n)
		cmd.Env = []string{"PATH=/usr/bin:/bin"}
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != want[n] {
			t.Errorf("%s=%q, want %q", n, out, want[n])
		}
	}
}

// The Node.js scripts/lib/node.sh installed (TFS_NODE_BIN) comes first on the
// env file's PATH, before the user's older node; without one PATH is as above.
func TestEnvFileNode(t *testing.T) {
	s := settings(t, map[string]string{"TFS_E2E_STATE": "/st"})
	file := filepath.Join(t.TempDir(), "env.sh")
	if err := os.WriteFile(file, []byte(EnvFile(s, "/b/pulumi-x", "/b/kube-y", "/c/node-24.22.3/bin")), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", `source "$1"; printf %s "$PATH"`, "_", file)
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "/c/node-24.22.3/bin:/b/pulumi-x/bin:/b/kube-y/bin:/usr/bin:/bin"; string(out) != want {
		t.Errorf("PATH=%q, want %q", out, want)
	}
}

// Each environment's Traefik has a loopback address of its own; anything else is refused.
func TestGatewayAddress(t *testing.T) {
	if s := settings(t, nil); s.GatewayAddress != "127.0.110.1" || s.GatewayAdminPort != 19092 {
		t.Errorf("defaults %s %d", s.GatewayAddress, s.GatewayAdminPort)
	}
	if s := settings(t, map[string]string{"TFS_E2E_GATEWAY_ADDRESS": "127.0.111.1", "TFS_E2E_GATEWAY_ADMIN_PORT": "19192"}); s.GatewayAddress != "127.0.111.1" || s.GatewayAdminPort != 19192 {
		t.Errorf("overrides %s %d", s.GatewayAddress, s.GatewayAdminPort)
	}
	for _, bad := range []string{"10.0.0.1", "localhost", "::1"} {
		_, err := FromEnv(func(k string) string { return map[string]string{"TFS_E2E_GATEWAY_ADDRESS": bad}[k] }, "/h", "/r")
		if err == nil || !strings.Contains(err.Error(), "TFS_E2E_GATEWAY_ADDRESS") {
			t.Errorf("%s: want an error naming the setting, got %v", bad, err)
		}
	}
}

func TestTheDynamicProviderPluginRunsTheProgramsOwnSDK(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH")
	}
	// A program folder whose @pulumi/pulumi dynamic provider prints its arguments.
	dir := t.TempDir()
	sdk := filepath.Join(dir, "node_modules", "@pulumi", "pulumi", "cmd", "dynamic-provider")
	if err := os.MkdirAll(sdk, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "node_modules", "@pulumi", "pulumi", "package.json"), []byte(`{"name":"@pulumi/pulumi"}`), 0o644)
	os.WriteFile(filepath.Join(sdk, "index.js"), []byte(`console.log("dynamic provider " + process.argv.slice(2).join(" "))`), 0o644)
	plugin := filepath.Join(t.TempDir(), DynamicProviderPlugin)
	if err := os.WriteFile(plugin, []byte(DynamicProviderScript), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(plugin, "127.0.0.1:4242")
	cmd.Dir = filepath.Join(dir)
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "dynamic provider 127.0.0.1:4242" {
		t.Fatalf("in a program folder: %v %q", err, out)
	}
	cmd = exec.Command(plugin)
	cmd.Dir = t.TempDir()
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "@pulumi/pulumi is not installed where the program runs") {
		t.Fatalf("without the SDK: %v %q", err, out)
	}
}

func TestGPUNodeVersionPatchSetsTheKubeletVersion(t *testing.T) {
	var patch struct {
		Status struct {
			NodeInfo map[string]string `json:"nodeInfo"`
		} `json:"status"`
	}
	if err := json.Unmarshal([]byte(GPUNodeVersionPatch("v1.35.4")), &patch); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if got := patch.Status.NodeInfo; len(got) != 1 || got["kubeletVersion"] != "v1.35.4" {
		t.Fatalf("nodeInfo = %v, want only kubeletVersion v1.35.4", got)
	}
}
