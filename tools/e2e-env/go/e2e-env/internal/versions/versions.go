// Package versions reads the environment's version pins from the one place each
// is pinned: the Go wrapper modules' go.mod files (Kubernetes, the Pulumi CLI)
// and the repository's package-lock.json (the provider plugins the npm SDKs ask
// for, and the @pulumi/pulumi SDK the CLI must match).
package versions

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Versions are the pins, without a leading "v" except Kubernetes'.
type Versions struct {
	Kubernetes         string // "v1.35.4", k8s.io/kubernetes in go/kube/go.mod
	KubernetesMajor    string // "1"
	KubernetesMinor    string // "35"
	Pulumi             string // "3.277.0", github.com/pulumi/pulumi/pkg/v3 in go/pulumi/go.mod
	PulumiSDK          string // "3.248.0", @pulumi/pulumi in package-lock.json
	KubernetesProvider string // "4.34.2", @pulumi/kubernetes in package-lock.json
	DockerProvider     string // "5.2.0", @pulumi/docker in package-lock.json
	MetricsServer      string // "v0.9.0", sigs.k8s.io/metrics-server in go/kwok/go.mod
	Kwok               string // "v0.8.0", sigs.k8s.io/kwok in go/kwok/go.mod
	PrometheusAdapter  string // "v0.12.0", sigs.k8s.io/prometheus-adapter in go/prometheus-adapter/go.mod
	Containerd         string // "v2.2.10", github.com/containerd/containerd/v2 in go/containerd/go.mod
	Runc               string // "v1.4.4", github.com/opencontainers/runc in go/containerd/go.mod
}

// ModuleVersion returns the version a go.mod's require lines give module
// (a replace line's right-hand side is never read).
func ModuleVersion(gomod []byte, module string) (string, error) {
	inReplace := false
	for _, raw := range strings.Split(string(gomod), "\n") {
		line := strings.TrimSpace(raw)
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		switch {
		case line == ")":
			inReplace = false
			continue
		case strings.HasPrefix(line, "replace ("):
			inReplace = true
			continue
		case inReplace, strings.HasPrefix(line, "replace "):
			continue
		}
		line = strings.TrimPrefix(line, "require ")
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == module {
			return f[1], nil
		}
	}
	return "", fmt.Errorf("go.mod requires no %s", module)
}

// LockVersion returns the version package-lock.json installs for an npm package.
func LockVersion(lock []byte, pkg string) (string, error) {
	var l struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(lock, &l); err != nil {
		return "", fmt.Errorf("package-lock.json: %w", err)
	}
	p, ok := l.Packages["node_modules/"+pkg]
	if !ok || p.Version == "" {
		return "", fmt.Errorf("package-lock.json installs no %s", pkg)
	}
	return p.Version, nil
}

var k8sVersion = regexp.MustCompile(`^v(\d+)\.(\d+)\.\d+$`)

// Parse reads the pins from the three files' contents.
func Parse(kubeGoMod, pulumiGoMod, packageLock []byte) (Versions, error) {
	var v Versions
	var err error
	if v.Kubernetes, err = ModuleVersion(kubeGoMod, "k8s.io/kubernetes"); err != nil {
		return v, fmt.Errorf("go/kube/%w", err)
	}
	m := k8sVersion.FindStringSubmatch(v.Kubernetes)
	if m == nil {
		return v, fmt.Errorf("go/kube/go.mod: k8s.io/kubernetes %s is no release version vX.Y.Z", v.Kubernetes)
	}
	v.KubernetesMajor, v.KubernetesMinor = m[1], m[2]
	p, err := ModuleVersion(pulumiGoMod, "github.com/pulumi/pulumi/pkg/v3")
	if err != nil {
		return v, fmt.Errorf("go/pulumi/%w", err)
	}
	v.Pulumi = strings.TrimPrefix(p, "v")
	for _, x := range []struct {
		pkg string
		dst *string
	}{
		{"@pulumi/pulumi", &v.PulumiSDK},
		{"@pulumi/kubernetes", &v.KubernetesProvider},
		{"@pulumi/docker", &v.DockerProvider},
	} {
		if *x.dst, err = LockVersion(packageLock, x.pkg); err != nil {
			return v, err
		}
	}
	return v, nil
}

// Check fails when the Pulumi CLI built here is older than the SDK the project
// installs. A CLI newer than the SDK is fine (the npm SDK asks the engine which
// features it supports before using them: pulumi/pulumi
// sdk/nodejs/runtime/settings.ts, monitorSupportsFeature); an older one may
// lack what the SDK needs. Both are X.Y.Z releases.
func (v Versions) Check() error {
	older, err := olderThan(v.Pulumi, v.PulumiSDK)
	if err != nil {
		return err
	}
	if older {
		return fmt.Errorf("the Pulumi CLI (github.com/pulumi/pulumi/pkg/v3 v%s in tools/e2e-env/go/pulumi/go.mod) is older than the SDK (@pulumi/pulumi %s in package-lock.json): update the go.mod (and go.sum) to the SDK's version or later", v.Pulumi, v.PulumiSDK)
	}
	return nil
}

var release = regexp.MustCompile(`^(\d+)\.(\d+)\.(\d+)$`)

// olderThan compares two X.Y.Z versions.
func olderThan(a, b string) (bool, error) {
	ma, mb := release.FindStringSubmatch(a), release.FindStringSubmatch(b)
	if ma == nil || mb == nil {
		return false, fmt.Errorf("the Pulumi CLI %q and SDK %q: want two X.Y.Z versions", a, b)
	}
	for i := 1; i <= 3; i++ {
		x, _ := strconv.Atoi(ma[i])
		y, _ := strconv.Atoi(mb[i])
		if x != y {
			return x < y, nil
		}
	}
	return false, nil
}

// Read reads the pins of the repository at root.
func Read(root string) (Versions, error) {
	read := func(p string) ([]byte, error) { return os.ReadFile(filepath.Join(root, p)) }
	kube, err := read("tools/e2e-env/go/kube/go.mod")
	if err != nil {
		return Versions{}, err
	}
	pulumi, err := read("tools/e2e-env/go/pulumi/go.mod")
	if err != nil {
		return Versions{}, err
	}
	lock, err := read("package-lock.json")
	if err != nil {
		return Versions{}, err
	}
	v, err := Parse(kube, pulumi, lock)
	if err != nil {
		return v, err
	}
	kwok, err := read("tools/e2e-env/go/kwok/go.mod")
	if err != nil {
		return v, err
	}
	if v.MetricsServer, err = ModuleVersion(kwok, "sigs.k8s.io/metrics-server"); err != nil {
		return v, fmt.Errorf("go/kwok/%w", err)
	}
	if v.Kwok, err = ModuleVersion(kwok, "sigs.k8s.io/kwok"); err != nil {
		return v, fmt.Errorf("go/kwok/%w", err)
	}
	adapter, err := read("tools/e2e-env/go/prometheus-adapter/go.mod")
	if err != nil {
		return v, err
	}
	if v.PrometheusAdapter, err = ModuleVersion(adapter, "sigs.k8s.io/prometheus-adapter"); err != nil {
		return v, fmt.Errorf("go/prometheus-adapter/%w", err)
	}
	runtime, err := read("tools/e2e-env/go/containerd/go.mod")
	if err != nil {
		return v, err
	}
	if v.Containerd, err = ModuleVersion(runtime, "github.com/containerd/containerd/v2"); err != nil {
		return v, fmt.Errorf("go/containerd/%w", err)
	}
	if v.Runc, err = ModuleVersion(runtime, "github.com/opencontainers/runc"); err != nil {
		return v, fmt.Errorf("go/containerd/%w", err)
	}
	return v, nil
}
