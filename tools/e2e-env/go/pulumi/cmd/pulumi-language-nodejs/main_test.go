package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRequiredPluginsFollowsTheDependencyTree(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "package.json"),
		`{"dependencies": {"@pulumi/kubernetes": "4.34.2", "left-pad": "1"}, "devDependencies": {"@pulumi/docker": "5.2.0"}}`)
	write(t, filepath.Join(root, "node_modules/@pulumi/kubernetes/package.json"),
		`{"name": "@pulumi/kubernetes", "version": "4.34.2", "pulumi": {"resource": true, "name": "kubernetes"}, "dependencies": {"@pulumi/random": "4"}}`)
	write(t, filepath.Join(root, "node_modules/@pulumi/docker/package.json"),
		`{"name": "@pulumi/docker", "version": "0.0.1", "pulumi": {"resource": true, "name": "docker", "version": "5.2.0"}}`)
	write(t, filepath.Join(root, "node_modules/@pulumi/random/package.json"),
		`{"name": "@pulumi/random", "version": "4.1.0", "pulumi": {"resource": true}}`)
	write(t, filepath.Join(root, "node_modules/left-pad/package.json"), `{"name": "left-pad", "version": "1.0.0"}`)
	program := filepath.Join(root, "infra")
	if err := os.MkdirAll(program, 0o755); err != nil {
		t.Fatal(err)
	}

	got, err := requiredPlugins(program)
	if err != nil {
		t.Fatal(err)
	}
	want := []plugin{{name: "docker", version: "5.2.0"}, {name: "kubernetes", version: "4.34.2"}, {name: "random", version: "4.1.0"}}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("plugin %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestRequiredPluginsWithoutPackageJSONFails(t *testing.T) {
	if _, err := requiredPlugins(t.TempDir()); err == nil {
		t.Fatal("want an error naming the missing package.json")
	}
}

func TestReadOptions(t *testing.T) {
	if o := readOptions(nil); !o.typescript || o.packageManager != "npm" || o.nodeargs != nil {
		t.Fatalf("defaults: %+v", o)
	}
	s, err := structpb.NewStruct(map[string]any{"typescript": false, "nodeargs": "--max-old-space-size=4096 --trace-warnings", "tsconfig": "tsconfig.pulumi.json"})
	if err != nil {
		t.Fatal(err)
	}
	o := readOptions(s)
	if o.typescript || len(o.nodeargs) != 2 || o.tsconfig != "tsconfig.pulumi.json" {
		t.Fatalf("options: %+v", o)
	}
}

func TestFindPulumiScriptWalksUp(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "node_modules/@pulumi/pulumi/cmd/run/index.js"), "")
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := findPulumiScript(deep, filepath.Join("cmd", "run"))
	if err != nil || got != filepath.Join(root, "node_modules/@pulumi/pulumi/cmd/run") {
		t.Fatalf("got %q, %v", got, err)
	}
	if _, err := findPulumiScript(t.TempDir(), filepath.Join("cmd", "run")); err == nil {
		t.Fatal("want an error when @pulumi/pulumi is not installed")
	}
}

func TestPluginCommandLinePutsTheProgramWhereEachEntryPointReadsIt(t *testing.T) {
	// cmd/run-plugin: RUN <program> [args...] (@pulumi/pulumi cmd/run-plugin/run.js).
	got := pluginCommandLine("resource", []string{"--max-old-space-size=512"}, "/sdk/cmd/run-plugin", "/plugin", []string{"127.0.0.1:4000"})
	want := []string{"--max-old-space-size=512", "/sdk/cmd/run-plugin", "/plugin", "127.0.0.1:4000"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("resource plugin: got %q, want %q", got, want)
	}
	// cmd/run-policy-pack: RUN <engine-address> <program> (@pulumi/pulumi cmd/run-policy-pack/index.js).
	got = pluginCommandLine("analyzer", nil, "/sdk/cmd/run-policy-pack", "/policy", []string{"127.0.0.1:4000"})
	want = []string{"/sdk/cmd/run-policy-pack", "127.0.0.1:4000", "/policy"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("policy pack: got %q, want %q", got, want)
	}
}
