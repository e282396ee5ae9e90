// Command kube is a multi-call binary for the end-to-end test environment.
// It links etcd, the Kubernetes control plane, kubectl, the kubelet, a
// loopback load-balancer controller and the node supervisor into one executable so that the shared
// dependencies are compiled and linked once. The tool to run is chosen by the
// name it is called by (a symlink such as kube-apiserver) or by its first
// argument (`kube kube-apiserver --help`).
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type tool func() int

var tools = map[string]tool{
	"etcd":                    runEtcd,
	"kube-apiserver":          runAPIServer,
	"kube-controller-manager": runControllerManager,
	"kube-scheduler":          runScheduler,
	"kubectl":                 runKubectl,
	"kubelet":                 runKubelet,
	"loopback-lb":             runLoopbackLB,
	"node":                    runNode,
}

func main() {
	name := filepath.Base(os.Args[0])
	if _, ok := tools[name]; !ok {
		if len(os.Args) < 2 {
			usage()
			os.Exit(2)
		}
		name = os.Args[1]
		os.Args = append([]string{name}, os.Args[2:]...)
	}
	run, ok := tools[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "kube: unknown tool %q\n", name)
		usage()
		os.Exit(2)
	}
	os.Exit(run())
}

func usage() {
	names := make([]string, 0, len(tools))
	for n := range tools {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(os.Stderr, "usage: kube TOOL [ARGS...]  (or call through a symlink named TOOL)\ntools: %s\n", strings.Join(names, ", "))
}
