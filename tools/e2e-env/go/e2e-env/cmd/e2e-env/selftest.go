package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"tfs-e2e/e2e-env/internal/bundles"
	"tfs-e2e/e2e-env/internal/configs"
	"tfs-e2e/e2e-env/internal/supervisor"
)

// selftestEnv is the environment of the selftest's real-node check
// (realnode_test.go): ports of its own below the ephemeral range, its own pod
// subnet, bridge, cgroup and loopback ranges, so that it runs beside the
// default environment (1xxxx defaults), the e2e suite's (tfse2e1) and
// nodeLifecycle's second one (tfse2e9, 2xxxx).
var selftestEnv = [][2]string{
	{"TFS_E2E_API_PORT", "24443"}, {"TFS_E2E_ETCD_PORT", "24379"}, {"TFS_E2E_REGISTRY_PORT", "24501"},
	{"TFS_E2E_KCM_PORT", "24257"}, {"TFS_E2E_SCHEDULER_PORT", "24259"}, {"TFS_E2E_KWOK_PORT", "24247"},
	{"TFS_E2E_KUBELET_PORT", "24350"}, {"TFS_E2E_PROMETHEUS_PORT", "24090"}, {"TFS_E2E_GATEWAY_ADMIN_PORT", "24092"},
	{"TFS_E2E_METRICS_PORT", "24093"}, {"TFS_E2E_GATEWAY_ADDRESS", "127.0.118.1"}, {"TFS_E2E_LB_IP_RANGE", "127.0.108.0/24"},
	{"TFS_E2E_POD_SUBNET", "10.213.8.0/24"}, {"TFS_E2E_NODE_BRIDGE", "tfse2e8"}, {"TFS_E2E_NODE_CGROUP", "/tfs-e2e-selftest"},
}

// selftestSettings are that environment's settings: the user's cache (its
// builds), the state folder $CACHE/selftest-state, the rest from selftestEnv.
func selftestSettings(getenv func(string) string, home, root string) (configs.Settings, error) {
	user, err := configs.FromEnv(getenv, home, root)
	if err != nil {
		return user, err
	}
	over := map[string]string{"TFS_E2E_STATE": filepath.Join(user.Cache, "selftest-state"), "TFS_E2E_LB_MODE": "ip"}
	for _, kv := range selftestEnv {
		over[kv[0]] = kv[1]
	}
	return configs.FromEnv(func(k string) string {
		if v, ok := over[k]; ok {
			return v
		}
		return getenv(k)
	}, home, root)
}

// selftest runs the Go tests of the stand-ins, the node's configuration, the
// load balancer's forwarding and this program (no cluster needed), then, with
// the environment built (prepare), the real-node check: a real node in an
// environment of its own mounts an image volume (realnode_test.go). Whatever
// that check leaves running is stopped here and its state folder removed.
func (e *env) selftest() error {
	if _, err := exec.LookPath("go"); err != nil {
		return errors.New("go is not on PATH")
	}
	goEnv := bundles.GoEnv(e.s.Cache)
	run := func(mod string, env []string, args ...string) error {
		cmd := exec.Command("go", args...)
		cmd.Dir = filepath.Join(e.s.Tools(), mod)
		cmd.Env, cmd.Stdout, cmd.Stderr = env, os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go %s in %s: %w", strings.Join(args, " "), mod, err)
		}
		return nil
	}
	for _, t := range [][]string{
		{"tfserving-standin", "test", "./..."},
		{"pulumi", "test", "./cmd/..."},
		{"pulumi-yaml", "test", "./cmd/..."},
		{"kube", "test", "./internal/..."},
		{"pause", "vet", "."},
		{"e2e-env", "vet", "./..."},
		{"e2e-env", "vet", "-tags", "realnode", "./cmd/e2e-env"},
		{"e2e-env", "test", "./..."},
	} {
		if err := run(t[0], goEnv, t[1:]...); err != nil {
			return err
		}
	}
	if os.Geteuid() != 0 {
		return errors.New("the real-node check (an image volume mounted on the real node) needs root, as the node does")
	}
	if err := e.prepare(); err != nil {
		return err
	}
	home, _ := os.UserHomeDir()
	ss, err := selftestSettings(os.Getenv, home, e.s.Root)
	if err != nil {
		return err
	}
	st := &env{s: ss, sup: supervisor.New(ss.State, ss.Run(), ss.Logs(), os.Stderr)}
	defer func() {
		if err := st.stop(); err != nil {
			logf("stopping the selftest's environment: %v", err)
		}
		if err := os.RemoveAll(ss.State); err != nil {
			logf("removing %s: %v", ss.State, err)
		}
	}()
	if err := st.stop(); err != nil { // what a killed selftest left
		return err
	}
	os.RemoveAll(ss.State)
	t0 := time.Now()
	err = run("e2e-env", append(goEnv, "TFS_E2E_CACHE="+e.s.Cache), "test", "-tags", "realnode", "-run", "^TestRealNode", "-count=1", "-timeout", "15m", "-v", "./cmd/e2e-env")
	logf("real-node check: %s s", elapsed(t0))
	return err
}
