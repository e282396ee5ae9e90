package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tfs-e2e/e2e-env/internal/configs"
)

// env --json is what the test harness loads into its own environment: the
// values a shell that sources the file sees, every variable, in the file's order.
func TestPrintEnvJSON(t *testing.T) {
	state := t.TempDir()
	file := strings.Join([]string{
		"# a comment",
		`export KUBECONFIG="` + state + `/kubeconfig"`,
		`export PATH="/opt/pulumi/bin:$PATH"`,
		`export PULUMI_CONFIG_PASSPHRASE="${PULUMI_CONFIG_PASSPHRASE:-tfs-e2e-local}"`,
		`export TFS_E2E_GPU_NODE_LABEL="cloud.google.com/gke-accelerator=nvidia-tesla-t4"`,
		`export QUOTED="a \"b\" <c> & d"`,
		"",
	}, "\n")
	if err := os.WriteFile(filepath.Join(state, "env.sh"), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", "/usr/bin:/bin")
	t.Setenv("PULUMI_CONFIG_PASSPHRASE", "")
	e := &env{s: configs.Settings{State: state}}

	var out bytes.Buffer
	if err := e.printEnv(&out, true); err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	want := map[string]string{
		"KUBECONFIG":               state + "/kubeconfig",
		"PATH":                     "/opt/pulumi/bin:/usr/bin:/bin",
		"PULUMI_CONFIG_PASSPHRASE": "tfs-e2e-local",
		"TFS_E2E_GPU_NODE_LABEL":   "cloud.google.com/gke-accelerator=nvidia-tesla-t4",
		"QUOTED":                   `a "b" <c> & d`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %d variables, want %d: %v", len(got), len(want), got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if i, j := strings.Index(out.String(), `"KUBECONFIG"`), strings.Index(out.String(), `"QUOTED"`); i < 0 || j < i {
		t.Errorf("variables not in the file's order:\n%s", out.String())
	}

	out.Reset()
	if err := e.printEnv(&out, false); err != nil || out.String() != file {
		t.Errorf("without --json: the file as it is; got %q, %v", out.String(), err)
	}
}

func TestPrintEnvWithoutFile(t *testing.T) {
	e := &env{s: configs.Settings{State: t.TempDir()}}
	err := e.printEnv(&bytes.Buffer{}, true)
	if err == nil || !strings.Contains(err.Error(), "scripts/e2e-env start") {
		t.Fatalf("want an error that says to start the environment, got %v", err)
	}
}

// The node's command line names the runtime bundle it runs containerd from.
func TestFlagValue(t *testing.T) {
	cl := "/c/bin/kube-v1/kube node run --name tfs-e2e-cpu --runtime-dir /c/bin/containerd-v2.2.10-runc-v1.4.4-abc --labels a=b"
	if got := flagValue(cl, "--runtime-dir"); got != "/c/bin/containerd-v2.2.10-runc-v1.4.4-abc" {
		t.Errorf("got %q", got)
	}
	if got := flagValue(cl+" --last", "--last"); got != "" {
		t.Errorf("a flag without a value: got %q", got)
	}
	if got := flagValue("/usr/bin/kube node run --name x", "--runtime-dir"); got != "" {
		t.Errorf("a node started without one: got %q", got)
	}
}

// The selftest's environment shares no port, subnet, bridge or cgroup with the
// default one, whatever the user's settings say, and keeps the user's cache.
func TestSelftestSettingsAreItsOwn(t *testing.T) {
	user := map[string]string{"TFS_E2E_CACHE": "/c", "TFS_E2E_API_PORT": "24443", "TFS_E2E_STATE": "/mine"}
	s, err := selftestSettings(func(k string) string { return user[k] }, "/home/u", "/repo")
	if err != nil {
		t.Fatal(err)
	}
	d, _ := configs.FromEnv(func(string) string { return "" }, "/home/u", "/repo")
	if s.Cache != "/c" || s.State != "/c/selftest-state" {
		t.Errorf("cache %s, state %s", s.Cache, s.State)
	}
	for name, pair := range map[string][2]any{
		"api": {s.APIPort, d.APIPort}, "etcd": {s.EtcdPort, d.EtcdPort}, "registry": {s.RegistryPort, d.RegistryPort},
		"login registry": {s.LoginRegistryPort, d.LoginRegistryPort}, "kcm": {s.KCMPort, d.KCMPort},
		"scheduler": {s.SchedulerPort, d.SchedulerPort}, "kwok": {s.KwokPort, d.KwokPort}, "kubelet": {s.KubeletPort, d.KubeletPort},
		"prometheus": {s.PrometheusPort, d.PrometheusPort}, "metrics": {s.MetricsPort, d.MetricsPort},
		"gateway": {s.GatewayAddress, d.GatewayAddress}, "lb": {s.LBIPRange, d.LBIPRange}, "subnet": {s.PodSubnet, d.PodSubnet},
		"bridge": {s.NodeBridge, d.NodeBridge}, "cgroup": {s.NodeCgroup, d.NodeCgroup},
	} {
		if pair[0] == pair[1] {
			t.Errorf("%s: %v, as the default environment's", name, pair[0])
		}
		if p, ok := pair[0].(int); ok && p >= 32768 {
			t.Errorf("%s port %d is in the ephemeral range", name, p)
		}
	}
}
