package node

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// WriteConfigs writes containerd's, the kubelet's and the CNI configuration.
func WriteConfigs(s Settings) error {
	p := s.Paths()
	for _, dir := range []string{s.Dir, p.ContainerdRoot, p.ContainerdState, p.KubeletRoot, p.CNIConfDir, p.VarLog, p.Sysctls} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	files := map[string]string{
		p.ContainerdConfig:                    ContainerdConfig(s),
		p.KubeletConfig:                       KubeletConfig(s),
		p.KubeletKubeconfig:                   KubeletKubeconfig(s),
		p.CNIConfDir + "/10-tfs-e2e.conflist": CNIConfig(s),
	}
	for path, text := range files {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// RunHost is the node's supervisor in the host's namespaces: it checks the pod
// subnet, writes the configuration, makes the cgroup root and the bridge, runs
// inner (this program's namespace part) in a new mount namespace until it
// exits, then removes the bridge and the cgroups. A SIGTERM or SIGINT is passed
// on to inner, which stops the pods and daemons first.
func RunHost(s Settings, inner []string, out io.Writer) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if os.Geteuid() != 0 {
		return fmt.Errorf("a real node needs root (mounts, cgroups, a bridge)")
	}
	if err := CheckSubnet(s); err != nil {
		return err
	}
	if err := WriteConfigs(s); err != nil {
		return err
	}
	if err := EnsureCgroups(s.CgroupRoot); err != nil {
		return err
	}
	if err := EnsureBridge(s); err != nil {
		_ = RemoveCgroups(s.CgroupRoot, false)
		return err
	}
	cmd := exec.Command(inner[0], inner[1:]...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNS}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)
	runErr := cmd.Start()
	if runErr == nil {
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
	wait:
		for {
			select {
			case sig := <-sigs:
				_ = cmd.Process.Signal(sig)
			case runErr = <-done:
				break wait
			}
		}
	}
	return firstError(runErr, Cleanup(s))
}

// Cleanup removes the node's footprint in the host's namespaces once its
// daemons have gone: it kills anything left in its cgroups (a leak of ours by
// construction), removes them, and deletes the bridge.
func Cleanup(s Settings) error {
	if s.CgroupRoot == "" || s.CgroupRoot == "/" || s.Bridge == "" {
		return fmt.Errorf("cleanup needs the node's own cgroup root and bridge, got %q and %q", s.CgroupRoot, s.Bridge)
	}
	return firstError(RemoveCgroups(s.CgroupRoot, true), RemoveBridge(s))
}

func firstError(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
