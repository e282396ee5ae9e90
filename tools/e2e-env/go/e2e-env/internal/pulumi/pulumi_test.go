package pulumi

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A fake CLI that records its arguments and installs the plugin as pulumi would.
const fakeCLI = `#!/bin/sh
echo "$@" >> "$(dirname "$0")/calls"
if [ "$1" = plugin ]; then
	mkdir -p "$PULUMI_HOME/plugins/resource-$4-v$5" && cp "$7" "$PULUMI_HOME/plugins/resource-$4-v$5/pulumi-resource-$4"
fi
[ "$1" != login ] || [ "$2" != bad ] || { echo "no such backend"; exit 1; }
`

func TestInstallPluginAndLogin(t *testing.T) {
	d := t.TempDir()
	cli := filepath.Join(d, "pulumi")
	os.WriteFile(cli, []byte(fakeCLI), 0o755)
	home := filepath.Join(d, "home")
	t.Setenv("PULUMI_HOME", home)
	bin := filepath.Join(d, "provider")
	os.WriteFile(bin, []byte("v1"), 0o755)
	var stderr bytes.Buffer
	e := Engine{CLI: cli, Home: home, Logs: d, Stderr: &stderr}
	calls := func() string { b, _ := os.ReadFile(filepath.Join(d, "calls")); return string(b) }

	if err := e.InstallPlugin("docker", "5.2.0", bin); err != nil {
		t.Fatal(err)
	}
	if want := "plugin install resource docker 5.2.0 --file " + bin + " --reinstall\n"; calls() != want {
		t.Fatalf("calls %q, want %q", calls(), want)
	}
	if err := e.InstallPlugin("docker", "5.2.0", bin); err != nil || strings.Count(calls(), "plugin") != 1 {
		t.Fatalf("the same binary was installed again (%v): %q", err, calls())
	}
	os.WriteFile(bin, []byte("v2"), 0o755)
	if err := e.InstallPlugin("docker", "5.2.0", bin); err != nil || strings.Count(calls(), "plugin") != 2 {
		t.Fatalf("a new binary was not installed (%v): %q", err, calls())
	}
	if err := e.Login("file:///x"); err != nil {
		t.Fatal(err)
	}
	if err := e.Login("bad"); err == nil || !strings.Contains(stderr.String(), "no such backend") {
		t.Fatalf("want the failure with its log, got %v, %q", err, stderr.String())
	}
}
