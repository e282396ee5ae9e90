package main

import (
	"context"

	"k8s.io/component-base/cli"
	kubelet "k8s.io/kubernetes/cmd/kubelet/app"
)

// The kubelet's command takes the context its logger comes from (since 1.35), as upstream's
// cmd/kubelet passes it.
func runKubelet() int { return cli.Run(kubelet.NewKubeletCommand(context.Background())) }
