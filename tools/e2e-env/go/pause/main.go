// Command pause is the pod sandbox's process, like Kubernetes' pause: it holds
// the pod's namespaces and does nothing. With shareProcessNamespace it is the
// pod's PID 1, so it also reaps the zombies of the pod's other processes; it
// exits on SIGINT or SIGTERM (a PID 1 gets only the signals it handles).
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-v" {
		os.Stdout.WriteString("pause (tf-serving e2e)\n")
		return
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for sig := range sigs {
		if sig != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			var ws syscall.WaitStatus
			if pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil); pid <= 0 || err != nil {
				break
			}
		}
	}
}
