package node

import (
	"encoding/json"
	"net/netip"
	"slices"
	"strings"
	"testing"

	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
	"sigs.k8s.io/yaml"
)

func settings() Settings {
	return Settings{
		NodeName:     "tfs-e2e-cpu",
		Dir:          "/state/node",
		APIServer:    "https://127.0.0.1:16443",
		CAFile:       "/state/pki/ca.crt",
		CertFile:     "/state/pki/kubelet.crt",
		KeyFile:      "/state/pki/kubelet.key",
		PodSubnet:    netip.MustParsePrefix("10.213.0.0/24"),
		Bridge:       "tfse2e0",
		KubeletPort:  10350,
		HealthzPort:  10348,
		CgroupRoot:   "/tfs-e2e",
		SandboxImage: "127.0.0.1:5001/tfs-e2e/pause:abc",
		CNIBinDir:    "/usr/lib/cni",
		RuntimeDir:   "/cache/bin/containerd-v2.2.10-runc-v1.4.4-abc",
		Labels:       map[string]string{"node.kubernetes.io/instance-type": "tfs-e2e-cpu", "a": "b"},
	}
}

func mustContain(t *testing.T, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("missing %q in:\n%s", w, text)
		}
	}
}

func TestBridgeAddrIsTheSubnetsFirstHost(t *testing.T) {
	s := settings()
	s.PodSubnet = netip.MustParsePrefix("10.213.0.77/24")
	if got := s.BridgeAddr().String(); got != "10.213.0.1" {
		t.Fatalf("bridge address %s", got)
	}
}

func TestContainerdKeepsEverythingUnderTheNodeFolder(t *testing.T) {
	c := ContainerdConfig(settings())
	mustContain(t, c,
		"version = 3",
		`root = "/state/node/containerd/root"`,
		`state = "/state/node/containerd/state"`,
		`address = "/state/node/containerd.sock"`,
		`path = "/state/node/containerd/opt"`,
		`restrict_oom_score_adj = true`,
		`netns_mounts_under_state_dir = true`,
		`stream_server_address = "127.0.0.1"`,
		`sandbox = "127.0.0.1:5001/tfs-e2e/pause:abc"`,
		`snapshotter = "overlayfs"`,
		`SystemdCgroup = false`,
		`bin_dirs = ["/usr/lib/cni"]`,
		`conf_dir = "/state/node/cni/net.d"`,
		`config_path = ""`,
	)
	for _, host := range []string{"/var/lib/containerd", "/run/containerd", "/etc/cni", "/opt/", "/usr/bin"} {
		if strings.Contains(c, host) {
			t.Errorf("containerd config names the host path %s", host)
		}
	}
}

// containerd 2.x reads the CRI settings from three plugins of their own; the
// 1.x section ("io.containerd.grpc.v1.cri" with containerd, cni and registry
// below it) would be ignored with a warning, and every setting in it with it.
func TestContainerdSettingsAreInTheirTwoDotXPlugins(t *testing.T) {
	sections := map[string][]string{}
	current := ""
	for _, line := range strings.Split(ContainerdConfig(settings()), "\n") {
		l := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(l, "["):
			current = strings.Trim(l, "[]")
		case l != "" && !strings.HasPrefix(l, "#") && strings.Contains(l, " = "):
			key, _, _ := strings.Cut(l, " = ")
			sections[current] = append(sections[current], key)
		}
	}
	want := map[string][]string{
		`plugins."io.containerd.cri.v1.images"`:                                   {"snapshotter"},
		`plugins."io.containerd.cri.v1.images".pinned_images`:                     {"sandbox"},
		`plugins."io.containerd.cri.v1.images".registry`:                          {"config_path"},
		`plugins."io.containerd.cri.v1.runtime"`:                                  {"restrict_oom_score_adj", "netns_mounts_under_state_dir"},
		`plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc`:         {"runtime_type", "runtime_path"},
		`plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options`: {"BinaryName", "SystemdCgroup"},
		`plugins."io.containerd.cri.v1.runtime".cni`:                              {"bin_dirs", "conf_dir"},
		`plugins."io.containerd.grpc.v1.cri"`:                                     {"stream_server_address", "stream_server_port"},
	}
	for section, keys := range want {
		for _, k := range keys {
			if !slices.Contains(sections[section], k) {
				t.Errorf("[%s] lacks %s (has %v)", section, k, sections[section])
			}
		}
	}
	if len(sections[`plugins."io.containerd.grpc.v1.cri"`]) != 2 {
		t.Errorf("the CRI server plugin holds only the stream settings in 2.x, got %v", sections[`plugins."io.containerd.grpc.v1.cri"`])
	}
}

func TestContainerdRunsTheBuiltShimAndRunc(t *testing.T) {
	c := ContainerdConfig(settings())
	mustContain(t, c,
		`runtime_path = "/cache/bin/containerd-v2.2.10-runc-v1.4.4-abc/containerd-shim-runc-v2"`,
		`BinaryName = "/cache/bin/containerd-v2.2.10-runc-v1.4.4-abc/runc"`,
	)
	if got := settings().Runtime().Containerd; got != "/cache/bin/containerd-v2.2.10-runc-v1.4.4-abc/containerd" {
		t.Errorf("containerd %s", got)
	}
}

func TestCNIBridgeWithoutGatewayOrMasquerade(t *testing.T) {
	var conf struct {
		Plugins []struct {
			Type      string `json:"type"`
			Bridge    string `json:"bridge"`
			IsGateway bool   `json:"isGateway"`
			IPMasq    bool   `json:"ipMasq"`
			IPAM      struct {
				Type    string `json:"type"`
				DataDir string `json:"dataDir"`
				Ranges  [][]struct {
					Subnet     string `json:"subnet"`
					RangeStart string `json:"rangeStart"`
				} `json:"ranges"`
			} `json:"ipam"`
		} `json:"plugins"`
	}
	if err := json.Unmarshal([]byte(CNIConfig(settings())), &conf); err != nil {
		t.Fatal(err)
	}
	p := conf.Plugins[0]
	if p.Type != "bridge" || p.Bridge != "tfse2e0" || p.IsGateway || p.IPMasq {
		t.Fatalf("plugin %+v", p)
	}
	if p.IPAM.Type != "host-local" || p.IPAM.DataDir != "/state/node/cni/networks" {
		t.Fatalf("ipam %+v", p.IPAM)
	}
	r := p.IPAM.Ranges[0][0]
	if r.Subnet != "10.213.0.0/24" || r.RangeStart != "10.213.0.2" {
		t.Fatalf("range %+v: pods must start after the bridge's own address", r)
	}
}

func TestKubeletConfig(t *testing.T) {
	k := KubeletConfig(settings())
	mustContain(t, k,
		`address: "10.213.0.1"`,
		"port: 10350",
		"readOnlyPort: 0",
		"healthzBindAddress: 127.0.0.1",
		"healthzPort: 10348",
		`containerRuntimeEndpoint: "unix:///state/node/containerd.sock"`,
		"enabled: false", // anonymous
		"mode: Webhook",
		`clientCAFile: "/state/pki/ca.crt"`,
		"cgroupDriver: cgroupfs",
		`cgroupRoot: "/tfs-e2e"`,
		"failSwapOn: false",
		"makeIPTablesUtilChains: false",
		"protectKernelDefaults: false",
		`resolvConf: ""`,
		`nodefs.available: "1%"`,
		`volumePluginDir: "/state/node/kubelet/volume-plugins"`,
	)
	if strings.Contains(k, "%!") {
		t.Fatalf("format error in:\n%s", k)
	}
}

// The rendered configuration is a KubeletConfiguration the kubelet reads: every
// field is one of its type's (strict decoding into k8s.io/kubelet's
// config/v1beta1), and failCgroupV1 is set to false, without which the 1.35
// kubelet refuses a cgroup v1 host (its default is true from 1.35: kubernetes
// pkg/kubelet/apis/config/v1beta1/defaults.go; the refusal:
// pkg/kubelet/apis/config/validation/validation_linux.go).
func TestKubeletConfigDecodesAndAllowsCgroupV1(t *testing.T) {
	var c kubeletv1beta1.KubeletConfiguration
	if err := yaml.UnmarshalStrict([]byte(KubeletConfig(settings())), &c); err != nil {
		t.Fatalf("the kubelet would not read its configuration: %v", err)
	}
	if c.Kind != "KubeletConfiguration" || c.APIVersion != "kubelet.config.k8s.io/v1beta1" {
		t.Errorf("kind %q, apiVersion %q", c.Kind, c.APIVersion)
	}
	if c.FailCgroupV1 == nil || *c.FailCgroupV1 {
		t.Errorf("failCgroupV1 = %v, want it set to false (a 1.35 kubelet refuses cgroup v1 otherwise)", c.FailCgroupV1)
	}
	if c.CgroupDriver != "cgroupfs" || c.CgroupRoot != "/tfs-e2e" || c.Port != 10350 {
		t.Errorf("cgroupDriver %q, cgroupRoot %q, port %d", c.CgroupDriver, c.CgroupRoot, c.Port)
	}
}

func TestKubeletArgs(t *testing.T) {
	args := strings.Join(KubeletArgs(settings()), " ")
	mustContain(t, args,
		"--config=/state/node/kubelet.yaml",
		"--kubeconfig=/state/node/kubelet.kubeconfig",
		"--root-dir=/state/node/kubelet",
		"--hostname-override=tfs-e2e-cpu",
		"--node-ip=10.213.0.1",
		"--containerd=/state/node/containerd.sock",
		"--node-labels=a=b,node.kubernetes.io/instance-type=tfs-e2e-cpu",
	)
}

func TestKubeletKubeconfigIsTheNodeIdentity(t *testing.T) {
	mustContain(t, KubeletKubeconfig(settings()),
		`server: "https://127.0.0.1:16443"`, `name: "system:node:tfs-e2e-cpu"`, `client-certificate: "/state/pki/kubelet.crt"`)
}

func TestValidate(t *testing.T) {
	if err := settings().Validate(); err != nil {
		t.Fatal(err)
	}
	bad := map[string]func(*Settings){
		"relative dir":     func(s *Settings) { s.Dir = "state" },
		"long bridge":      func(s *Settings) { s.Bridge = "a-bridge-name-too-long" },
		"loopback subnet":  func(s *Settings) { s.PodSubnet = netip.MustParsePrefix("127.1.0.0/24") },
		"tiny subnet":      func(s *Settings) { s.PodSubnet = netip.MustParsePrefix("10.1.0.0/30") },
		"host cgroup root": func(s *Settings) { s.CgroupRoot = "/" },
		"no sandbox image": func(s *Settings) { s.SandboxImage = "" },
		"no runtime dir":   func(s *Settings) { s.RuntimeDir = "" },
		"relative runtime": func(s *Settings) { s.RuntimeDir = "bin/containerd" },
	}
	for name, change := range bad {
		s := settings()
		change(&s)
		if s.Validate() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
