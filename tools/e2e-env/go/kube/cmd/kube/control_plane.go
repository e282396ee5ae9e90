package main

import (
	"os"
	_ "time/tzdata" // CronJob time zones, as the upstream mains do

	"go.etcd.io/etcd/server/v3/etcdmain"
	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	kubectlcmd "k8s.io/kubectl/pkg/cmd"
	kubectlutil "k8s.io/kubectl/pkg/cmd/util"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
)

func runEtcd() int {
	etcdmain.Main(os.Args)
	return 0
}

func runAPIServer() int { return cli.Run(apiserver.NewAPIServerCommand()) }

func runControllerManager() int { return cli.Run(controllermanager.NewControllerManagerCommand()) }

func runScheduler() int { return cli.Run(scheduler.NewSchedulerCommand()) }

func runKubectl() int {
	if err := cli.RunNoErrOutput(kubectlcmd.NewDefaultKubectlCommand()); err != nil {
		kubectlutil.CheckErr(err)
		return 1
	}
	return 0
}
