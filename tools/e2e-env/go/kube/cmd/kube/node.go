package main

// kube node runs the environment's real CPU node (see internal/node):
//
//	kube node run FLAGS        supervise containerd and the kubelet until SIGTERM
//	kube node cleanup FLAGS    remove what a node that was killed left behind
//	kube node render FLAGS     print the configuration files
//
// (kube node namespace FLAGS is the part that runs in the node's own mount
// namespace; run starts it.)

import (
	"flag"
	"fmt"
	"net/netip"
	"os"
	"strings"

	"tfs-e2e/kube/internal/node"
)

func runNode() int {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: kube node run|cleanup|render FLAGS")
		return 2
	}
	sub := os.Args[1]
	fs := flag.NewFlagSet("node "+sub, flag.ContinueOnError)
	var s node.Settings
	var subnet, labels, logDir string
	fs.StringVar(&s.NodeName, "name", "tfs-e2e-cpu", "node name")
	fs.StringVar(&s.Dir, "dir", "", "the node's own folder (absolute)")
	fs.StringVar(&s.APIServer, "api-server", "https://127.0.0.1:16443", "API server URL")
	fs.StringVar(&s.CAFile, "ca", "", "cluster CA certificate")
	fs.StringVar(&s.CertFile, "cert", "", "the kubelet's client certificate (system:node:NAME)")
	fs.StringVar(&s.KeyFile, "key", "", "its key")
	fs.StringVar(&subnet, "pod-subnet", "", "pod subnet; the bridge takes its first address")
	fs.StringVar(&s.Bridge, "bridge", "tfse2e0", "bridge name")
	fs.IntVar(&s.KubeletPort, "kubelet-port", 10350, "kubelet API port (on the bridge address)")
	fs.IntVar(&s.HealthzPort, "healthz-port", 10348, "kubelet healthz port (on 127.0.0.1)")
	fs.StringVar(&s.CgroupRoot, "cgroup-root", "/tfs-e2e", "cgroup of all pods")
	fs.StringVar(&s.SandboxImage, "sandbox-image", "", "pause image")
	fs.StringVar(&s.CNIBinDir, "cni-bin-dir", "/usr/lib/cni", "CNI plugins")
	fs.StringVar(&labels, "labels", "", "node labels, k=v,k=v")
	fs.StringVar(&s.RuntimeDir, "runtime-dir", "", "folder of containerd, containerd-shim-runc-v2 and runc (absolute)")
	fs.StringVar(&logDir, "log-dir", "", "folder for containerd.log and kubelet.log (default: --dir)")
	if err := fs.Parse(os.Args[2:]); err != nil {
		return 2
	}
	if sub == "cleanup" {
		// Only the footprint's names matter: the cgroup root and the bridge.
		if err := node.Cleanup(s); err != nil {
			fmt.Fprintf(os.Stderr, "kube node cleanup: %v\n", err)
			return 1
		}
		return 0
	}
	if p, err := netip.ParsePrefix(subnet); err == nil {
		s.PodSubnet = p
	} else {
		fmt.Fprintf(os.Stderr, "kube node: --pod-subnet %q: %v\n", subnet, err)
		return 2
	}
	s.Labels = map[string]string{}
	for _, kv := range strings.Split(labels, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			s.Labels[k] = v
		}
	}
	if logDir == "" {
		logDir = s.Dir
	}
	if err := s.Validate(); err != nil {
		fmt.Fprintf(os.Stderr, "kube node: %v\n", err)
		return 2
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "kube node: %v\n", err)
		return 1
	}
	switch sub {
	case "run":
		inner := append([]string{self, "node", "namespace"}, os.Args[2:]...)
		err = node.RunHost(s, inner, os.Stdout)
	case "namespace":
		err = node.RunInNamespace(s, node.Daemons{
			Containerd: []string{s.Runtime().Containerd, "--config", s.Paths().ContainerdConfig},
			Kubelet:    append([]string{self, "kubelet"}, node.KubeletArgs(s)...),
			LogDir:     logDir,
		}, os.Stdout)
	case "render":
		p := s.Paths()
		fmt.Printf("# %s\n%s\n# %s\n%s\n# %s\n%s\n# kubelet %s\n", p.ContainerdConfig, node.ContainerdConfig(s),
			p.KubeletConfig, node.KubeletConfig(s), p.CNIConfDir, node.CNIConfig(s), strings.Join(node.KubeletArgs(s), " "))
	default:
		fmt.Fprintf(os.Stderr, "kube node: unknown subcommand %q (run, cleanup, render)\n", sub)
		return 2
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "kube node %s: %v\n", sub, err)
		return 1
	}
	return 0
}
