// Package configs holds the environment's settings (read from TFS_E2E_*
// variables) and renders its configuration files: kubeconfigs, the registry's
// and podman's configuration, the simulated GPU node and the env file.
package configs

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Fixed names of the environment.
const (
	Context       = "tfs-e2e"
	CPUNode       = "tfs-e2e-cpu"
	GPUNode       = "tfs-e2e-gpu"
	GPULabelKey   = "cloud.google.com/gke-accelerator"
	GPULabelValue = "nvidia-tesla-t4"
	// GatewayClass is the GatewayClass of the environment's Gateway API
	// implementation (Traefik), TFS_E2E_GATEWAY_CLASS in the env file.
	GatewayClass = "tfs-e2e-traefik"
)

// Settings are the environment's folders, ports and network settings.
type Settings struct {
	Root  string // the repository
	Cache string // TFS_E2E_CACHE, default ~/.cache/tf-serving-e2e
	State string // TFS_E2E_STATE, default $CACHE/state

	APIPort, EtcdPort, RegistryPort, KCMPort, SchedulerPort, KwokPort, KubeletPort, PrometheusPort int
	// LoginRegistryPort is kept for a registry that requires a login, which a
	// test starts itself (test/e2e/privateRegistry.test.ts); podman pushes to it
	// over plain HTTP like to the environment's own.
	LoginRegistryPort int
	// GatewayAddress is the loopback address Traefik's entryPoints listen on, on
	// the Gateway's listener ports (8501, 8500): one address per environment,
	// as the Gateway's ports are fixed. GatewayAdminPort serves Traefik's ping.
	GatewayAddress   string
	GatewayAdminPort int
	// MetricsPort serves metrics-server (metrics.k8s.io), the next port
	// prometheus-adapter (custom.metrics.k8s.io), both on the node bridge's
	// host address: the API server reaches them through Endpoints, which
	// refuse loopback addresses.
	MetricsPort int

	LBMode     string // TFS_E2E_LB_MODE: ip or hostname
	LBIPRange  string // one loopback address per LoadBalancer Service
	PodSubnet  string // the real node's pod subnet (the bridge takes its first address)
	NodeBridge string
	NodeCgroup string
	NoApt      bool // TFS_E2E_NO_APT=1: never apt-get install
}

// FromEnv reads the settings from getenv; home is the user's home folder.
func FromEnv(getenv func(string) string, home, root string) (Settings, error) {
	str := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	var err error
	port := func(name string, def int) int {
		v := getenv(name)
		if v == "" {
			return def
		}
		p, e := strconv.Atoi(v)
		if e != nil || p <= 0 || p > 65535 {
			err = fmt.Errorf("%s=%q is no port number", name, v)
		}
		return p
	}
	s := Settings{Root: root}
	s.Cache = str("TFS_E2E_CACHE", filepath.Join(home, ".cache", "tf-serving-e2e"))
	s.State = str("TFS_E2E_STATE", filepath.Join(s.Cache, "state"))
	s.APIPort = port("TFS_E2E_API_PORT", 16443)
	s.EtcdPort = port("TFS_E2E_ETCD_PORT", 12379)
	s.RegistryPort = port("TFS_E2E_REGISTRY_PORT", 5001) // the port Pulumi.dev.yaml's registry (localhost:5001) uses
	s.LoginRegistryPort = port("TFS_E2E_LOGIN_REGISTRY_PORT", s.RegistryPort+1)
	s.KCMPort = port("TFS_E2E_KCM_PORT", 10257)
	s.SchedulerPort = port("TFS_E2E_SCHEDULER_PORT", 10259)
	s.KwokPort = port("TFS_E2E_KWOK_PORT", 10247)
	s.KubeletPort = port("TFS_E2E_KUBELET_PORT", 10350)
	s.PrometheusPort = port("TFS_E2E_PROMETHEUS_PORT", 19090)
	s.GatewayAddress = str("TFS_E2E_GATEWAY_ADDRESS", "127.0.110.1")
	if a, e := netip.ParseAddr(s.GatewayAddress); e != nil || !a.Is4() || !a.IsLoopback() {
		err = fmt.Errorf("TFS_E2E_GATEWAY_ADDRESS=%q is no IPv4 loopback address (127.x.y.z)", s.GatewayAddress)
	}
	s.GatewayAdminPort = port("TFS_E2E_GATEWAY_ADMIN_PORT", 19092)
	s.MetricsPort = port("TFS_E2E_METRICS_PORT", 19093)
	if s.MetricsPort == 65535 {
		err = fmt.Errorf("TFS_E2E_METRICS_PORT=%d leaves no port after it for prometheus-adapter", s.MetricsPort)
	}
	s.LBMode = str("TFS_E2E_LB_MODE", "ip")
	s.LBIPRange = str("TFS_E2E_LB_IP_RANGE", "127.0.100.0/24")
	s.PodSubnet = str("TFS_E2E_POD_SUBNET", "10.213.0.0/24")
	s.NodeBridge = str("TFS_E2E_NODE_BRIDGE", "tfse2e0")
	s.NodeCgroup = str("TFS_E2E_NODE_CGROUP", "/tfs-e2e")
	s.NoApt = getenv("TFS_E2E_NO_APT") == "1"
	return s, err
}

// Derived folders, files and addresses.
func (s Settings) Bin() string          { return filepath.Join(s.Cache, "bin") }
func (s Settings) Tools() string        { return filepath.Join(s.Root, "tools", "e2e-env", "go") }
func (s Settings) Run() string          { return filepath.Join(s.State, "run") }
func (s Settings) Logs() string         { return filepath.Join(s.State, "logs") }
func (s Settings) PKI() string          { return filepath.Join(s.State, "pki") }
func (s Settings) EnvFile() string      { return filepath.Join(s.State, "env.sh") }
func (s Settings) Podman() string       { return filepath.Join(s.State, "podman") }
func (s Settings) PodmanSocket() string { return filepath.Join(s.Run(), "podman.sock") }
func (s Settings) Registry() string     { return "127.0.0.1:" + strconv.Itoa(s.RegistryPort) }
func (s Settings) BaseImage() string    { return s.Registry() + "/tensorflow/serving:stand-in" }
func (s Settings) APIServer() string    { return "https://127.0.0.1:" + strconv.Itoa(s.APIPort) }
func (s Settings) EtcdPeerPort() int    { return s.EtcdPort + 1 }
func (s Settings) Prometheus() string   { return filepath.Join(s.State, "prometheus") }

// PrometheusRules is the folder whose *.yaml rule files Prometheus loads (the
// e2e tests copy a stack's rules there and ask Prometheus to reload).
func (s Settings) PrometheusRules() string { return filepath.Join(s.Prometheus(), "rules") }
func (s Settings) PrometheusURL() string   { return "http://127.0.0.1:" + strconv.Itoa(s.PrometheusPort) }
func (s Settings) KubeletHealthzPort() int {
	return s.KubeletPort - 2
}
func (s Settings) LoginRegistry() string {
	return "127.0.0.1:" + strconv.Itoa(s.LoginRegistryPort)
}

// PodmanEnv are the variables that point podman (and buildah) at the
// environment's store. RUN steps cannot use an OCI runtime in this sandbox (no
// cgroup or rlimit control); buildah's chroot isolation works without one.
func (s Settings) PodmanEnv() [][2]string {
	return [][2]string{
		{"CONTAINERS_STORAGE_CONF", filepath.Join(s.Podman(), "storage.conf")},
		{"CONTAINERS_REGISTRIES_CONF", filepath.Join(s.Podman(), "registries.conf")},
		{"CONTAINERS_CONF", filepath.Join(s.Podman(), "containers.conf")},
		{"BUILDAH_ISOLATION", "chroot"},
	}
}

// PulumiEnv are the Pulumi variables of the environment (passphrase: the
// caller's, else a fixed one).
func (s Settings) PulumiEnv(passphrase string) [][2]string {
	if passphrase == "" {
		passphrase = "tfs-e2e-local"
	}
	return [][2]string{
		{"PULUMI_HOME", filepath.Join(s.State, "pulumi-home")},
		// metadata=skip: gocloud's fileblob otherwise rewrites each checkpoint's ".attrs" sidecar in
		// place (os.Create, then encode), and a read meanwhile (the program's StackReference to its own
		// stack, while the engine saves the checkpoint) decodes an empty file: "failed to load checkpoint: EOF".
		{"PULUMI_BACKEND_URL", "file://" + filepath.Join(s.State, "pulumi-backend") + "?metadata=skip"},
		{"PULUMI_CONFIG_PASSPHRASE", passphrase},
		{"PULUMI_SKIP_UPDATE_CHECK", "true"},
		{"PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK", "true"},
		{"PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION", "true"},
		{"PULUMI_IGNORE_AMBIENT_PLUGINS", "true"},
		{"PULUMI_DIY_BACKEND_NO_LEGACY_WARNING", "true"},
	}
}

// Kubeconfig is a kubeconfig (context tfs-e2e) for the client certificate
// $PKI/CERT.crt.
func Kubeconfig(s Settings, cert string) string {
	pki := s.PKI()
	return `apiVersion: v1
kind: Config
clusters:
- name: tfs-e2e
  cluster:
    server: ` + s.APIServer() + `
    certificate-authority: ` + pki + `/ca.crt
users:
- name: ` + cert + `
  user:
    client-certificate: ` + pki + `/` + cert + `.crt
    client-key: ` + pki + `/` + cert + `.key
contexts:
- name: tfs-e2e
  context:
    cluster: tfs-e2e
    user: ` + cert + `
current-context: tfs-e2e
`
}

// RegistryYML is docker-registry's configuration: blobs in the state folder,
// HTTP on the registry's loopback address.
func RegistryYML(s Settings) string {
	return `version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: ` + s.State + `/registry
  delete:
    enabled: true
http:
  addr: ` + s.Registry() + `
`
}

// StorageConf is podman's storage configuration (vfs, in the state folder).
func StorageConf(s Settings) string {
	return `[storage]
driver = "vfs"
runroot = "` + s.Podman() + `/run"
graphroot = "` + s.Podman() + `/storage"
`
}

// RegistriesConf lets podman push to the loopback registry, and to the one a
// test starts on LoginRegistryPort, over plain HTTP. (containerd needs no such
// entry: it pulls from 127.0.0.1 and localhost over HTTP on any port.)
func RegistriesConf(s Settings) string {
	return `unqualified-search-registries = ["docker.io"]

[[registry]]
location = "` + s.Registry() + `"
insecure = true

[[registry]]
location = "localhost:` + strconv.Itoa(s.RegistryPort) + `"
insecure = true

[[registry]]
location = "` + s.LoginRegistry() + `"
insecure = true
`
}

// ContainersConf is podman's engine configuration.
func ContainersConf(s Settings) string {
	return `[containers]
netns = "host"
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = "` + s.Podman() + `/events.log"
tmp_dir = "` + s.Podman() + `/tmp"
`
}

// GPUNodeVersionPatch is the merge patch of the simulated GPU node's status
// that sets its kubelet's version (what `kubectl get nodes` shows).
func GPUNodeVersionPatch(kubernetesVersion string) string {
	return `{"status":{"nodeInfo":{"kubeletVersion":"` + kubernetesVersion + `"}}}`
}

// GPUNodeManifest is the simulated GPU node (kwok): scheduling only, no
// container runs there.
func GPUNodeManifest(kubernetesVersion string) string {
	return `apiVersion: v1
kind: Node
metadata:
  name: ` + GPUNode + `
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: "0"
  labels:
    kubernetes.io/hostname: ` + GPUNode + `
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    node.kubernetes.io/instance-type: tfs-e2e-gpu
    type: kwok
    ` + GPULabelKey + `: ` + GPULabelValue + `
    nvidia.com/gpu.present: "true"
spec:
  taints:
  - key: nvidia.com/gpu
    value: present
    effect: NoSchedule
status:
  allocatable:
    cpu: "8"
    memory: 32Gi
    ephemeral-storage: 100Gi
    pods: "110"
    nvidia.com/gpu: "1"
  capacity:
    cpu: "8"
    memory: 32Gi
    ephemeral-storage: 100Gi
    pods: "110"
    nvidia.com/gpu: "1"
  nodeInfo:
    architecture: amd64
    operatingSystem: linux
    kubeletVersion: ` + kubernetesVersion + `
`
}

// EnvFile is the env file a shell sources; pulumiDir and kubeDir are the
// bundles whose bin folders go on PATH, nodeBin (when not empty) the folder of
// the Node.js scripts/lib/node.sh installed because the user's was too old
// (TFS_NODE_BIN), first on PATH so that Pulumi's language host runs the
// program with it. Its podman and Pulumi variables are PodmanEnv's and
// PulumiEnv's, the passphrase the caller's when set.
func EnvFile(s Settings, pulumiDir, kubeDir, nodeBin string) string {
	var b strings.Builder
	b.WriteString("# tf-serving e2e environment: source this file (written by scripts/e2e-env start).\n")
	export := func(name, value string) { b.WriteString("export " + name + "=\"" + value + "\"\n") }
	export("TFS_E2E_STATE", s.State)
	export("KUBECONFIG", filepath.Join(s.State, "kubeconfig"))
	export("DOCKER_HOST", "unix://"+s.PodmanSocket())
	for _, kv := range s.PodmanEnv() {
		export(kv[0], kv[1])
	}
	path := pulumiDir + "/bin:" + kubeDir + "/bin:$PATH"
	if nodeBin != "" {
		path = nodeBin + ":" + path
	}
	export("PATH", path)
	for _, kv := range s.PulumiEnv("") {
		if kv[0] == "PULUMI_CONFIG_PASSPHRASE" {
			kv[1] = "${PULUMI_CONFIG_PASSPHRASE:-" + kv[1] + "}"
		}
		export(kv[0], kv[1])
	}
	export("TFS_E2E_REGISTRY", s.Registry())
	export("TFS_E2E_BASE_IMAGE", s.BaseImage())
	export("TFS_E2E_LOGIN_REGISTRY", s.LoginRegistry())
	export("TFS_E2E_KUBE_CONTEXT", Context)
	export("TFS_E2E_CPU_NODE", CPUNode)
	export("TFS_E2E_GPU_NODE", GPUNode)
	export("TFS_E2E_GPU_NODE_LABEL", GPULabelKey+"="+GPULabelValue)
	export("TFS_E2E_LB_MODE", s.LBMode)
	export("TFS_E2E_POD_SUBNET", s.PodSubnet)
	export("TFS_E2E_PROMETHEUS_URL", s.PrometheusURL())
	export("TFS_E2E_PROMETHEUS_RULES", s.PrometheusRules())
	export("TFS_E2E_GATEWAY_CLASS", GatewayClass)
	export("TFS_E2E_GATEWAY_ADDRESS", s.GatewayAddress)
	return b.String()
}

// Write makes the state folder's directories and writes the kubeconfigs, the
// registry's and podman's configuration.
func Write(s Settings) error {
	for _, d := range []string{filepath.Join(s.Podman(), "tmp"), filepath.Join(s.State, "registry"), filepath.Join(s.State, "pulumi-home"),
		filepath.Join(s.State, "pulumi-backend"), s.Run(), s.Logs(), s.PrometheusRules(), filepath.Join(s.Prometheus(), "data")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	for name, content := range map[string]string{
		"kubeconfig":                    Kubeconfig(s, "admin"),
		"controller-manager.kubeconfig": Kubeconfig(s, "controller-manager"),
		"scheduler.kubeconfig":          Kubeconfig(s, "scheduler"),
		"registry.yml":                  RegistryYML(s),
		"podman/storage.conf":           StorageConf(s),
		"podman/registries.conf":        RegistriesConf(s),
		"podman/containers.conf":        ContainersConf(s),
	} {
		if err := os.WriteFile(filepath.Join(s.State, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Exported are the names of the variables an env file exports, in its order.
func Exported(envFile string) []string {
	var names []string
	for _, line := range strings.Split(envFile, "\n") {
		rest, ok := strings.CutPrefix(line, "export ")
		if !ok {
			continue
		}
		name, _, ok := strings.Cut(rest, "=")
		if ok && validName(name) {
			names = append(names, name)
		}
	}
	return names
}

func validName(n string) bool {
	for i, c := range n {
		if !(c == '_' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return n != ""
}

// DynamicProviderPlugin is the plugin the Pulumi engine runs for a Node.js
// dynamic resource (`pulumi-nodejs:dynamic:Resource`): a Pulumi install ships
// it beside the CLI.
const DynamicProviderPlugin = "pulumi-resource-pulumi-nodejs"

// DynamicProviderScript is that plugin as this environment writes it: it runs
// the dynamic provider of the @pulumi/pulumi the program itself resolves (the
// engine starts it in the program's folder), with the engine's arguments.
const DynamicProviderScript = `#!/bin/sh
# Pulumi's Node.js dynamic provider, written by scripts/e2e-env beside the CLI.
script=$(node -e 'process.stdout.write(require.resolve("@pulumi/pulumi/cmd/dynamic-provider"))') || {
	echo "pulumi-resource-pulumi-nodejs: @pulumi/pulumi is not installed where the program runs ($(pwd)); run npm ci there" >&2
	exit 1
}
exec node "$script" "$@"
`
