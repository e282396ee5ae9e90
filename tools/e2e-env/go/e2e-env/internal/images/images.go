// Package images makes the environment's two images and pushes them to the
// loopback registry with podman: the stand-in tensorflow/serving base image
// (the tensorflow_model_server stand-in, busybox so RUN steps have a shell,
// the usual /models layout and an entrypoint like the stock one) and the pod
// sandbox's pause image.
package images

import (
	"archive/tar"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Entrypoint is the base image's entrypoint, like the stock image's (without
// exec, as the real one).
const Entrypoint = `#!/bin/sh
# Like the stock image's entrypoint (without exec, as the real one).
/usr/bin/tensorflow_model_server --port=8500 --rest_api_port=8501 --model_name=${MODEL_NAME} --model_base_path=${MODEL_BASE_PATH}/${MODEL_NAME} "$@"
`

// BusyboxApplets get a symlink in /bin.
var BusyboxApplets = []string{"sh", "ls", "cat", "mkdir", "cp", "mv", "rm", "chmod", "chown", "ln", "echo", "env", "sleep", "wget"}

// RegistryHas tells whether the registry at addr (host:port, plain HTTP) has
// a manifest for repo:tag.
func RegistryHas(addr, repo, tag string) bool {
	req, err := http.NewRequest(http.MethodHead, "http://"+addr+"/v2/"+repo+"/manifests/"+tag, nil)
	if err != nil {
		return false
	}
	req.Header.Set("Accept", "application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json")
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode >= 200 && resp.StatusCode < 300
}

type tarball struct {
	w   *tar.Writer
	now time.Time
}

func (t tarball) dir(name string, mode int64) error {
	return t.w.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: "./" + name, Mode: mode, ModTime: t.now})
}

func (t tarball) file(name string, mode int64, data []byte) error {
	if err := t.w.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "./" + name, Mode: mode, Size: int64(len(data)), ModTime: t.now}); err != nil {
		return err
	}
	_, err := t.w.Write(data)
	return err
}

func (t tarball) link(name, target string) error {
	return t.w.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: "./" + name, Linkname: target, Mode: 0o777, ModTime: t.now})
}

// BaseRootfs writes the base image's file system as a tar archive.
func BaseRootfs(w io.Writer, standin, busybox string) error {
	server, err := os.ReadFile(standin)
	if err != nil {
		return err
	}
	bb, err := os.ReadFile(busybox)
	if err != nil {
		return err
	}
	t := tarball{tar.NewWriter(w), time.Now()}
	steps := []func() error{
		func() error { return t.dir("", 0o755) },
		func() error { return t.dir("usr/", 0o755) },
		func() error { return t.dir("usr/bin/", 0o755) },
		func() error { return t.file("usr/bin/tensorflow_model_server", 0o755, server) },
		func() error { return t.file("usr/bin/tf_serving_entrypoint.sh", 0o755, []byte(Entrypoint)) },
		func() error { return t.dir("bin/", 0o755) },
		func() error { return t.file("bin/busybox", 0o755, bb) },
		func() error { return t.dir("etc/", 0o755) },
		func() error {
			return t.file("etc/passwd", 0o644, []byte("root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n"))
		},
		func() error { return t.file("etc/group", 0o644, []byte("root:x:0:\nnogroup:x:65534:\n")) },
		func() error { return t.dir("tmp/", 0o1777) },
		func() error { return t.dir("models/", 0o755) },
	}
	for _, a := range BusyboxApplets {
		steps = append(steps, func() error { return t.link("bin/"+a, "busybox") })
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	return t.w.Close()
}

// PauseRootfs writes the pause image's file system: the program alone.
func PauseRootfs(w io.Writer, pause string) error {
	b, err := os.ReadFile(pause)
	if err != nil {
		return err
	}
	t := tarball{tar.NewWriter(w), time.Now()}
	if err := t.dir("", 0o755); err != nil {
		return err
	}
	if err := t.file("pause", 0o755, b); err != nil {
		return err
	}
	return t.w.Close()
}

func writeTar(path string, fill func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fill(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// podman runs podman with args (environment: this process's, which points it
// at the state folder's store), its output appended to log.
func podman(log string, args ...string) error {
	f, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.Command("podman", args...)
	cmd.Stdout, cmd.Stderr = f, f
	return cmd.Run()
}

// Maker builds and pushes the images.
type Maker struct {
	Registry  string // host:port
	BaseImage string // REGISTRY/tensorflow/serving:stand-in
	Podman    string // $STATE/podman (scratch files, the base image's stamp)
	Logs      string
	Stderr    io.Writer
}

func (m Maker) fail(log, msg string) error {
	if b, err := os.ReadFile(log); err == nil {
		m.Stderr.Write(b)
	}
	return fmt.Errorf("%s", msg)
}

// EnsureBase builds and pushes the base image unless the registry has it and
// it was made from this stand-in bundle (standinDir).
func (m Maker) EnsureBase(standinDir string) error {
	stamp := filepath.Join(m.Podman, "base-image.built-from")
	if b, err := os.ReadFile(stamp); err == nil && strings.TrimSpace(string(b)) == filepath.Base(standinDir) && RegistryHas(m.Registry, "tensorflow/serving", "stand-in") {
		return nil
	}
	archive := filepath.Join(m.Podman, "base-rootfs.tar")
	if err := writeTar(archive, func(w io.Writer) error {
		return BaseRootfs(w, filepath.Join(standinDir, "tensorflow_model_server"), "/bin/busybox")
	}); err != nil {
		return err
	}
	defer os.Remove(archive)
	log := filepath.Join(m.Logs, "base-image.log")
	os.Remove(log)
	if podman(log, "import",
		"--change", "ENV MODEL_BASE_PATH=/models", "--change", "ENV MODEL_NAME=model",
		"--change", "EXPOSE 8500", "--change", "EXPOSE 8501",
		"--change", `ENTRYPOINT ["/usr/bin/tf_serving_entrypoint.sh"]`,
		archive, m.BaseImage) != nil {
		return m.fail(log, "podman import of the stand-in base image failed")
	}
	if podman(log, "push", m.BaseImage) != nil {
		return m.fail(log, "pushing "+m.BaseImage+" failed")
	}
	return os.WriteFile(stamp, []byte(filepath.Base(standinDir)+"\n"), 0o644)
}

// PauseImage is the pod sandbox image's name: tagged with the pause bundle's key.
func PauseImage(registry, key string) string { return registry + "/tfs-e2e/pause:" + key }

// EnsurePause builds and pushes the pause image unless the registry has it.
func (m Maker) EnsurePause(pauseDir, key string) error {
	if RegistryHas(m.Registry, "tfs-e2e/pause", key) {
		return nil
	}
	image := PauseImage(m.Registry, key)
	archive := filepath.Join(m.Podman, "pause-rootfs.tar")
	if err := writeTar(archive, func(w io.Writer) error { return PauseRootfs(w, filepath.Join(pauseDir, "pause")) }); err != nil {
		return err
	}
	defer os.Remove(archive)
	log := filepath.Join(m.Logs, "pause-image.log")
	os.Remove(log)
	if podman(log, "import", "--change", `ENTRYPOINT ["/pause"]`, "--change", "USER 65535:65535", archive, image) != nil ||
		podman(log, "push", image) != nil {
		return m.fail(log, "building or pushing "+image+" failed")
	}
	return nil
}

var tfServingVersion = regexp.MustCompile(`(?m)^export const TF_SERVING_VERSION = "(.*)";$`)

// TFServingVersion reads the project's pinned base version from serving/images.ts.
func TFServingVersion(imagesTS []byte) (string, error) {
	m := tfServingVersion.FindSubmatch(imagesTS)
	if m == nil || len(m[1]) == 0 {
		return "", fmt.Errorf("no TF_SERVING_VERSION in serving/images.ts")
	}
	return string(m[1]), nil
}

// TagPinnedBase gives the stand-in the name of the project's pinned base (CPU
// and -gpu) in this environment's own image store, so the dev stack, whose
// config names no base image, builds unchanged.
func (m Maker) TagPinnedBase(root string) error {
	ts, err := os.ReadFile(filepath.Join(root, "serving", "images.ts"))
	if err != nil {
		return err
	}
	version, err := TFServingVersion(ts)
	if err != nil {
		return fmt.Errorf("cannot read TF_SERVING_VERSION from %s/serving/images.ts", root)
	}
	for _, tag := range []string{version, version + "-gpu"} {
		cmd := exec.Command("podman", "tag", m.BaseImage, "docker.io/tensorflow/serving:"+tag)
		cmd.Stderr = m.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("podman tag %s docker.io/tensorflow/serving:%s: %w", m.BaseImage, tag, err)
		}
	}
	return nil
}
