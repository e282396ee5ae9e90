// Command e2e-env builds, starts and stops the end-to-end environment of
// tf-serving (scripts/e2e-env runs it; see tools/e2e-env/README.md).
package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"tfs-e2e/e2e-env/internal/bundles"
	"tfs-e2e/e2e-env/internal/configs"
	"tfs-e2e/e2e-env/internal/debian"
	"tfs-e2e/e2e-env/internal/flock"
	"tfs-e2e/e2e-env/internal/gateway"
	"tfs-e2e/e2e-env/internal/images"
	"tfs-e2e/e2e-env/internal/kwokstages"
	"tfs-e2e/e2e-env/internal/metricsapi"
	"tfs-e2e/e2e-env/internal/pki"
	"tfs-e2e/e2e-env/internal/prometheus"
	"tfs-e2e/e2e-env/internal/pulumi"
	"tfs-e2e/e2e-env/internal/supervisor"
	"tfs-e2e/e2e-env/internal/versions"
)

const usage = `usage: scripts/e2e-env COMMAND

  prepare    build whatever is missing (cached; says what it built)
  start      prepare, start everything, write the env file
  stop       stop everything this program started
  status     say what runs (exit 0 only when everything does)
  env        print the env file (source it, or eval "$(scripts/e2e-env env)");
             env --json prints its variables' values as JSON
  packages   install the Debian packages the environment and the tests use
  selftest   run the Go tests of the stand-ins, the node, the load balancer and this program,
             then (as root, after prepare) a real node of its own that mounts an image volume

Settings (environment): TFS_E2E_CACHE (default ~/.cache/tf-serving-e2e),
TFS_E2E_STATE (default $TFS_E2E_CACHE/state), TFS_E2E_LB_MODE (ip|hostname),
TFS_E2E_LB_IP_RANGE, TFS_E2E_API_PORT, TFS_E2E_ETCD_PORT (and +1),
TFS_E2E_REGISTRY_PORT, TFS_E2E_LOGIN_REGISTRY_PORT (default the registry's +1, kept
for a registry a test starts), TFS_E2E_KCM_PORT, TFS_E2E_SCHEDULER_PORT, TFS_E2E_KWOK_PORT,
TFS_E2E_KUBELET_PORT (healthz on the port minus 2), TFS_E2E_POD_SUBNET,
TFS_E2E_NODE_BRIDGE, TFS_E2E_NODE_CGROUP, TFS_E2E_PROMETHEUS_PORT (pod discovery on
the port after it), TFS_E2E_GATEWAY_ADDRESS (Traefik's loopback address, listening on
8501 and 8500), TFS_E2E_GATEWAY_ADMIN_PORT (Traefik's ping), TFS_E2E_METRICS_PORT (metrics-server on
the node bridge's address, prometheus-adapter on the port after it), TFS_E2E_NO_APT=1 (never apt-get install missing Debian packages).
`

// Components, started in this order and stopped in the reverse one: the
// metrics APIs, Prometheus and its pod discovery first, the node (pods first,
// then the kubelet and containerd) before the registry and the control plane.
var components = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok", "registry", "podman", "node", "loopback-lb", "prometheus-sd", "prometheus", "metrics-server", "prometheus-adapter", "traefik"}

// Executables outside the bin cache that run for a state folder (Debian's
// containerd and its shim: what a node started before the runtime was built
// here ran).
var foreignExes = []string{"/usr/bin/docker-registry", "/usr/bin/podman", "/usr/bin/containerd", "/usr/bin/containerd-shim-runc-v2", prometheus.Exe}

func logf(format string, a ...any) { fmt.Fprintf(os.Stderr, "[e2e-env] "+format+"\n", a...) }

func elapsed(t0 time.Time) string { return fmt.Sprintf("%.1f", time.Since(t0).Seconds()) }

type env struct {
	s     configs.Settings
	sup   *supervisor.Supervisor
	v     versions.Versions
	dirs  bundles.Dirs
	goEnv []string
	built []string
}

func main() {
	args := os.Args[1:]
	root := ""
	if len(args) > 0 && strings.HasPrefix(args[0], "--root=") {
		root, args = strings.TrimPrefix(args[0], "--root="), args[1:]
	}
	if root == "" || len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	home, _ := os.UserHomeDir()
	s, err := configs.FromEnv(os.Getenv, home, root)
	if err != nil {
		die(err)
	}
	e := &env{s: s, sup: supervisor.New(s.State, s.Run(), s.Logs(), os.Stderr)}
	switch args[0] {
	case "prepare":
		err = e.prepare()
	case "start":
		err = e.start()
	case "stop":
		err = e.stop()
	case "status":
		if !e.status() {
			os.Exit(1)
		}
	case "env":
		err = e.printEnv(os.Stdout, len(args) > 1 && args[1] == "--json")
	case "packages":
		err = e.packages()
	case "selftest":
		err = e.selftest()
	case "pod-sd": // run by start: the real node's pods for Prometheus (args: the state folder, so the supervisor knows it)
		err = prometheus.SD(s).Serve()
	default:
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	if err != nil {
		die(err)
	}
}

func die(err error) {
	logf("error: %s", err)
	os.Exit(1)
}

// locate reads the pins and names the bundles' folders.
func (e *env) locate() error {
	e.goEnv = bundles.GoEnv(e.s.Cache)
	for _, d := range []string{"mod", "build"} {
		if err := os.MkdirAll(filepath.Join(e.s.Cache, "go", d), 0o755); err != nil {
			return err
		}
	}
	gv, err := bundles.GoVersion(e.goEnv)
	if err != nil {
		return err
	}
	if e.v, err = versions.Read(e.s.Root); err != nil {
		return err
	}
	e.dirs, err = bundles.Locate(e.s.Tools(), e.s.Bin(), gv, e.v)
	return err
}

func (e *env) ensurePackages() error {
	missing := debian.Missing(debian.Names(), debian.Installed)
	if len(missing) == 0 {
		return nil
	}
	t0 := time.Now()
	logf("installing Debian packages: %s", strings.Join(missing, " "))
	err := debian.Installer{NoApt: e.s.NoApt, Root: os.Geteuid() == 0, Log: filepath.Join(e.s.Cache, "logs", "apt.log"), Stderr: os.Stderr}.Install(missing)
	if err != nil {
		return err
	}
	e.built = append(e.built, fmt.Sprintf("Debian packages %s: %s s", strings.Join(missing, " "), elapsed(t0)))
	return nil
}

func (e *env) packages() error {
	if err := os.MkdirAll(filepath.Join(e.s.Cache, "logs"), 0o755); err != nil {
		return err
	}
	if err := e.ensurePackages(); err != nil {
		return err
	}
	if len(e.built) == 0 {
		logf("Debian packages: all installed (%s)", strings.Join(debian.Names(), " "))
	} else {
		logf("%s", e.built[0])
	}
	return nil
}

func (e *env) prepare() error {
	t0 := time.Now()
	if _, err := exec.LookPath("go"); err != nil {
		return errors.New("go is not on PATH (needed to build the tools)")
	}
	for _, d := range []string{filepath.Join(e.s.Cache, "logs"), e.s.Bin()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	lock, err := bundles.LockCache(e.s.Cache)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := e.ensurePackages(); err != nil {
		return err
	}
	if err := e.locate(); err != nil {
		return err
	}
	if err := e.v.Check(); err != nil {
		return err
	}
	b := &bundles.Builder{Tools: e.s.Tools(), Cache: e.s.Cache, Versions: e.v, Dirs: e.dirs, Env: e.goEnv, Log: logf, Stderr: os.Stderr}
	err = b.All()
	e.built = append(e.built, b.Built...)
	if err != nil {
		return err
	}
	// The Prometheus Operator's module, for its CRDs: fetched now, so start needs no network.
	if _, err := prometheus.CRDFiles(e.s.Tools(), e.goEnv); err != nil {
		return err
	}
	t1 := time.Now()
	if _, err := gateway.CRDs(e.s.Tools(), e.goEnv); err != nil {
		return err
	}
	if d := time.Since(t1); d > time.Second {
		e.built = append(e.built, fmt.Sprintf("%s module (its CRDs): %s s", gateway.Module, elapsed(t1)))
	}
	t2 := time.Now()
	if _, err := gateway.TraefikCRDs(e.s.Tools(), e.goEnv); err != nil {
		return err
	}
	if d := time.Since(t2); d > time.Second {
		e.built = append(e.built, fmt.Sprintf("%s module (its CRDs): %s s", gateway.TraefikModule, elapsed(t2)))
	}
	bundles.Touch(e.dirs) // used now: the builds another checkout's prepare keeps
	if len(e.built) == 0 {
		logf("prepare: nothing to build, every binary is cached under %s", e.s.Bin())
	} else {
		logf("prepare: built:")
		for _, l := range e.built {
			logf("  %s", l)
		}
	}
	lock.Close()
	logf("prepare took %s s", elapsed(t0))
	return nil
}

// lockState: one start or stop at a time on a state folder (a test harness
// and a person may both run this).
func (e *env) lockState() (*os.File, error) {
	if err := os.MkdirAll(e.s.State, 0o755); err != nil {
		return nil, err
	}
	f, err := flock.Lock(filepath.Join(e.s.State, ".lock"), 300*time.Second)
	if err != nil {
		return nil, fmt.Errorf("another scripts/e2e-env start/stop on %s did not finish within 300 s", e.s.State)
	}
	return f, nil
}

func setenv(vars [][2]string) {
	for _, kv := range vars {
		os.Setenv(kv[0], kv[1])
	}
}

func (e *env) start() error {
	t0 := time.Now()
	if err := e.prepare(); err != nil {
		return err
	}
	lock, err := e.lockState()
	if err != nil {
		return err
	}
	defer lock.Close()
	if stale := e.otherBuilds(); len(stale) > 0 {
		// After a pin moves (a pull, a branch), the running environment would go on serving the old
		// versions: kubectl and the control plane a minor apart, the tests on what the pins no
		// longer say. The state (etcd's data, the registry, the stacks) stays.
		logf("%s run from another build than the current pins' (%s); restarting the environment on the current ones", strings.Join(stale, ", "), e.exeOf(stale[0]))
		e.stopAll()
	}
	if err := e.linkBinDirs(); err != nil {
		return err
	}
	steps := []func() error{
		e.startCluster,
		e.installCRDs,
		e.startPrometheus,
		e.startMetricsAPIs,
		e.startGateway,
		e.setupPulumi,
		func() error {
			return os.WriteFile(e.s.EnvFile(), []byte(configs.EnvFile(e.s, e.dirs.Pulumi, e.dirs.Kube, os.Getenv("TFS_NODE_BIN"))), 0o644)
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	logf("started in %s s; now: source %s", elapsed(t0), e.s.EnvFile())
	return nil
}

// startCluster starts the control plane, the registry and podman with the
// base and pause images, and both nodes: what every pod needs (start adds the
// CRDs, Prometheus, the metrics APIs, the Gateway and Pulumi; the selftest's
// real-node check needs no more).
func (e *env) startCluster() error {
	if err := configs.Write(e.s); err != nil {
		return err
	}
	setenv(e.s.PodmanEnv()) // podman, and every process started from here on, use the state folder's store
	if err := pki.Ensure(e.s.PKI(), configs.CPUNode); err != nil {
		return fmt.Errorf("certificates: %w", err)
	}
	for _, step := range []func() error{
		e.startControlPlane,
		e.startImages,
		func() error {
			return e.sup.WaitFor("kube-controller-manager", 60*time.Second, httpsOK(fmt.Sprintf("https://127.0.0.1:%d/healthz", e.s.KCMPort)))
		},
		func() error {
			return e.sup.WaitFor("kube-scheduler", 60*time.Second, httpsOK(fmt.Sprintf("https://127.0.0.1:%d/healthz", e.s.SchedulerPort)))
		},
		e.createNodes,
	} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// linkBinDirs makes the PATH folders: only the tools a user runs (providers
// stay in the plugin cache). Beside the CLI (not on PATH, where the engine
// would warn that it uses an ambient plugin) goes the plugin a Pulumi install
// ships there for Node.js dynamic providers.
func (e *env) linkBinDirs() error {
	if err := writeIfChanged(filepath.Join(e.dirs.Pulumi, configs.DynamicProviderPlugin), configs.DynamicProviderScript, 0o755); err != nil {
		return err
	}
	if err := e.linkYAMLHost(); err != nil {
		return err
	}
	for _, l := range [][3]string{
		{e.dirs.Pulumi, "pulumi", "pulumi"},
		{e.dirs.Pulumi, "pulumi-language-nodejs", "pulumi-language-nodejs"},
		{e.dirs.Pulumi, "pulumi-language-yaml", "pulumi-language-yaml"},
		{e.dirs.Kube, "kube", "kubectl"},
	} {
		bin := filepath.Join(l[0], "bin")
		if err := os.MkdirAll(bin, 0o755); err != nil {
			return err
		}
		link := filepath.Join(bin, l[2])
		if t, err := os.Readlink(link); err == nil && t == "../"+l[1] {
			continue
		}
		os.Remove(link)
		if err := os.Symlink("../"+l[1], link); err != nil && !os.IsExist(err) {
			return err
		}
	}
	return nil
}

// linkYAMLHost puts the YAML language host, a bundle of its own, beside the
// CLI's executable, where the CLI looks for language plugins (it ignores PATH:
// PULUMI_IGNORE_AMBIENT_PLUGINS).
func (e *env) linkYAMLHost() error {
	yaml := filepath.Join(e.dirs.PulumiYAML, "pulumi-language-yaml")
	link := filepath.Join(e.dirs.Pulumi, "pulumi-language-yaml")
	if t, err := os.Readlink(link); err == nil && t == yaml {
		return nil
	}
	os.Remove(link)
	return os.Symlink(yaml, link)
}

// writeIfChanged writes data to path unless it already holds exactly that.
func writeIfChanged(path, data string, mode os.FileMode) error {
	if old, err := os.ReadFile(path); err == nil && string(old) == data {
		return nil
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(data), mode); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

var httpClient = &http.Client{Timeout: 5 * time.Second}

func httpOK(c *http.Client, url string) func() bool {
	return func() bool {
		resp, err := c.Get(url)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode < 400
	}
}

func httpsOK(url string) func() bool {
	return httpOK(&http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}, url)
}

func unixOK(socket, url string) func() bool {
	return httpOK(&http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		},
	}}, url)
}

// kubectl runs the bundle's kubectl with the admin kubeconfig.
func (e *env) kubectl(stdin string, args ...string) (string, error) {
	cmd := exec.Command(filepath.Join(e.dirs.Kube, "kubectl"), append([]string{"--kubeconfig", filepath.Join(e.s.State, "kubeconfig")}, args...)...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("kubectl %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

func (e *env) apiReady() bool {
	_, err := e.kubectl("", "get", "--raw", "/readyz")
	return err == nil
}

func (e *env) nodeReady(name string) func() bool {
	return e.nodeReadySince(name, time.Time{})
}

// nodeReadySince: Ready, as a kubelet reported it at or after since. A state
// folder keeps the Node object of the last run, Ready until the controller
// notices the old kubelet is gone: only a fresh heartbeat says this one runs.
func (e *env) nodeReadySince(name string, since time.Time) func() bool {
	return func() bool {
		out, err := e.kubectl("", "get", "node", name, "-o",
			`jsonpath={.status.conditions[?(@.type=="Ready")].status} {.status.conditions[?(@.type=="Ready")].lastHeartbeatTime}`)
		status, beat, _ := strings.Cut(out, " ")
		if err != nil || status != "True" {
			return false
		}
		at, err := time.Parse(time.RFC3339, strings.TrimSpace(beat))
		return err == nil && !at.Before(since.Truncate(time.Second))
	}
}

func (e *env) startControlPlane() error {
	s, k, p := e.s, filepath.Join(e.dirs.Kube, "kube"), e.s.PKI()
	stages := filepath.Join(s.State, "kwok-stages.yaml")
	if err := kwokstages.Write(s.Tools(), e.goEnv, stages); err != nil {
		return fmt.Errorf("kwok's stages: %w", err)
	}
	etcd := fmt.Sprintf("http://127.0.0.1:%d", s.EtcdPort)
	peer := fmt.Sprintf("http://127.0.0.1:%d", s.EtcdPeerPort())
	if err := e.sup.Spawn("etcd", k, "etcd", "--name", "tfs-e2e", "--data-dir", filepath.Join(s.State, "etcd"),
		"--listen-client-urls", etcd, "--advertise-client-urls", etcd,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
		"--initial-cluster", "tfs-e2e="+peer,
		"--unsafe-no-fsync", "--quota-backend-bytes", "2147483648"); err != nil {
		return err
	}
	if err := e.sup.WaitFor("etcd", 30*time.Second, httpOK(httpClient, etcd+"/health")); err != nil {
		return err
	}
	if err := e.sup.Spawn("kube-apiserver", k, "kube-apiserver",
		"--etcd-servers", etcd,
		"--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1", "--secure-port", fmt.Sprint(s.APIPort),
		"--tls-cert-file", p+"/apiserver.crt", "--tls-private-key-file", p+"/apiserver.key",
		"--client-ca-file", p+"/ca.crt",
		"--service-account-key-file", p+"/sa.pub", "--service-account-signing-key-file", p+"/sa.key",
		"--service-account-issuer", "https://kubernetes.default.svc.cluster.local",
		"--service-cluster-ip-range", "10.96.0.0/16",
		"--authorization-mode", "Node,RBAC", "--enable-admission-plugins", "NodeRestriction", "--allow-privileged=true",
		"--kubelet-client-certificate", p+"/apiserver-kubelet-client.crt", "--kubelet-client-key", p+"/apiserver-kubelet-client.key",
		"--kubelet-preferred-address-types", "InternalIP",
		"--requestheader-client-ca-file", p+"/ca.crt", "--requestheader-allowed-names", "front-proxy-client",
		"--requestheader-username-headers", "X-Remote-User", "--requestheader-group-headers", "X-Remote-Group",
		"--requestheader-extra-headers-prefix", "X-Remote-Extra-",
		// The aggregation layer (metrics-server, prometheus-adapter): its client
		// certificate, and endpoints instead of cluster IPs (no kube-proxy here).
		"--proxy-client-cert-file", p+"/front-proxy-client.crt", "--proxy-client-key-file", p+"/front-proxy-client.key",
		"--enable-aggregator-routing=true",
		"--endpoint-reconciler-type", "none", "--profiling=false"); err != nil {
		return err
	}
	if err := e.sup.WaitFor("kube-apiserver", 120*time.Second, e.apiReady); err != nil {
		return err
	}
	if !e.sup.Alive("metrics-server") || !e.sup.Alive("prometheus-adapter") {
		e.unregisterMetricsAPIs() // left by a stop that did not run: registered again once their servers run
	}
	kcm := filepath.Join(s.State, "controller-manager.kubeconfig")
	sched := filepath.Join(s.State, "scheduler.kubeconfig")
	admin := filepath.Join(s.State, "kubeconfig")
	spawns := [][]string{
		{"kube-controller-manager", k, "kube-controller-manager",
			"--kubeconfig", kcm, "--authentication-kubeconfig", kcm, "--authorization-kubeconfig", kcm,
			"--bind-address", "127.0.0.1", "--secure-port", fmt.Sprint(s.KCMPort), "--leader-elect=false",
			"--use-service-account-credentials=true",
			"--service-account-private-key-file", p + "/sa.key", "--root-ca-file", p + "/ca.crt",
			"--cluster-signing-cert-file", p + "/ca.crt", "--cluster-signing-key-file", p + "/ca.key",
			"--profiling=false"},
		{"kube-scheduler", k, "kube-scheduler",
			"--kubeconfig", sched, "--authentication-kubeconfig", sched, "--authorization-kubeconfig", sched,
			"--bind-address", "127.0.0.1", "--secure-port", fmt.Sprint(s.SchedulerPort), "--leader-elect=false", "--profiling=false"},
		{"kwok", filepath.Join(e.dirs.Kwok, "kwok"), "--kubeconfig", admin, "--config", stages,
			"--manage-all-nodes=false",
			"--manage-nodes-with-annotation-selector", "kwok.x-k8s.io/node=fake",
			"--node-lease-duration-seconds", "40",
			"--server-address", fmt.Sprintf("127.0.0.1:%d", s.KwokPort)},
	}
	for _, sp := range spawns {
		if err := e.sup.Spawn(sp[0], sp[1:]...); err != nil {
			return err
		}
	}
	e.sup.Stop("loopback-lb", 10*time.Second) // restarted each time: TFS_E2E_LB_MODE may have changed
	return e.sup.Spawn("loopback-lb", k, "loopback-lb", "--kubeconfig", admin, "--mode", s.LBMode,
		"--ip-range", s.LBIPRange, "--backend-cidrs", s.PodSubnet)
}

func (e *env) images() images.Maker {
	return images.Maker{Registry: e.s.Registry(), BaseImage: e.s.BaseImage(), Podman: e.s.Podman(), Logs: e.s.Logs(), Stderr: os.Stderr}
}

func (e *env) startImages() error {
	s := e.s
	if err := e.sup.Spawn("registry", "/usr/bin/docker-registry", "serve", filepath.Join(s.State, "registry.yml")); err != nil {
		return err
	}
	if err := e.sup.Spawn("podman", "podman", "system", "service", "--time=0", "unix://"+s.PodmanSocket()); err != nil {
		return err
	}
	if err := e.sup.WaitFor("registry", 30*time.Second, httpOK(httpClient, "http://"+s.Registry()+"/v2/")); err != nil {
		return err
	}
	if err := e.sup.WaitFor("podman", 30*time.Second, unixOK(s.PodmanSocket(), "http://d/_ping")); err != nil {
		return err
	}
	m := e.images()
	if err := m.EnsureBase(e.dirs.Standin); err != nil {
		return err
	}
	if err := m.EnsurePause(e.dirs.Pause, bundles.KeyOf(e.dirs.Pause)); err != nil {
		return err
	}
	return m.TagPinnedBase(s.Root)
}

func (e *env) createNodes() error {
	if _, err := e.kubectl(configs.GPUNodeManifest(e.v.Kubernetes), "apply", "-f", "-"); err != nil {
		return err
	}
	// apply leaves an existing node's status alone: after a version move the simulated node would
	// go on reporting the old kubelet's version.
	if _, err := e.kubectl("", "patch", "node", configs.GPUNode, "--subresource=status", "--type=merge", "-p", configs.GPUNodeVersionPatch(e.v.Kubernetes)); err != nil {
		return err
	}
	if err := e.sup.WaitFor("kwok", 60*time.Second, e.nodeReady(configs.GPUNode)); err != nil {
		return err
	}
	return e.startCPUNode()
}

// startCPUNode: the kubelet registers the real node. A CPU node kwok simulated
// (a state folder from before) is deleted first, or kwok would keep answering for it.
func (e *env) startCPUNode() error {
	s := e.s
	if e.sup.Alive("node") {
		return e.sup.WaitFor("node", 120*time.Second, e.nodeReady(configs.CPUNode))
	}
	out, err := e.kubectl("", "get", "node", configs.CPUNode, "--ignore-not-found", "-o", `jsonpath={.metadata.annotations.kwok\.x-k8s\.io/node}`)
	if err != nil {
		return err
	}
	if out == "fake" {
		logf("replacing the simulated node %s by a real one", configs.CPUNode)
		if _, err := e.kubectl("", "delete", "node", configs.CPUNode, "--wait=true"); err != nil {
			return err
		}
	}
	p := s.PKI()
	// The kubelet exits when it starts before containerd serves its CRI ("server is not initialized
	// yet"), which a busy machine makes likely: the node is started again, three times at most.
	const attempts = 3
	for attempt := 1; ; attempt++ {
		t0 := time.Now()
		if err := e.sup.Spawn("node", filepath.Join(e.dirs.Kube, "kube"), "node", "run", "--name", configs.CPUNode,
			"--dir", filepath.Join(s.State, "node"), "--log-dir", s.Logs(),
			"--api-server", s.APIServer(), "--ca", p+"/ca.crt", "--cert", p+"/kubelet.crt", "--key", p+"/kubelet.key",
			"--pod-subnet", s.PodSubnet, "--bridge", s.NodeBridge, "--cgroup-root", s.NodeCgroup,
			"--kubelet-port", fmt.Sprint(s.KubeletPort), "--healthz-port", fmt.Sprint(s.KubeletHealthzPort()),
			"--sandbox-image", images.PauseImage(s.Registry(), bundles.KeyOf(e.dirs.Pause)),
			"--runtime-dir", e.dirs.Containerd,
			"--labels", "node.kubernetes.io/instance-type=tfs-e2e-cpu"); err != nil {
			return err
		}
		err := e.sup.WaitFor("node", 120*time.Second, e.nodeReadySince(configs.CPUNode, t0))
		if err == nil {
			logf("node %s ready in %s s", configs.CPUNode, elapsed(t0))
			return nil
		}
		if attempt == attempts || e.sup.Alive("node") {
			return err
		}
		logf("node %s exited while starting; starting it again (%d of %d)", configs.CPUNode, attempt+1, attempts)
	}
}

// installCRDs puts the Prometheus Operator's CRDs (from its module) and GMP's
// structural ones into the API server, so PodMonitor, PrometheusRule,
// PodMonitoring and Rules objects are validated against their schemas.
func (e *env) installCRDs() error {
	files, err := prometheus.CRDFiles(e.s.Tools(), e.goEnv)
	if err != nil {
		return err
	}
	for _, f := range files {
		if _, err := e.kubectl("", "apply", "--server-side", "--force-conflicts", "-f", f); err != nil {
			return fmt.Errorf("installing the CRDs of %s: %w", f, err)
		}
	}
	_, err = e.kubectl("", "wait", "--for=condition=Established", "--timeout=60s",
		"crd/podmonitors.monitoring.coreos.com", "crd/prometheusrules.monitoring.coreos.com",
		"crd/podmonitorings.monitoring.googleapis.com", "crd/rules.monitoring.googleapis.com")
	return err
}

// startGateway installs the Gateway API CRDs and the environment's
// GatewayClass, then starts Traefik (on loopback) as their controller.
func (e *env) startGateway() error {
	t0 := time.Now()
	dir, err := gateway.CRDs(e.s.Tools(), e.goEnv)
	if err != nil {
		return err
	}
	if _, err := e.kubectl("", "apply", "--server-side", "--force-conflicts", "-f", dir); err != nil {
		return fmt.Errorf("installing the Gateway API CRDs of %s: %w", dir, err)
	}
	crds := []string{"wait", "--for=condition=Established", "--timeout=60s"}
	for _, n := range gateway.CRDNames {
		crds = append(crds, "crd/"+n+".gateway.networking.k8s.io")
	}
	traefikCRDs, err := gateway.TraefikCRDs(e.s.Tools(), e.goEnv)
	if err != nil {
		return err
	}
	if _, err := e.kubectl("", "apply", "--server-side", "--force-conflicts", "-f", traefikCRDs); err != nil {
		return fmt.Errorf("installing Traefik's CRDs of %s: %w", traefikCRDs, err)
	}
	for _, n := range gateway.TraefikCRDNames {
		crds = append(crds, "crd/"+n)
	}
	if _, err := e.kubectl("", crds...); err != nil {
		return err
	}
	if _, err := e.kubectl(gateway.GatewayClass(), "apply", "-f", "-"); err != nil {
		return err
	}
	if err := os.WriteFile(gateway.ConfigFile(e.s), []byte(gateway.Config(e.s)), 0o644); err != nil {
		return err
	}
	cmd := exec.Command(filepath.Join(e.dirs.Traefik, "bin", "traefik"), "--configFile="+gateway.ConfigFile(e.s))
	cmd.Env = gateway.Env(os.Environ(), e.s)
	if err := e.sup.SpawnCmd("traefik", cmd); err != nil {
		return err
	}
	if err := e.sup.WaitFor("traefik", 60*time.Second, httpOK(httpClient, gateway.PingURL(e.s))); err != nil {
		return err
	}
	accepted := func() bool {
		out, err := e.kubectl("", "get", "gatewayclass", configs.GatewayClass, "-o", `jsonpath={.status.conditions[?(@.type=="Accepted")].status}`)
		return err == nil && out == "True"
	}
	if err := e.sup.WaitFor("traefik", 60*time.Second, accepted); err != nil {
		return fmt.Errorf("GatewayClass %s not accepted by Traefik: %w", configs.GatewayClass, err)
	}
	logf("Gateway API CRDs and Traefik (class %s, on %s) ready in %s s", configs.GatewayClass, e.s.GatewayAddress, elapsed(t0))
	return nil
}

// startPrometheus starts the pod discovery and Debian's Prometheus, on loopback.
func (e *env) startPrometheus() error {
	s := e.s
	if err := os.WriteFile(prometheus.ConfigFile(s), []byte(prometheus.Config(s)), 0o644); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if err := e.sup.Spawn("prometheus-sd", self, "--root="+s.Root, "pod-sd", s.State); err != nil {
		return err
	}
	if err := e.sup.WaitFor("prometheus-sd", 30*time.Second, httpOK(httpClient, prometheus.SDURL(s))); err != nil {
		return err
	}
	if err := e.sup.Spawn("prometheus", append([]string{prometheus.Exe}, prometheus.Args(s)...)...); err != nil {
		return err
	}
	return e.sup.WaitFor("prometheus", 60*time.Second, httpOK(httpClient, s.PrometheusURL()+"/-/ready"))
}

// startMetricsAPIs starts metrics-server and prometheus-adapter on the node
// bridge's host address (metricsapi's doc says why there), registers them as
// aggregated APIs and waits until the API server finds both available.
func (e *env) startMetricsAPIs() error {
	t0 := time.Now()
	s := e.s
	addr, err := metricsapi.Address(s)
	if err != nil {
		return err
	}
	dns, ips := metricsapi.CertNames(addr)
	if err := pki.EnsureServing(s.PKI(), metricsapi.ServingCert, dns, ips); err != nil {
		return fmt.Errorf("certificates: %w", err)
	}
	if err := os.WriteFile(metricsapi.AdapterConfigFile(s), []byte(metricsapi.AdapterConfig()), 0o644); err != nil {
		return err
	}
	admin := filepath.Join(s.State, "kubeconfig")
	if err := e.sup.Spawn("metrics-server", append([]string{filepath.Join(e.dirs.MetricsServer, "metrics-server")}, metricsapi.MetricsServerArgs(s, addr, admin)...)...); err != nil {
		return err
	}
	if err := e.sup.Spawn("prometheus-adapter", append([]string{filepath.Join(e.dirs.PrometheusAdapter, "adapter")}, metricsapi.AdapterArgs(s, addr, admin)...)...); err != nil {
		return err
	}
	if err := e.sup.WaitFor("metrics-server", 60*time.Second, httpsOK(metricsapi.HealthURL(addr, s.MetricsPort))); err != nil {
		return err
	}
	if err := e.sup.WaitFor("prometheus-adapter", 60*time.Second, httpsOK(metricsapi.HealthURL(addr, metricsapi.AdapterPort(s)))); err != nil {
		return err
	}
	ca, err := os.ReadFile(filepath.Join(s.PKI(), "ca.crt"))
	if err != nil {
		return err
	}
	if _, err := e.kubectl(metricsapi.Manifests(s, addr, ca), "apply", "-f", "-"); err != nil {
		return err
	}
	for _, a := range metricsapi.APIServices {
		n := a.Version + "." + a.Group
		available := func() bool {
			out, err := e.kubectl("", "get", "apiservice", n, "-o", `jsonpath={.status.conditions[?(@.type=="Available")].status}`)
			return err == nil && out == "True"
		}
		if err := e.sup.WaitFor(a.Service, 60*time.Second, available); err != nil { // a.Service is also the component's name
			out, _ := e.kubectl("", "get", "apiservice", n, "-o", `jsonpath={.status.conditions[?(@.type=="Available")].message}`)
			return fmt.Errorf("APIService %s not available: %s (%w)", n, out, err)
		}
	}
	logf("metrics APIs (metrics-server on %s:%d, prometheus-adapter on :%d) available in %s s", addr, s.MetricsPort, metricsapi.AdapterPort(s), elapsed(t0))
	return nil
}

// unregisterMetricsAPIs deletes the APIServices while their servers are not
// running: an aggregated API that does not answer fails discovery, which
// keeps a deleted namespace Terminating and makes clients warn.
func (e *env) unregisterMetricsAPIs() {
	args := []string{"delete", "apiservice", "--ignore-not-found", "--wait=false", "--request-timeout=10s"}
	if _, err := e.kubectl("", append(args, metricsapi.APIServiceNames()...)...); err != nil {
		logf("could not remove the metrics APIServices: %s", err)
	}
}

func (e *env) setupPulumi() error {
	setenv(e.s.PulumiEnv(os.Getenv("PULUMI_CONFIG_PASSPHRASE")))
	p := pulumi.Engine{CLI: filepath.Join(e.dirs.Pulumi, "pulumi"), Home: os.Getenv("PULUMI_HOME"), Logs: e.s.Logs(), Stderr: os.Stderr}
	if err := p.InstallPlugin("kubernetes", e.v.KubernetesProvider, filepath.Join(e.dirs.KubernetesProvider, "pulumi-resource-kubernetes")); err != nil {
		return err
	}
	if err := p.InstallPlugin("docker", e.v.DockerProvider, filepath.Join(e.dirs.Pulumi, "pulumi-resource-docker")); err != nil {
		return err
	}
	return p.Login(os.Getenv("PULUMI_BACKEND_URL"))
}

// stop stops the components in the reverse order, then any stray process of
// ours, then removes whatever a killed node left (its cgroups and whatever
// still runs in them, its bridge).
func (e *env) stop() error {
	located := e.locate()
	lock, err := e.lockState()
	if err != nil {
		return err
	}
	defer lock.Close()
	if located == nil && e.sup.Alive("kube-apiserver") {
		e.unregisterMetricsAPIs()
	}
	e.stopComponents(located)
	logf("stopped")
	return nil
}

// otherBuilds names the running components started from another build of the
// bundles than the current pins' (see supervisor.OtherBuilds).
func (e *env) otherBuilds() []string {
	exes := map[string]string{}
	for _, c := range components {
		if p, ok := e.sup.PidOf(c); ok && e.sup.Alive(c) {
			exes[c] = supervisor.Exe(p)
		}
	}
	// The node runs containerd from the runtime bundle it was started with: after
	// the runtime's pins move, a node running with the old one is another build too.
	if p, ok := e.sup.PidOf("node"); ok && e.sup.Alive("node") {
		if cl, ok := supervisor.Cmdline(p); ok {
			if dir := flagValue(cl, "--runtime-dir"); dir != "" {
				exes["node's containerd"] = filepath.Join(dir, "containerd")
			}
		}
	}
	d := e.dirs
	self, _ := os.Executable() // prometheus-sd is this program
	return supervisor.OtherBuilds(exes, e.s.Bin(), []string{filepath.Dir(self), d.Kube, d.Pulumi, d.KubernetesProvider, d.Standin, d.Pause, d.Traefik, d.MetricsServer, d.PrometheusAdapter, d.Kwok, d.Containerd})
}

// flagValue is the value after flag in a command line of space-separated
// arguments ("" when it has none).
func flagValue(cmdline, flag string) string {
	f := strings.Fields(cmdline)
	for i := 0; i+1 < len(f); i++ {
		if f[i] == flag {
			return f[i+1]
		}
	}
	return ""
}

// exeOf is the executable component c runs from.
func (e *env) exeOf(c string) string {
	p, _ := e.sup.PidOf(c)
	return supervisor.Exe(p)
}

// stopAll stops every component (start holds the state lock already).
func (e *env) stopAll() {
	if e.sup.Alive("kube-apiserver") {
		e.unregisterMetricsAPIs()
	}
	e.stopComponents(nil)
}

// stopComponents stops the components in reverse order, then any stray, then
// cleans the node up (unless located says the bundles could not be found).
func (e *env) stopComponents(located error) {
	for i := len(components) - 1; i >= 0; i-- {
		limit := 10 * time.Second
		if components[i] == "node" {
			limit = 120 * time.Second // the node removes every pod (and waits for their shims) before it stops
		}
		e.sup.Stop(components[i], limit)
	}
	e.sup.StopStrays(e.s.Bin(), foreignExes, logf)
	if located != nil {
		logf("node cleanup skipped: %s", located)
	} else if k := filepath.Join(e.dirs.Kube, "kube"); isExecutable(k) {
		cmd := exec.Command(k, "node", "cleanup", "--bridge", e.s.NodeBridge, "--cgroup-root", e.s.NodeCgroup)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if cmd.Run() != nil {
			logf("node cleanup failed (see above)")
		}
	}
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode()&0o111 != 0
}

func (e *env) status() bool {
	os.MkdirAll(filepath.Join(e.s.Cache, "logs"), 0o755)
	located := e.locate() == nil
	running := 0
	for _, c := range components {
		if e.sup.Alive(c) {
			p, _ := e.sup.PidOf(c)
			fmt.Printf("%-24s running (pid %d)\n", c, p)
			running++
		} else {
			fmt.Printf("%-24s stopped\n", c)
		}
	}
	if e.sup.Alive("kube-apiserver") && located {
		if e.apiReady() {
			fmt.Println("api server: ready at " + e.s.APIServer())
			if out, err := e.kubectl("", "get", "nodes", "-o", "wide"); err == nil {
				fmt.Print(out)
			}
		} else {
			fmt.Println("api server: not ready")
		}
	}
	if _, err := os.Stat(e.s.EnvFile()); err == nil {
		fmt.Println("env file: " + e.s.EnvFile())
	}
	return running == len(components)
}

// printEnv prints the env file, or with asJSON its variables with their values
// as a shell that sources it sees them (one JSON object, in the file's order).
func (e *env) printEnv(w io.Writer, asJSON bool) error {
	b, err := os.ReadFile(e.s.EnvFile())
	if err != nil {
		return errors.New("no env file yet: run scripts/e2e-env start")
	}
	if !asJSON {
		_, err := w.Write(b)
		return err
	}
	names := configs.Exported(string(b))
	cmd := exec.Command("bash", append([]string{"-c", `source "$1"; shift; for k; do [ -n "${!k+set}" ] && printf '%s\0%s\0' "$k" "${!k}"; done; true`, "_", e.s.EnvFile()}, names...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("sourcing %s: %w", e.s.EnvFile(), err)
	}
	fields := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	var buf bytes.Buffer
	buf.WriteString("{")
	for i := 0; i+1 < len(fields); i += 2 {
		if i > 0 {
			buf.WriteString(",")
		}
		buf.WriteString("\n  " + jsonString(fields[i]) + ": " + jsonString(fields[i+1]))
	}
	if len(fields) > 1 {
		buf.WriteString("\n")
	}
	buf.WriteString("}\n")
	_, err = w.Write(buf.Bytes())
	return err
}

// jsonString is s as a JSON string, with <, > and & as they are.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
