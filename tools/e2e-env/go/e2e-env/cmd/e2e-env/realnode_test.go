//go:build realnode

// The selftest's real-node check (`scripts/e2e-env selftest` runs it after
// prepare, as root): the control plane and the real node start in an
// environment of their own (selftestEnv), a pod mounts a data-only image
// pushed to its registry as an `image` volume (KEP-4639), and reads it back.
// It proves the runtime built here (containerd 2.x, runc) with the kubelet and
// API server of the pinned Kubernetes mount image volumes, with their subPath,
// read-only; then the environment stops and leaves nothing behind.
package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tfs-e2e/e2e-env/internal/configs"
	"tfs-e2e/e2e-env/internal/images"
	"tfs-e2e/e2e-env/internal/supervisor"
)

func TestRealNodeMountsAnImageVolume(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("the real node needs root (mounts, cgroups, a bridge)")
	}
	root, err := filepath.Abs("../../../../../..")
	if err != nil {
		t.Fatal(err)
	}
	home, _ := os.UserHomeDir()
	s, err := selftestSettings(os.Getenv, home, root)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{s: s, sup: supervisor.New(s.State, s.Run(), s.Logs(), os.Stderr)}
	if err := e.locate(); err != nil {
		t.Fatal(err)
	}
	for _, exe := range []string{e.dirs.Kube + "/kube", e.dirs.Kwok + "/kwok", e.dirs.Pause + "/pause",
		e.dirs.Standin + "/tensorflow_model_server", e.dirs.Containerd + "/containerd", e.dirs.Containerd + "/runc"} {
		if !isExecutable(exe) {
			t.Fatalf("%s is not built: run scripts/e2e-env prepare (selftest does) with TFS_E2E_CACHE=%s", exe, s.Cache)
		}
	}
	lock, err := e.lockState()
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			e.stopAll()
		}
	}
	defer stop() // also after a failure: every process of the environment ends

	t0 := time.Now()
	if err := e.startCluster(); err != nil {
		t.Fatal(err)
	}
	t.Logf("control plane and node up in %.1f s", time.Since(t0).Seconds())
	t1 := time.Now()

	// The node runs the runtime built here, at the pinned version (the kubelet
	// reports containerd's "v2.2.10" as a parsed version, without its "v").
	rt, err := e.kubectl("", "get", "node", configs.CPUNode, "-o", "jsonpath={.status.nodeInfo.containerRuntimeVersion}")
	if err != nil {
		t.Fatal(err)
	}
	if want := "containerd://" + strings.TrimPrefix(e.v.Containerd, "v"); rt != want {
		t.Errorf("node runtime %q, want %s", rt, want)
	}

	// A data-only image: random content, so only this push can make the pod print it.
	b := make([]byte, 8)
	rand.Read(b)
	token := hex.EncodeToString(b)
	files := map[string]string{"greeting.txt": "image volume " + token + "\n", "dir/inner.txt": "subPath " + token + "\n"}
	art, err := images.DataImage(files)
	if err != nil {
		t.Fatal(err)
	}
	if err := art.Push(s.Registry(), "tfs-e2e/selftest-data", token); err != nil {
		t.Fatal(err)
	}
	ref := s.Registry() + "/tfs-e2e/selftest-data@" + art.Digest
	name := "image-volume-" + token[:8]
	pod := map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": name, "namespace": "default"},
		"spec": map[string]any{
			"restartPolicy":                 "Never",
			"nodeSelector":                  map[string]string{"kubernetes.io/hostname": configs.CPUNode},
			"terminationGracePeriodSeconds": 0,
			"containers": []any{map[string]any{
				"name": "read", "image": s.BaseImage(),
				"command": []string{"/bin/sh", "-c", `cat /model/greeting.txt /sub/inner.txt; ls /sub; if (echo x > /model/written) 2>/dev/null; then echo writable; else echo read-only; fi`},
				"volumeMounts": []any{
					map[string]any{"name": "model", "mountPath": "/model"},
					map[string]any{"name": "model", "mountPath": "/sub", "subPath": "dir"},
				},
			}},
			"volumes": []any{map[string]any{"name": "model", "image": map[string]any{"reference": ref, "pullPolicy": "IfNotPresent"}}},
		},
	}
	manifest, _ := json.Marshal(pod)
	if _, err := e.kubectl(string(manifest), "create", "-f", "-"); err != nil {
		t.Fatal(err)
	}
	// The API server keeps the image volume only with the ImageVolume gate on.
	kept, err := e.kubectl("", "get", "pod", name, "-o", "jsonpath={.spec.volumes[0].image.reference}")
	if err != nil || kept != ref {
		t.Fatalf("the API server kept image volume %q (%v), want %q: is the ImageVolume gate on?", kept, err, ref)
	}
	phase := ""
	done := func() bool {
		phase, _ = e.kubectl("", "get", "pod", name, "-o", "jsonpath={.status.phase}")
		return phase == "Succeeded" || phase == "Failed"
	}
	if err := e.sup.WaitFor("node", 180*time.Second, done); err != nil || phase != "Succeeded" {
		out, _ := e.kubectl("", "describe", "pod", name)
		events, _ := e.kubectl("", "get", "events", "--field-selector", "involvedObject.name="+name, "-o", "custom-columns=REASON:.reason,MESSAGE:.message")
		t.Fatalf("pod %s ended %q (%v):\n%s\n%s", name, phase, err, out, events)
	}
	logs, err := e.kubectl("", "logs", name)
	if err != nil {
		t.Fatal(err)
	}
	if want := files["greeting.txt"] + files["dir/inner.txt"] + "inner.txt\nread-only\n"; logs != want {
		t.Errorf("the pod read:\n%s\nwant (the image's files; the subPath alone at /sub; the volume read-only):\n%s", logs, want)
	}
	t.Logf("pod with an image volume (%s) succeeded %.1f s after the cluster was up", art.Digest[:19], time.Since(t1).Seconds())

	// containerd read every setting of its configuration (a key in a section
	// 2.x does not know is ignored with this warning).
	if log, err := os.ReadFile(filepath.Join(s.Logs(), "containerd.log")); err != nil {
		t.Error(err)
	} else if strings.Contains(string(log), "Ignoring unknown key") {
		t.Errorf("containerd ignored part of its configuration:\n%s", grepLines(string(log), "Ignoring unknown key"))
	}

	stop()
	// Nothing of the environment is left: no process naming its state folder,
	// no bridge, no cgroup.
	if left := e.sup.Strays(s.Bin(), foreignExes); len(left) > 0 {
		t.Errorf("processes left after stop: %v", left)
	}
	if _, err := os.Stat("/sys/class/net/" + s.NodeBridge); err == nil {
		t.Errorf("bridge %s left after stop", s.NodeBridge)
	}
	if m, _ := filepath.Glob("/sys/fs/cgroup/*" + s.NodeCgroup); len(m) > 0 {
		t.Errorf("cgroups left after stop: %v", m)
	}
}

// grepLines are text's lines that contain s.
func grepLines(text, s string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
