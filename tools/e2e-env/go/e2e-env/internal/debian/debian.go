// Package debian installs the Debian packages the environment and the tests
// use. This list is the only one: .ci/run calls `scripts/e2e-env packages`.
package debian

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"tfs-e2e/e2e-env/internal/logtail"
)

// Packages are the Debian packages needed, each with what it is for.
var Packages = [][2]string{
	{"podman", "serves the Docker API to Pulumi and builds, imports and pushes images"},
	{"buildah", "builds the model image daemonless (the product's tests)"},
	{"docker-registry", "the loopback image registry"},
	{"busybox-static", "the shell and tools of the stand-in base image"},
	{"runc", "podman's OCI runtime (the real node runs containerd and runc built from their Go modules)"},
	{"libseccomp-dev", "builds runc (the real node's OCI runtime) with seccomp; runc then links libseccomp2"},
	{"containernetworking-plugins", "the real node's pod network (bridge, host-local)"},
	{"iproute2", "the real node's bridge"},
	// Its install starts no service here (no systemd; policy-rc.d refuses): only the binaries are used.
	{"prometheus", "promtool for the alert rule tests (npm test); the loopback Prometheus"},
}

// Names are the packages' names.
func Names() []string {
	var n []string
	for _, p := range Packages {
		n = append(n, p[0])
	}
	return n
}

// Installed asks dpkg whether a package is installed.
func Installed(name string) bool {
	out, err := exec.Command("dpkg-query", "-W", "-f=${Status}", name).Output()
	return err == nil && string(out) == "install ok installed"
}

// Missing are the names that installed says are not installed.
func Missing(names []string, installed func(string) bool) []string {
	var m []string
	for _, n := range names {
		if !installed(n) {
			m = append(m, n)
		}
	}
	return m
}

// Installer runs apt-get.
type Installer struct {
	NoApt  bool   // TFS_E2E_NO_APT=1
	Root   bool   // running as root
	Log    string // apt-get's output
	Stderr io.Writer
	AptGet string // default "apt-get"
}

// Install installs missing (none: nothing to do). apt-get install is tried
// first; when it fails, apt-get update runs once and install again. Without
// root, or with NoApt, it fails with the command to run instead.
func (i Installer) Install(missing []string) error {
	if len(missing) == 0 {
		return nil
	}
	if i.NoApt || !i.Root {
		return fmt.Errorf("missing Debian packages: %s (install them: apt-get install -y %[1]s)", strings.Join(missing, " "))
	}
	apt := i.AptGet
	if apt == "" {
		apt = "apt-get"
	}
	f, err := os.Create(i.Log)
	if err != nil {
		return err
	}
	defer f.Close()
	run := func(args ...string) error {
		cmd := exec.Command(apt, args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		cmd.Stdout, cmd.Stderr = f, f
		return cmd.Run()
	}
	install := append([]string{"install", "-y", "--no-install-recommends"}, missing...)
	if run(install...) == nil {
		return nil
	}
	fmt.Fprintln(i.Stderr, "[e2e-env] apt-get install failed; running apt-get update once and trying again")
	if run("update") != nil || run(install...) != nil {
		if b, err := os.ReadFile(i.Log); err == nil {
			i.Stderr.Write(logtail.Tail(b, 20))
		}
		return fmt.Errorf("apt-get install %s failed", strings.Join(missing, " "))
	}
	return nil
}
