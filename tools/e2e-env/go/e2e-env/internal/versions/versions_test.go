package versions

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const kubeMod = `module tfs-e2e/kube

go 1.24.0

require (
	go.etcd.io/etcd/server/v3 v3.5.21
	k8s.io/kubernetes v1.33.13 // the release
)

replace k8s.io/kubernetes => k8s.io/kubernetes v1.0.0

replace (
	k8s.io/api => k8s.io/api v0.33.13
)
`

const pulumiMod = `module tfs-e2e/pulumi

require github.com/pulumi/pulumi/pkg/v3 v3.248.0
require github.com/pulumi/pulumi/sdk/v3 v3.248.0
`

func lock(sdk string) []byte {
	return []byte(`{"name": "x", "packages": {
		"": {"dependencies": {"@pulumi/pulumi": "^3.0.0"}},
		"node_modules/@pulumi/pulumi": {"version": "` + sdk + `"},
		"node_modules/@pulumi/kubernetes": {"version": "4.34.2"},
		"node_modules/@pulumi/docker": {"version": "5.2.0"},
		"node_modules/@pulumi/docker/node_modules/x": {"version": "9.9.9"}
	}}`)
}

func TestParse(t *testing.T) {
	v, err := Parse([]byte(kubeMod), []byte(pulumiMod), lock("3.248.0"))
	if err != nil {
		t.Fatal(err)
	}
	want := Versions{"v1.33.13", "1", "33", "3.248.0", "3.248.0", "4.34.2", "5.2.0", "", "", "", "", ""}
	if v != want {
		t.Fatalf("got %+v, want %+v", v, want)
	}
	if err := v.Check(); err != nil {
		t.Fatal(err)
	}
}

// The CLI may be newer than the SDK, never older (compared as numbers:
// 3.99.0 is older than 3.100.0).
func TestCLIOlderThanSDK(t *testing.T) {
	for _, c := range []struct {
		sdk string
		ok  bool
	}{{"3.248.0", true}, {"3.247.9", true}, {"2.300.0", true}, {"3.248.1", false}, {"3.250.1", false}, {"4.0.0", false}} {
		v, err := Parse([]byte(kubeMod), []byte(pulumiMod), lock(c.sdk))
		if err != nil {
			t.Fatal(err)
		}
		err = v.Check()
		if c.ok && err != nil {
			t.Errorf("CLI 3.248.0, SDK %s: %v", c.sdk, err)
		}
		if !c.ok && (err == nil || !strings.Contains(err.Error(), "v3.248.0") || !strings.Contains(err.Error(), c.sdk)) {
			t.Errorf("CLI 3.248.0, SDK %s: want an error naming both versions, got %v", c.sdk, err)
		}
	}
	if older, err := olderThan("3.99.0", "3.100.0"); err != nil || !older {
		t.Errorf("3.99.0 < 3.100.0: %v %v", older, err)
	}
	if _, err := olderThan("3.248.0-alpha", "3.248.0"); err == nil {
		t.Error("want an error for a version that is not X.Y.Z")
	}
}

func TestMissing(t *testing.T) {
	if _, err := Parse([]byte("module x\n"), []byte(pulumiMod), lock("1")); err == nil || !strings.Contains(err.Error(), "k8s.io/kubernetes") {
		t.Fatalf("got %v", err)
	}
	if _, err := LockVersion([]byte(`{"packages": {}}`), "@pulumi/docker"); err == nil {
		t.Fatal("want an error for a package the lock does not install")
	}
	if _, err := Parse([]byte(strings.Replace(kubeMod, "v1.33.13", "v1.33.0-rc.1", 1)), []byte(pulumiMod), lock("1")); err == nil {
		t.Fatal("want an error for a pre-release Kubernetes version")
	}
}

// Read takes the metrics APIs' and kwok's pins from their wrapper modules: the
// repository's own files.
func TestReadTheRepositorysPins(t *testing.T) {
	v, err := Read("../../../../../..")
	if err != nil {
		t.Fatal(err)
	}
	if v.MetricsServer != "v0.9.0" || v.Kwok != "v0.8.0" || v.PrometheusAdapter != "v0.12.0" {
		t.Fatalf("metrics-server %q, kwok %q, prometheus-adapter %q", v.MetricsServer, v.Kwok, v.PrometheusAdapter)
	}
}

// The node's runtime is pinned where image volumes work: containerd 2.1 mounts
// them (KEP-4639), 2.2 also honours their subPath (2.1 ignores it silently),
// and the runc beside it is a 1.x release.
func TestTheNodeRuntimeMountsImageVolumes(t *testing.T) {
	v, err := Read("../../../../../..")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`^v(\d+)\.(\d+)\.\d+$`).FindStringSubmatch(v.Containerd)
	if m == nil {
		t.Fatalf("containerd %q is no release version", v.Containerd)
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	if major < 2 || major == 2 && minor < 2 {
		t.Errorf("containerd %s: image volumes' subPath needs 2.2 or later", v.Containerd)
	}
	if !regexp.MustCompile(`^v1\.\d+\.\d+$`).MatchString(v.Runc) {
		t.Errorf("runc %q is no 1.x release", v.Runc)
	}
}
