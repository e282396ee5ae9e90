// Package supervisor starts the environment's processes in the background,
// each in a session of its own with its pid in $STATE/run/NAME.pid and its
// output in $STATE/logs/NAME.log, tells whether they run, waits for them and
// stops them (the whole process group). A recorded process counts as ours only
// while its command line names the state folder, so a pid reused after a
// reboot is never taken for it.
package supervisor

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"tfs-e2e/e2e-env/internal/logtail"
)

// Supervisor manages the processes of one state folder.
type Supervisor struct {
	State  string // named by every command line of ours
	Run    string // pid files
	Logs   string // logs
	Stderr io.Writer
	Poll   time.Duration // WaitFor's interval (default 500 ms)
}

// New is the supervisor of state, with pid files in run and logs in logs.
func New(state, run, logs string, stderr io.Writer) *Supervisor {
	return &Supervisor{State: state, Run: run, Logs: logs, Stderr: stderr, Poll: 500 * time.Millisecond}
}

func (s *Supervisor) pidFile(name string) string { return filepath.Join(s.Run, name+".pid") }

// LogFile is NAME's log.
func (s *Supervisor) LogFile(name string) string { return filepath.Join(s.Logs, name+".log") }

// PidOf is the pid NAME's pid file records.
func (s *Supervisor) PidOf(name string) (int, bool) {
	b, err := os.ReadFile(s.pidFile(name))
	if err != nil {
		return 0, false
	}
	p, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return p, err == nil && p > 0
}

// Cmdline is a process's command line, arguments separated by spaces.
func Cmdline(pid int) (string, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return "", false
	}
	return string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})), true
}

// Alive tells whether NAME's recorded process runs and is ours.
func (s *Supervisor) Alive(name string) bool {
	p, ok := s.PidOf(name)
	if !ok || syscall.Kill(p, 0) != nil {
		return false
	}
	c, ok := Cmdline(p)
	return ok && strings.Contains(c, s.State)
}

// Running tells whether pid exists and is no zombie (our daemons are
// re-parented to the machine's init, which may take a while to reap them).
func Running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	st := string(b)
	i := strings.LastIndex(st, ") ")
	return i >= 0 && !strings.HasPrefix(st[i+2:], "Z")
}

// Spawn starts argv as NAME, in a session of its own, stdin from /dev/null and
// output appended to its log, unless NAME already runs. The process inherits
// this one's environment and no other descriptor (so no lock is held by it).
func (s *Supervisor) Spawn(name string, argv ...string) error {
	return s.SpawnCmd(name, exec.Command(argv[0], argv[1:]...))
}

// SpawnCmd is Spawn for a prepared command (its Args[0] may differ from Path).
func (s *Supervisor) SpawnCmd(name string, cmd *exec.Cmd) error {
	if s.Alive(name) {
		return nil
	}
	if err := os.MkdirAll(s.Run, 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(s.Logs, 0o755); err != nil {
		return err
	}
	log, err := os.OpenFile(s.LogFile(name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", name, err)
	}
	go cmd.Wait() // reaps it if it exits while this program runs
	return os.WriteFile(s.pidFile(name), []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644)
}

// WaitFor runs check every Poll until it succeeds, for at most limit. When
// what is a component of ours (it has a pid file) that exits meanwhile, it
// fails at once with the tail of its log (and forgets its pid).
//
// "Exits" means its process is gone or a zombie, not that Alive says no:
// right after Spawn the process may still be inside execve, where the kernel
// has closed the descriptor Start waits on but not yet set up the new command
// line, and /proc/PID/cmdline reads empty for a moment.
func (s *Supervisor) WaitFor(what string, limit time.Duration, check func() bool) error {
	poll := s.Poll
	if poll <= 0 {
		poll = 500 * time.Millisecond
	}
	for i := 0; i < int(limit/poll); i++ {
		// The process first: what it served can look ready after it exited (a Node object stays
		// Ready until the controller misses its heartbeats; kwok without stages exits at once).
		if p, ok := s.PidOf(what); ok && !Running(p) {
			if b, err := os.ReadFile(s.LogFile(what)); err == nil {
				s.Stderr.Write(logtail.Tail(b, 15))
			}
			os.Remove(s.pidFile(what))
			return fmt.Errorf("%s exited (log: %s); run start again", what, s.LogFile(what))
		}
		if check() {
			return nil
		}
		time.Sleep(poll)
	}
	return fmt.Errorf("%s not ready after %ds (logs: %s)", what, int(limit.Seconds()), s.Logs)
}

// Stop sends SIGTERM to NAME's process group, waits up to limit for the
// process to end and then sends SIGKILL to the group; it forgets the pid.
func (s *Supervisor) Stop(name string, limit time.Duration) {
	p, ok := s.PidOf(name)
	if ok && s.Alive(name) {
		signal(p, syscall.SIGTERM)
		const step = 250 * time.Millisecond
		for i := 0; i < int(limit/step) && Running(p); i++ {
			time.Sleep(step)
		}
		if Running(p) {
			signal(p, syscall.SIGKILL)
		}
	}
	os.Remove(s.pidFile(name))
}

// signal signals pid's process group, or pid alone when it leads none.
func signal(pid int, sig syscall.Signal) {
	if syscall.Kill(-pid, sig) != nil {
		syscall.Kill(pid, sig)
	}
}

// Strays are the processes started for this state folder that no pid file
// names any more (after two runs raced, say): those whose executable is in the
// bin cache or one of exes, and whose command line names "$STATE/".
func (s *Supervisor) Strays(binCache string, exes []string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var out []int
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil || p == self {
			continue
		}
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", p))
		if err != nil {
			continue
		}
		ours := strings.HasPrefix(exe, binCache+"/")
		for _, x := range exes {
			ours = ours || exe == x
		}
		if !ours {
			continue
		}
		if c, ok := Cmdline(p); ok && strings.Contains(c, s.State+"/") {
			out = append(out, p)
		}
	}
	return out
}

// StopStrays sends SIGTERM to every stray, waits up to 10 s for them to end,
// then sends SIGKILL to those left.
func (s *Supervisor) StopStrays(binCache string, exes []string, log func(string, ...any)) {
	for _, p := range s.Strays(binCache, exes) {
		c, _ := Cmdline(p)
		if len(c) > 100 {
			c = c[:100]
		}
		log("stopping stray process %d: %s", p, c)
		syscall.Kill(p, syscall.SIGTERM)
	}
	for i := 0; i < 40 && len(s.Strays(binCache, exes)) > 0; i++ {
		time.Sleep(250 * time.Millisecond)
	}
	for _, p := range s.Strays(binCache, exes) {
		syscall.Kill(p, syscall.SIGKILL)
	}
}

// Exe is the executable a running process was started from ("" when it is
// gone or not readable).
func Exe(pid int) string {
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(exe, " (deleted)")
}

// OtherBuilds names, of the running components given with their executables,
// those started from the bin cache but from none of the current builds'
// folders: an environment still running the binaries of another version (the
// pins moved since it started). Executables outside the bin cache (Debian's)
// are never another build.
func OtherBuilds(exes map[string]string, binCache string, current []string) []string {
	var out []string
	for name, exe := range exes {
		if exe == "" || !strings.HasPrefix(exe, binCache+"/") {
			continue
		}
		ok := false
		for _, dir := range current {
			ok = ok || (dir != "" && strings.HasPrefix(exe, dir+"/"))
		}
		if !ok {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
