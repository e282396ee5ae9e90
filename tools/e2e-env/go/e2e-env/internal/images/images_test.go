package images

import (
	"archive/tar"
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBaseRootfs(t *testing.T) {
	d := t.TempDir()
	os.WriteFile(filepath.Join(d, "server"), []byte("SERVER"), 0o755)
	os.WriteFile(filepath.Join(d, "busybox"), []byte("BUSYBOX"), 0o755)
	var buf bytes.Buffer
	if err := BaseRootfs(&buf, filepath.Join(d, "server"), filepath.Join(d, "busybox")); err != nil {
		t.Fatal(err)
	}
	got := map[string]*tar.Header{}
	content := map[string]string{}
	r := tar.NewReader(&buf)
	for {
		h, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r)
		got[h.Name], content[h.Name] = h, string(b)
	}
	if content["./usr/bin/tensorflow_model_server"] != "SERVER" || got["./usr/bin/tensorflow_model_server"].Mode != 0o755 {
		t.Error("the stand-in server is not /usr/bin/tensorflow_model_server, executable")
	}
	if content["./bin/busybox"] != "BUSYBOX" || got["./bin/sh"].Linkname != "busybox" || got["./bin/sh"].Typeflag != tar.TypeSymlink {
		t.Error("/bin/sh is no link to busybox")
	}
	if got["./tmp/"].Mode != 0o1777 || got["./models/"] == nil {
		t.Error("/tmp or /models wrong")
	}
	if e := content["./usr/bin/tf_serving_entrypoint.sh"]; !strings.Contains(e, "--model_base_path=${MODEL_BASE_PATH}/${MODEL_NAME} \"$@\"") || got["./usr/bin/tf_serving_entrypoint.sh"].Mode != 0o755 {
		t.Errorf("entrypoint %q", e)
	}
	if !strings.Contains(content["./etc/passwd"], "nobody:x:65534:65534:") {
		t.Error("no nobody in /etc/passwd")
	}
	for _, h := range got {
		if h.Uid != 0 || h.Gid != 0 {
			t.Errorf("%s owned by %d:%d", h.Name, h.Uid, h.Gid)
		}
	}
}

func TestRegistryHas(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead && r.URL.Path == "/v2/tensorflow/serving/manifests/stand-in" &&
			strings.Contains(r.Header.Get("Accept"), "application/vnd.oci.image.manifest.v1+json") {
			return
		}
		http.NotFound(w, r)
	}))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener = l
	srv.Start()
	defer srv.Close()
	addr := l.Addr().String()
	if !RegistryHas(addr, "tensorflow/serving", "stand-in") {
		t.Fatal("has the manifest")
	}
	if RegistryHas(addr, "tfs-e2e/pause", "abc") {
		t.Fatal("has no such manifest")
	}
	srv.Close()
	if RegistryHas(addr, "tensorflow/serving", "stand-in") {
		t.Fatal("no registry answers")
	}
}

func TestTFServingVersion(t *testing.T) {
	v, err := TFServingVersion([]byte("// x\nexport const TF_SERVING_VERSION = \"2.20.0\";\nexport const Y = 1;\n"))
	if err != nil || v != "2.20.0" {
		t.Fatalf("%q %v", v, err)
	}
	if _, err := TFServingVersion([]byte("const TF_SERVING_VERSION = 1")); err == nil {
		t.Fatal("want an error")
	}
	if PauseImage("127.0.0.1:5001", "ac10f895f4c8") != "127.0.0.1:5001/tfs-e2e/pause:ac10f895f4c8" {
		t.Fatal(PauseImage("127.0.0.1:5001", "ac10f895f4c8"))
	}
}
