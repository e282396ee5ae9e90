package node

// Inside the node's own mount namespace: private mounts, the two daemons,
// and the teardown that leaves nothing running.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// Daemons are the command lines of containerd and the kubelet.
type Daemons struct {
	Containerd []string
	Kubelet    []string
	// LogDir receives containerd.log and kubelet.log.
	LogDir string
}

// RunInNamespace runs in a fresh mount namespace (the caller cloned it): it
// makes every mount private, puts a tmpfs over /run (containerd's shims keep
// their sockets and runc its state under /run/containerd, fixed paths), binds
// the node's folder over /var/log (the kubelet's fixed log paths) and stand-in
// files over the kernel settings the kubelet writes. Then it starts containerd
// and the kubelet and supervises them until a signal or until one exits; in
// both cases it tears everything down before it returns.
func RunInNamespace(s Settings, d Daemons, out io.Writer) error {
	logf := func(format string, a ...any) { fmt.Fprintf(out, "node: "+format+"\n", a...) }
	// Shims re-parent to us, so we can wait until the last one has gone.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("becoming a subreaper: %w", err)
	}
	if err := privateMounts(s); err != nil {
		return err
	}
	p := s.Paths()
	// A clean start: pods of an earlier run have lost their network namespaces.
	_ = os.RemoveAll(p.CNIDataDir)
	_ = os.Remove(p.Ready)

	sup := newSupervisor(logf)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)

	t0 := time.Now()
	ctd, err := sup.start("containerd", d.Containerd, filepath.Join(d.LogDir, "containerd.log"))
	if err != nil {
		return err
	}
	if err := waitCRI(p.ContainerdSocket, 60*time.Second, ctd); err != nil {
		sup.teardown(p.ContainerdSocket, 0, ctd)
		return err
	}
	logf("containerd's CRI answers after %.1f s", time.Since(t0).Seconds())
	kub, err := sup.start("kubelet", d.Kubelet, filepath.Join(d.LogDir, "kubelet.log"))
	if err != nil {
		sup.teardown(p.ContainerdSocket, 0, ctd)
		return err
	}
	if err := os.WriteFile(p.Ready, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		logf("writing %s: %v", p.Ready, err)
	}
	select {
	case sig := <-sigs:
		logf("%v: stopping", sig)
		sup.teardown(p.ContainerdSocket, kub, ctd)
		return nil
	case name := <-sup.exited:
		logf("%s exited: stopping", name)
		sup.teardown(p.ContainerdSocket, kub, ctd)
		return fmt.Errorf("%s exited (log: %s)", name, filepath.Join(d.LogDir, name+".log"))
	}
}

func privateMounts(s Settings) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making mounts private: %w", err)
	}
	if !within(s.Dir, "/run") {
		if err := unix.Mount("tfs-e2e-run", "/run", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=755"); err != nil {
			return fmt.Errorf("tmpfs over /run: %w", err)
		}
	}
	p := s.Paths()
	if !within(s.Dir, "/var/log") {
		if err := os.MkdirAll(p.VarLog, 0o755); err != nil {
			return err
		}
		if err := unix.Mount(p.VarLog, "/var/log", "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("binding %s over /var/log: %w", p.VarLog, err)
		}
	}
	if err := os.MkdirAll(p.Sysctls, 0o755); err != nil {
		return err
	}
	for _, t := range KernelTunables {
		real := filepath.Join("/proc/sys", t)
		value, err := os.ReadFile(real)
		if err != nil {
			continue // not on this kernel: the kubelet cannot write it either
		}
		standIn := filepath.Join(p.Sysctls, strings.ReplaceAll(t, "/", "."))
		if err := os.WriteFile(standIn, value, 0o644); err != nil {
			return err
		}
		if err := unix.Mount(standIn, real, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("binding a stand-in over %s: %w", real, err)
		}
	}
	return nil
}

func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// supervisor starts daemons in process groups of their own (a signal to the
// node's group reaches only the supervisor, which stops them in order) and
// reaps every child, including shims re-parented to it.
type supervisor struct {
	logf   func(string, ...any)
	names  map[int]string
	exited chan string
}

func newSupervisor(logf func(string, ...any)) *supervisor {
	s := &supervisor{logf: logf, names: map[int]string{}, exited: make(chan string, 4)}
	chld := make(chan os.Signal, 16)
	signal.Notify(chld, syscall.SIGCHLD)
	go func() {
		for range chld {
			s.reap()
		}
	}()
	return s
}

func (s *supervisor) reap() {
	for {
		var ws unix.WaitStatus
		if pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil); pid <= 0 || err != nil {
			return
		}
	}
}

// start runs argv with output appended to logFile; it returns the pid.
func (s *supervisor) start(name string, argv []string, logFile string) (int, error) {
	f, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return 0, err
	}
	defer devnull.Close()
	proc, err := os.StartProcess(argv[0], argv, &os.ProcAttr{
		Files: []*os.File{devnull, f, f},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	})
	if err != nil {
		return 0, fmt.Errorf("starting %s: %w", name, err)
	}
	pid := proc.Pid
	_ = proc.Release()
	s.names[pid] = name
	s.logf("%s started (pid %d)", name, pid)
	go s.watch(pid, name)
	return pid, nil
}

// watch reports a daemon's exit (the reaper may have taken its status; the
// process is gone either way once signal 0 fails).
func (s *supervisor) watch(pid int, name string) {
	for {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			s.exited <- name
			return
		}
		s.reap()
		time.Sleep(200 * time.Millisecond)
	}
}

// waitCRI waits until containerd's CRI plugin answers the runtime service's
// Version call, which is the kubelet's first check: the socket accepts
// connections before the plugin has initialized ("server is not initialized
// yet"), and on a busy machine the kubelet started then exits at once.
func waitCRI(socket string, limit time.Duration, pid int) error {
	deadline := time.Now().Add(limit)
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return fmt.Errorf("containerd's socket %s: %w", socket, err)
	}
	defer conn.Close()
	rt := runtimeapi.NewRuntimeServiceClient(conn)
	last := errors.New("no answer yet")
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := rt.Version(ctx, &runtimeapi.VersionRequest{})
		cancel()
		if err == nil {
			return nil
		}
		last = err
		if syscall.Kill(pid, 0) != nil {
			return fmt.Errorf("containerd exited before its CRI answered on %s: %v", socket, last)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("containerd's CRI did not answer on %s within %v: %v", socket, limit, last)
}

// stopProcess sends SIGTERM, waits up to limit, then SIGKILLs.
func (s *supervisor) stopProcess(pid int, limit time.Duration) {
	if pid <= 0 {
		return
	}
	_ = syscall.Kill(pid, syscall.SIGTERM)
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		s.reap()
		if syscall.Kill(pid, 0) != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.logf("%s did not stop within %v: killing it", s.names[pid], limit)
	_ = syscall.Kill(pid, syscall.SIGKILL)
	for i := 0; i < 50 && syscall.Kill(pid, 0) == nil; i++ {
		s.reap()
		time.Sleep(100 * time.Millisecond)
	}
}

// teardown: the kubelet first (so it restarts nothing), then every pod
// through the CRI (containers killed, sandboxes and their networks removed,
// which also ends their shims), then containerd, then whatever child is left.
func (s *supervisor) teardown(socket string, kubelet, containerd int) {
	t0 := time.Now()
	s.stopProcess(kubelet, 15*time.Second)
	if err := RemoveAllPods(socket, 60*time.Second); err != nil {
		s.logf("removing pods: %v", err)
	}
	s.stopProcess(containerd, 15*time.Second)
	// Shims exit once their sandboxes are removed; wait for the last child.
	deadline := time.Now().Add(15 * time.Second)
	for {
		s.reap()
		kids := children(os.Getpid())
		if len(kids) == 0 {
			break
		}
		if time.Now().After(deadline) {
			s.logf("killing leftover children %v", kids)
			for _, k := range kids {
				_ = syscall.Kill(k, syscall.SIGKILL)
			}
			deadline = time.Now().Add(5 * time.Second)
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.logf("stopped in %.1f s", time.Since(t0).Seconds())
}

// children lists the live children of pid (every /proc/N/stat's parent field).
func children(pid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so cut after the last ')'.
		i := strings.LastIndexByte(string(stat), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) >= 2 && f[1] == strconv.Itoa(pid) && f[0] != "Z" {
			out = append(out, n)
		}
	}
	return out
}

// RemoveAllPods stops and removes every container and pod sandbox containerd
// knows, until none is left. Bounded by limit.
func RemoveAllPods(socket string, limit time.Duration) error {
	if _, err := os.Stat(socket); err != nil {
		return nil // containerd never came up
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	rt := runtimeapi.NewRuntimeServiceClient(conn)
	for {
		ctrs, err := rt.ListContainers(ctx, &runtimeapi.ListContainersRequest{})
		if err != nil {
			return fmt.Errorf("listing containers: %w", err)
		}
		sbs, err := rt.ListPodSandbox(ctx, &runtimeapi.ListPodSandboxRequest{})
		if err != nil {
			return fmt.Errorf("listing pod sandboxes: %w", err)
		}
		if len(ctrs.Containers) == 0 && len(sbs.Items) == 0 {
			return nil
		}
		for _, c := range ctrs.Containers {
			_, _ = rt.StopContainer(ctx, &runtimeapi.StopContainerRequest{ContainerId: c.Id, Timeout: 0})
			_, _ = rt.RemoveContainer(ctx, &runtimeapi.RemoveContainerRequest{ContainerId: c.Id})
		}
		for _, sb := range sbs.Items {
			_, _ = rt.StopPodSandbox(ctx, &runtimeapi.StopPodSandboxRequest{PodSandboxId: sb.Id})
			_, _ = rt.RemovePodSandbox(ctx, &runtimeapi.RemovePodSandboxRequest{PodSandboxId: sb.Id})
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d containers and %d sandboxes still there after %v", len(ctrs.Containers), len(sbs.Items), limit)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
