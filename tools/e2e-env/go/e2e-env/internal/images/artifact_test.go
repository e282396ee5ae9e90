package images

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fakeRegistry keeps what is pushed: blobs by digest (each upload's bytes
// checked against the digest it claims) and manifests by repo:tag.
type fakeRegistry struct {
	mu        sync.Mutex
	blobs     map[string][]byte
	manifests map[string][]byte
	types     map[string]string
}

func (f *fakeRegistry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := strings.TrimPrefix(r.URL.Path, "/v2/")
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/blobs/uploads/"):
		w.Header().Set("Location", "/upload/"+strings.TrimSuffix(p, "/blobs/uploads/")+"/u1?state=x")
		w.WriteHeader(http.StatusAccepted)
	case r.Method == http.MethodPut && strings.HasPrefix(r.URL.Path, "/upload/"):
		body, _ := io.ReadAll(r.Body)
		sum := sha256.Sum256(body)
		d := r.URL.Query().Get("digest")
		if d != "sha256:"+hex.EncodeToString(sum[:]) || r.URL.Query().Get("state") != "x" {
			http.Error(w, "digest mismatch", http.StatusBadRequest)
			return
		}
		f.blobs[d] = body
		w.WriteHeader(http.StatusCreated)
	case r.Method == http.MethodPut && strings.Contains(p, "/manifests/"):
		body, _ := io.ReadAll(r.Body)
		f.manifests[p] = body
		f.types[p] = r.Header.Get("Content-Type")
		w.WriteHeader(http.StatusCreated)
	default:
		http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
	}
}

func TestDataImageIsPushedWithItsBlobsAndReadsBack(t *testing.T) {
	reg := &fakeRegistry{blobs: map[string][]byte{}, manifests: map[string][]byte{}, types: map[string]string{}}
	srv := httptest.NewServer(reg)
	defer srv.Close()
	files := map[string]string{"greeting.txt": "hello 42\n", "dir/inner.txt": "inner 42\n"}
	a, err := DataImage(files)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Push(strings.TrimPrefix(srv.URL, "http://"), "tfs-e2e/data", "t1"); err != nil {
		t.Fatal(err)
	}
	raw := reg.manifests["tfs-e2e/data/manifests/t1"]
	if reg.types["tfs-e2e/data/manifests/t1"] != ManifestType || digestOf(raw) != a.Digest {
		t.Fatalf("manifest %s (%s), want the artifact's %s", digestOf(raw), reg.types["tfs-e2e/data/manifests/t1"], a.Digest)
	}
	var m Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Layers) != 1 || m.Layers[0].MediaType != LayerType || m.Config.MediaType != ConfigType {
		t.Fatalf("manifest %+v", m)
	}
	layer, config := reg.blobs[m.Layers[0].Digest], reg.blobs[m.Config.Digest]
	if int64(len(layer)) != m.Layers[0].Size || int64(len(config)) != m.Config.Size {
		t.Fatalf("pushed blobs of %d and %d bytes, manifest says %d and %d", len(layer), len(config), m.Layers[0].Size, m.Config.Size)
	}
	zr, err := gzip.NewReader(bytes.NewReader(layer))
	if err != nil {
		t.Fatal(err)
	}
	diff, _ := io.ReadAll(zr)
	var c struct {
		OS     string `json:"os"`
		RootFS struct {
			DiffIDs []string `json:"diff_ids"`
		} `json:"rootfs"`
	}
	if err := json.Unmarshal(config, &c); err != nil {
		t.Fatal(err)
	}
	if c.OS != "linux" || len(c.RootFS.DiffIDs) != 1 || c.RootFS.DiffIDs[0] != digestOf(diff) {
		t.Fatalf("config %s: diff_ids must be the uncompressed layer's digest %s", config, digestOf(diff))
	}
	got := map[string]string{}
	var order []string
	tr := tar.NewReader(bytes.NewReader(diff))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		order = append(order, h.Name)
		if h.Typeflag == tar.TypeReg {
			b, _ := io.ReadAll(tr)
			got[h.Name] = string(b)
		}
	}
	if strings.Join(order, " ") != "dir/ dir/inner.txt greeting.txt" {
		t.Errorf("entries %v: a folder comes before its files", order)
	}
	for n, want := range files {
		if got[n] != want {
			t.Errorf("%s = %q, want %q", n, got[n], want)
		}
	}
}

func TestDataImageRefusesPathsOutsideTheImage(t *testing.T) {
	for _, n := range []string{"/etc/passwd", "../x", "a/../../x", ""} {
		if _, err := DataImage(map[string]string{n: "x"}); err == nil {
			t.Errorf("%q accepted", n)
		}
	}
}
