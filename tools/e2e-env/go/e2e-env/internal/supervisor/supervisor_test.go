package supervisor

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func newSup(t *testing.T) (*Supervisor, *bytes.Buffer) {
	t.Helper()
	state := t.TempDir()
	var stderr bytes.Buffer
	s := New(state, filepath.Join(state, "run"), filepath.Join(state, "logs"), &stderr)
	s.Poll = 50 * time.Millisecond
	t.Cleanup(func() {
		for _, n := range []string{"group", "quitter", "x"} {
			s.Stop(n, time.Second)
		}
	})
	return s, &stderr
}

func waitGone(pid int) bool {
	for i := 0; i < 100; i++ {
		if !Running(pid) {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// A shell (whose $0 names the state folder) with a child in its process group.
func TestSpawnAliveStopKillsTheGroup(t *testing.T) {
	s, _ := newSup(t)
	child := filepath.Join(s.State, "child.pid")
	script := `sleep 60 & echo $! > "$1"; echo started; wait`
	if err := s.Spawn("group", "sh", "-c", script, s.State+"/group", child); err != nil {
		t.Fatal(err)
	}
	if !s.Alive("group") {
		t.Fatal("not alive after spawn")
	}
	var cpid int
	for i := 0; i < 100 && cpid == 0; i++ {
		b, _ := os.ReadFile(child)
		cpid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		time.Sleep(20 * time.Millisecond)
	}
	if cpid == 0 || !Running(cpid) {
		t.Fatal("the child did not start")
	}
	pid, _ := s.PidOf("group")
	if pgid, _ := syscall.Getpgid(pid); pgid != pid {
		t.Errorf("process group %d, want its own (%d)", pgid, pid)
	}
	// Spawning a running component again leaves it alone.
	if err := s.Spawn("group", "false"); err != nil {
		t.Fatal(err)
	}
	if p, _ := s.PidOf("group"); p != pid {
		t.Fatalf("spawned again: pid %d, was %d", p, pid)
	}
	t0 := time.Now()
	s.Stop("group", 5*time.Second)
	if !waitGone(pid) || !waitGone(cpid) {
		t.Fatal("the group still runs after Stop")
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Errorf("stop took %v (SIGTERM should do)", d)
	}
	if s.Alive("group") {
		t.Fatal("alive after stop")
	}
	if _, err := os.Stat(filepath.Join(s.Run, "group.pid")); !os.IsNotExist(err) {
		t.Fatal("the pid file is still there")
	}
	log, _ := os.ReadFile(s.LogFile("group"))
	if string(log) != "started\n" {
		t.Fatalf("log %q", log)
	}
}

func TestStopKillsWhatIgnoresTERM(t *testing.T) {
	s, _ := newSup(t)
	if err := s.Spawn("x", "sh", "-c", `trap "" TERM; echo ready; while :; do sleep 0.1; done`, s.State+"/x"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		if b, _ := os.ReadFile(s.LogFile("x")); len(b) > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	pid, _ := s.PidOf("x")
	s.Stop("x", time.Second)
	if !waitGone(pid) {
		t.Fatal("still runs after SIGKILL")
	}
}

func TestAliveNeedsTheStateFolderInTheCommandLine(t *testing.T) {
	s, _ := newSup(t)
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	os.MkdirAll(s.Run, 0o755)
	os.WriteFile(filepath.Join(s.Run, "x.pid"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644)
	if s.Alive("x") {
		t.Fatal("a process whose command line does not name the state folder counts as ours")
	}
	if s.Alive("none") {
		t.Fatal("alive without a pid file")
	}
}

func TestWaitFailsFastWhenTheComponentExits(t *testing.T) {
	s, stderr := newSup(t)
	if err := s.Spawn("quitter", "sh", "-c", `for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do echo line $i; done; echo boom >&2; exit 3`, s.State+"/q"); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	err := s.WaitFor("quitter", 60*time.Second, func() bool { return false })
	if err == nil || !strings.Contains(err.Error(), "quitter exited") {
		t.Fatalf("got %v", err)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Fatalf("took %v", d)
	}
	if out := stderr.String(); !strings.Contains(out, "boom") || strings.Contains(out, "line 6\n") || !strings.Contains(out, "line 7\n") {
		t.Fatalf("want the log's last 15 lines, got %q", out)
	}
	if _, ok := s.PidOf("quitter"); ok {
		t.Fatal("the pid file of the exited component is still there")
	}
}

// What a component served can look ready after it exited (kwok's Node stays
// Ready until the controller misses its heartbeats): an exited component fails
// the wait even when the check passes.
func TestWaitForFailsForAnExitedComponentThatLooksReady(t *testing.T) {
	s, _ := newSup(t)
	if err := s.Spawn("gone", "sh", "-c", "exit 1", s.State+"/g"); err != nil {
		t.Fatal(err)
	}
	p, _ := s.PidOf("gone")
	for i := 0; i < 200 && Running(p); i++ {
		time.Sleep(25 * time.Millisecond)
	}
	err := s.WaitFor("gone", 5*time.Second, func() bool { return true })
	if err == nil || !strings.Contains(err.Error(), "gone exited") {
		t.Fatalf("got %v, want the exit reported", err)
	}
}

// A component whose command line does not (yet) name the state folder, as one
// inside execve right after Spawn, is still running: the wait goes on.
func TestWaitForKeepsWaitingForARunningComponent(t *testing.T) {
	s, _ := newSup(t)
	if err := s.Spawn("x", "sleep", "30"); err != nil {
		t.Fatal(err)
	}
	if s.Alive("x") {
		t.Fatal("precondition: sleep's command line names no state folder, so Alive says no")
	}
	n := 0
	if err := s.WaitFor("x", 5*time.Second, func() bool { n++; return n == 4 }); err != nil || n != 4 {
		t.Fatalf("err %v after %d checks: a running process was taken for an exited one", err, n)
	}
	if p, _ := s.PidOf("x"); p > 0 {
		syscall.Kill(p, syscall.SIGKILL)
	}
}

func TestWaitForBounds(t *testing.T) {
	s, _ := newSup(t)
	n := 0
	if err := s.WaitFor("thing", 2*time.Second, func() bool { n++; return n == 3 }); err != nil || n != 3 {
		t.Fatalf("err %v after %d checks", err, n)
	}
	t0 := time.Now()
	err := s.WaitFor("thing", 300*time.Millisecond, func() bool { return false })
	if err == nil || !strings.Contains(err.Error(), "thing not ready after 0s") || time.Since(t0) > 2*time.Second {
		t.Fatalf("got %v after %v", err, time.Since(t0))
	}
}

func TestStrays(t *testing.T) {
	s, _ := newSup(t)
	bin := t.TempDir()
	exe := filepath.Join(bin, "bundle-abc", "sleep")
	os.MkdirAll(filepath.Dir(exe), 0o755)
	src, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	in, _ := os.Open(src)
	out, _ := os.OpenFile(exe, os.O_CREATE|os.O_WRONLY, 0o755)
	io.Copy(out, in)
	in.Close()
	out.Close()
	start := func(args0 string) *exec.Cmd {
		c := &exec.Cmd{Path: exe, Args: []string{args0, "60"}}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		go c.Wait()
		t.Cleanup(func() { c.Process.Kill() })
		return c
	}
	ours := start(s.State + "/sleeper")
	other := start(s.State + "-other/sleeper") // another state folder with the same prefix
	strays := s.Strays(bin, nil)
	if !slices.Contains(strays, ours.Process.Pid) || slices.Contains(strays, other.Process.Pid) {
		t.Fatalf("strays %v: want %d and not %d", strays, ours.Process.Pid, other.Process.Pid)
	}
	if got := s.Strays(t.TempDir(), nil); slices.Contains(got, ours.Process.Pid) {
		t.Fatal("a process outside the bin cache counts as a stray")
	}
	if got := s.Strays(t.TempDir(), []string{exe}); !slices.Contains(got, ours.Process.Pid) {
		t.Fatal("a listed executable does not count")
	}
	var logged []string
	s.StopStrays(bin, nil, func(f string, a ...any) { logged = append(logged, f) })
	if !waitGone(ours.Process.Pid) || len(logged) != 1 {
		t.Fatalf("stray still runs (logged %v)", logged)
	}
	if !Running(other.Process.Pid) {
		t.Fatal("stopped another state folder's process")
	}
}

func TestOtherBuildsNamesComponentsOfAnotherBuild(t *testing.T) {
	bin := "/cache/bin"
	current := []string{bin + "/kube-v1.35.4-aaaaaaaaaaaa", bin + "/kwok-v0.8.0-bbbbbbbbbbbb", ""}
	exes := map[string]string{
		"kube-apiserver": bin + "/kube-v1.33.13-cccccccccccc/kube", // the pins moved since it started
		"etcd":           bin + "/kube-v1.35.4-aaaaaaaaaaaa/kube",
		"kwok":           bin + "/kwok-v0.8.0-bbbbbbbbbbbb/kwok",
		"registry":       "/usr/bin/docker-registry", // Debian's: never another build
		"gone":           "",
		"prefix-only":    bin + "/kube-v1.35.4-aaaaaaaaaaaa2/kube", // another key that starts like the current one
	}
	got := OtherBuilds(exes, bin, current)
	want := []string{"kube-apiserver", "prefix-only"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("OtherBuilds = %v, want %v", got, want)
	}
	if got := OtherBuilds(map[string]string{"etcd": bin + "/kube-v1.35.4-aaaaaaaaaaaa/kube"}, bin, current); len(got) != 0 {
		t.Fatalf("an environment on the current builds: OtherBuilds = %v, want none", got)
	}
}
