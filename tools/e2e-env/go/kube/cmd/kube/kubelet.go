package main

import (
	"k8s.io/component-base/cli"
	kubelet "k8s.io/kubernetes/cmd/kubelet/app"
)

func runKubelet() int { return cli.Run(kubelet.NewKubeletCommand()) }
