// Package node runs one real Kubernetes node for the end-to-end environment:
// containerd 2.x and runc (built from their Go modules by e2e-env, in
// RuntimeDir), Debian's CNI plugins and a kubelet, in a mount
// namespace of their own, with every file, socket, cgroup and network device
// they create kept under the environment's own names, so that stopping it
// leaves nothing behind and the host's kernel settings are never changed.
//
// This file renders the configuration: plain functions of Settings, tested
// without a machine.
package node

import (
	"fmt"
	"net/netip"
	"path/filepath"
	"sort"
	"strings"
)

// Settings is everything the node's configuration derives from.
type Settings struct {
	// NodeName registers the kubelet with the API server (and is its hostname).
	NodeName string
	// Dir holds everything the node writes: configs, containerd's root and
	// state, the kubelet's root, logs, CNI state, the stand-in sysctl files.
	Dir string
	// APIServer is the API server's URL; CAFile its CA, which also signs the
	// client certificates the kubelet accepts (the API server's).
	APIServer string
	CAFile    string
	// CertFile and KeyFile: the kubelet's client certificate
	// (O=system:nodes, CN=system:node:NAME) for the API server.
	CertFile, KeyFile string
	// PodSubnet is given to the bridge; the bridge takes its first address.
	PodSubnet netip.Prefix
	// Bridge names the Linux bridge the environment creates (at most 15 bytes).
	Bridge string
	// KubeletPort serves the kubelet API on the bridge's address (the node's
	// InternalIP; the kubelet refuses a loopback node IP, and the API server
	// reaches kubelets at their InternalIP for logs and exec); HealthzPort
	// serves /healthz on 127.0.0.1.
	KubeletPort, HealthzPort int
	// CgroupRoot is the cgroup (in every v1 hierarchy) all pods live under.
	CgroupRoot string
	// SandboxImage is the pause image, built locally and served by the loopback registry.
	SandboxImage string
	// CNIBinDir holds Debian's CNI plugins.
	CNIBinDir string
	// RuntimeDir holds containerd, containerd-shim-runc-v2 and runc (the
	// containerd bundle of the environment's cache).
	RuntimeDir string
	// Labels are the node's labels beyond the ones the kubelet sets itself.
	Labels map[string]string
}

// Runtime are the container runtime's executables.
type Runtime struct{ Containerd, Shim, Runc string }

// Runtime names the executables in RuntimeDir.
func (s Settings) Runtime() Runtime {
	return Runtime{
		Containerd: filepath.Join(s.RuntimeDir, "containerd"),
		Shim:       filepath.Join(s.RuntimeDir, "containerd-shim-runc-v2"),
		Runc:       filepath.Join(s.RuntimeDir, "runc"),
	}
}

// Paths are the files and folders under Settings.Dir.
type Paths struct {
	ContainerdConfig, ContainerdRoot, ContainerdState, ContainerdSocket string
	KubeletConfig, KubeletKubeconfig, KubeletRoot                       string
	CNIConfDir, CNIDataDir                                              string
	// VarLog is bound over /var/log inside the namespace: the kubelet keeps
	// pod logs in /var/log/pods and links in /var/log/containers (fixed paths).
	VarLog string
	// Sysctls holds the stand-in files bound over the kernel settings the
	// kubelet writes (protectKernelDefaults: false).
	Sysctls string
	// Ready is written by the supervisor once both daemons run.
	Ready string
}

// Paths derives every location from Settings.Dir.
func (s Settings) Paths() Paths {
	d := s.Dir
	return Paths{
		ContainerdConfig:  filepath.Join(d, "containerd.toml"),
		ContainerdRoot:    filepath.Join(d, "containerd", "root"),
		ContainerdState:   filepath.Join(d, "containerd", "state"),
		ContainerdSocket:  filepath.Join(d, "containerd.sock"),
		KubeletConfig:     filepath.Join(d, "kubelet.yaml"),
		KubeletKubeconfig: filepath.Join(d, "kubelet.kubeconfig"),
		KubeletRoot:       filepath.Join(d, "kubelet"),
		CNIConfDir:        filepath.Join(d, "cni", "net.d"),
		CNIDataDir:        filepath.Join(d, "cni", "networks"),
		VarLog:            filepath.Join(d, "log"),
		Sysctls:           filepath.Join(d, "sysctl"),
		Ready:             filepath.Join(d, "ready"),
	}
}

// BridgeAddr is the bridge's own address: the subnet's first host. The host
// reaches pods through it; it is also the node's InternalIP.
func (s Settings) BridgeAddr() netip.Addr { return s.PodSubnet.Masked().Addr().Next() }

// KernelTunables are the settings the kubelet writes when
// protectKernelDefaults is false (pkg/kubelet/cm setupKernelTunables): each
// gets a stand-in file inside the node's mount namespace.
var KernelTunables = []string{
	"vm/overcommit_memory",
	"vm/panic_on_oom",
	"kernel/panic",
	"kernel/panic_on_oops",
	"kernel/keys/root_maxkeys",
	"kernel/keys/root_maxbytes",
}

// Validate names the first setting that cannot work.
func (s Settings) Validate() error {
	switch {
	case s.NodeName == "":
		return fmt.Errorf("node name is empty")
	case !filepath.IsAbs(s.Dir):
		return fmt.Errorf("node folder %q is not an absolute path", s.Dir)
	case len(s.Bridge) == 0 || len(s.Bridge) > 15:
		return fmt.Errorf("bridge name %q must have 1 to 15 bytes", s.Bridge)
	case !s.PodSubnet.IsValid() || !s.PodSubnet.Addr().Is4() || s.PodSubnet.Bits() > 28:
		return fmt.Errorf("pod subnet %v must be an IPv4 prefix of /28 or wider", s.PodSubnet)
	case s.PodSubnet.Addr().IsLoopback():
		return fmt.Errorf("pod subnet %v is on loopback", s.PodSubnet)
	case !strings.HasPrefix(s.CgroupRoot, "/") || s.CgroupRoot == "/":
		return fmt.Errorf("cgroup root %q must be a cgroup of its own, such as /tfs-e2e", s.CgroupRoot)
	case s.KubeletPort <= 0 || s.HealthzPort <= 0:
		return fmt.Errorf("kubelet ports must be set")
	case s.SandboxImage == "":
		return fmt.Errorf("sandbox image is empty")
	case !filepath.IsAbs(s.RuntimeDir):
		return fmt.Errorf("runtime folder %q (containerd, its shim and runc) is not an absolute path", s.RuntimeDir)
	}
	return nil
}

// ContainerdConfig is containerd 2.x's config.toml (version 3, whose CRI
// plugin is three: "io.containerd.cri.v1.images" pulls, "io.containerd.cri.v1.runtime"
// runs pods, "io.containerd.grpc.v1.cri" serves the API and the streams).
func ContainerdConfig(s Settings) string {
	p := s.Paths()
	return fmt.Sprintf(`# Written by kube node: containerd for the tf-serving e2e node %[1]s.
version = 3
root = %[2]q
state = %[3]q

[grpc]
  address = %[4]q

[ttrpc]
  address = ""

[debug]
  address = ""

[metrics]
  address = ""

[plugins."io.containerd.internal.v1.opt"]
  path = %[8]q

# NRI would listen on the fixed /var/run/nri/nri.sock; nothing here uses it.
[plugins."io.containerd.nri.v1.nri"]
  disable = true

[plugins."io.containerd.cri.v1.images"]
  snapshotter = "overlayfs"

  [plugins."io.containerd.cri.v1.images".pinned_images]
    sandbox = %[5]q

  [plugins."io.containerd.cri.v1.images".registry]
    # 127.0.0.1:PORT and localhost:PORT are pulled over plain HTTP without
    # further configuration; nothing else is reachable here.
    config_path = ""

[plugins."io.containerd.cri.v1.runtime"]
  # The VM lacks CAP_SYS_RESOURCE: without this every sandbox fails
  # ("can't get final child's PID from pipe: EOF").
  restrict_oom_score_adj = true
  # Pod network namespaces are bind-mounted here (inside the node's mount
  # namespace), not under /var/run/netns.
  netns_mounts_under_state_dir = true
  enable_selinux = false
  disable_apparmor = true
  disable_proc_mount = false
  max_container_log_line_size = 16384

  [plugins."io.containerd.cri.v1.runtime".containerd]
    default_runtime_name = "runc"

    [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      # The shim and runc built with containerd, never one found on PATH.
      runtime_path = %[9]q

      [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]
        BinaryName = %[10]q
        SystemdCgroup = false

  [plugins."io.containerd.cri.v1.runtime".cni]
    bin_dirs = [%[6]q]
    conf_dir = %[7]q
    max_conf_num = 1

[plugins."io.containerd.grpc.v1.cri"]
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
`, s.NodeName, p.ContainerdRoot, p.ContainerdState, p.ContainerdSocket, s.SandboxImage, s.CNIBinDir, p.CNIConfDir,
		filepath.Join(s.Dir, "containerd", "opt"), s.Runtime().Shim, s.Runtime().Runc)
}

// CNIConfig is the pod network: Debian's bridge plugin on the environment's
// own bridge, no gateway, no masquerading (so neither ip_forward nor iptables
// is touched), host-local addresses from the pod subnet (state under Dir).
func CNIConfig(s Settings) string {
	subnet := s.PodSubnet.Masked()
	return fmt.Sprintf(`{
  "cniVersion": "0.4.0",
  "name": "tfs-e2e",
  "plugins": [
    {
      "type": "bridge",
      "bridge": %q,
      "isGateway": false,
      "isDefaultGateway": false,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "dataDir": %q,
        "ranges": [[{"subnet": %q, "rangeStart": %q}]]
      }
    }
  ]
}
`, s.Bridge, s.Paths().CNIDataDir, subnet.String(), s.BridgeAddr().Next().String())
}

// KubeletConfig is the KubeletConfiguration (kubelet.config.k8s.io/v1beta1).
func KubeletConfig(s Settings) string {
	p := s.Paths()
	return fmt.Sprintf(`# Written by kube node: the kubelet of the tf-serving e2e node %[1]s.
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: %[2]q
port: %[3]d
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: %[4]d
containerRuntimeEndpoint: %[5]q
authentication:
  anonymous:
    enabled: false
  webhook:
    enabled: true
  x509:
    clientCAFile: %[6]q
authorization:
  mode: Webhook
# cgroup v1 with the cgroupfs driver; every pod under a cgroup of our own,
# made beforehand in every hierarchy.
cgroupDriver: cgroupfs
cgroupRoot: %[7]q
cgroupsPerQOS: true
enforceNodeAllocatable: ["pods"]
# From Kubernetes 1.35 the kubelet refuses to start on a cgroup v1 host unless
# this is false (its default turned true: kubernetes
# pkg/kubelet/apis/config/v1beta1/defaults.go, the check in
# pkg/kubelet/apis/config/validation/validation_linux.go). Build machines of
# this kind run cgroup v1.
failCgroupV1: false
failSwapOn: false
# No iptables chains; no host kernel settings outside the node's stand-ins.
makeIPTablesUtilChains: false
protectKernelDefaults: false
oomScoreAdj: 0
resolvConf: ""
clusterDomain: cluster.local
registerNode: true
serializeImagePulls: false
maxPods: 110
# A shared build machine's disk fills with caches: keep the node from evicting
# pods or deleting images because of other people's files.
evictionHard:
  memory.available: "100Mi"
  nodefs.available: "1%%"
  nodefs.inodesFree: "1%%"
  imagefs.available: "1%%"
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
volumePluginDir: %[8]q
nodeStatusReportFrequency: 10s
shutdownGracePeriod: 0s
`, s.NodeName, s.BridgeAddr().String(), s.KubeletPort, s.HealthzPort, "unix://"+p.ContainerdSocket,
		s.CAFile, s.CgroupRoot, filepath.Join(p.KubeletRoot, "volume-plugins"))
}

// KubeletKubeconfig lets the kubelet reach the API server as system:node:NAME.
func KubeletKubeconfig(s Settings) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: tfs-e2e
  cluster:
    server: %q
    certificate-authority: %q
users:
- name: %q
  user:
    client-certificate: %q
    client-key: %q
contexts:
- name: tfs-e2e
  context:
    cluster: tfs-e2e
    user: %q
current-context: tfs-e2e
`, s.APIServer, s.CAFile, "system:node:"+s.NodeName, s.CertFile, s.KeyFile, "system:node:"+s.NodeName)
}

// KubeletArgs is the kubelet's command line after the tool name.
func KubeletArgs(s Settings) []string {
	p := s.Paths()
	keys := make([]string, 0, len(s.Labels))
	for k := range s.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	labels := make([]string, 0, len(keys))
	for _, k := range keys {
		labels = append(labels, k+"="+s.Labels[k])
	}
	args := []string{
		"--config=" + p.KubeletConfig,
		"--kubeconfig=" + p.KubeletKubeconfig,
		"--root-dir=" + p.KubeletRoot,
		"--hostname-override=" + s.NodeName,
		"--node-ip=" + s.BridgeAddr().String(),
		// cAdvisor (inside the kubelet) names a cgroup's container, pod and namespace only
		// when its containerd handler reaches containerd, which it looks for at the default
		// socket unless told: without this, no container_* series has a container label.
		"--containerd=" + p.ContainerdSocket,
		"--v=1",
	}
	if len(labels) > 0 {
		args = append(args, "--node-labels="+strings.Join(labels, ","))
	}
	return args
}
