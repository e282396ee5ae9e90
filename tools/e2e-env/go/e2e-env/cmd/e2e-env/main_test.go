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
