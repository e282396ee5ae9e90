package images

// A data-only OCI image (FROM scratch: files, no program), assembled here and
// pushed with the registry's HTTP API, as the model artifact an image volume
// mounts is.

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"runtime"
	"sort"
	"strings"
	"time"
)

// OCI media types of a single-platform image.
const (
	ManifestType = "application/vnd.oci.image.manifest.v1+json"
	ConfigType   = "application/vnd.oci.image.config.v1+json"
	LayerType    = "application/vnd.oci.image.layer.v1.tar+gzip"
)

// Descriptor points at a blob.
type Descriptor struct {
	MediaType string `json:"mediaType"`
	Digest    string `json:"digest"`
	Size      int64  `json:"size"`
}

// Manifest is an OCI image manifest.
type Manifest struct {
	SchemaVersion int          `json:"schemaVersion"`
	MediaType     string       `json:"mediaType"`
	Config        Descriptor   `json:"config"`
	Layers        []Descriptor `json:"layers"`
}

// Artifact is an assembled image: its blobs by digest and its manifest.
type Artifact struct {
	Manifest []byte
	Digest   string // the manifest's
	Blobs    map[string][]byte
	Config   []byte
	Layer    []byte // gzip of DiffTar
	DiffTar  []byte // the uncompressed layer (its sha256 is the config's diff_id)
}

func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// LayerTar writes files (slash-separated paths relative to the root, no
// leading slash) as a tar archive with their parent folders, in path order,
// owned by root, files 0644 and folders 0755.
func LayerTar(files map[string]string) ([]byte, error) {
	names := make([]string, 0, len(files))
	dirs := map[string]bool{}
	for n := range files {
		if n == "" || strings.HasPrefix(n, "/") || strings.Contains("/"+n+"/", "/../") {
			return nil, fmt.Errorf("file name %q must be a relative path inside the image", n)
		}
		names = append(names, n)
		for d := path.Dir(n); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	for d := range dirs {
		names = append(names, d+"/")
	}
	sort.Strings(names)
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	epoch := time.Unix(0, 0)
	for _, n := range names {
		if strings.HasSuffix(n, "/") {
			if err := w.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: n, Mode: 0o755, ModTime: epoch}); err != nil {
				return nil, err
			}
			continue
		}
		data := files[n]
		if err := w.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: n, Mode: 0o644, Size: int64(len(data)), ModTime: epoch}); err != nil {
			return nil, err
		}
		if _, err := io.WriteString(w, data); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// DataImage assembles a FROM scratch image holding files in one layer.
func DataImage(files map[string]string) (Artifact, error) {
	diff, err := LayerTar(files)
	if err != nil {
		return Artifact{}, err
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write(diff); err != nil {
		return Artifact{}, err
	}
	if err := zw.Close(); err != nil {
		return Artifact{}, err
	}
	config, err := json.Marshal(map[string]any{
		"architecture": runtime.GOARCH,
		"os":           "linux",
		"config":       map[string]any{},
		"rootfs":       map[string]any{"type": "layers", "diff_ids": []string{digestOf(diff)}},
	})
	if err != nil {
		return Artifact{}, err
	}
	layer := gz.Bytes()
	m, err := json.Marshal(Manifest{
		SchemaVersion: 2,
		MediaType:     ManifestType,
		Config:        Descriptor{ConfigType, digestOf(config), int64(len(config))},
		Layers:        []Descriptor{{LayerType, digestOf(layer), int64(len(layer))}},
	})
	if err != nil {
		return Artifact{}, err
	}
	return Artifact{
		Manifest: m, Digest: digestOf(m),
		Blobs:  map[string][]byte{digestOf(config): config, digestOf(layer): layer},
		Config: config, Layer: layer, DiffTar: diff,
	}, nil
}

// Push uploads the artifact's blobs (one monolithic upload each) and its
// manifest as repo:tag to the registry at addr (host:port, plain HTTP).
func (a Artifact) Push(addr, repo, tag string) error {
	c := &http.Client{Timeout: 30 * time.Second}
	base := "http://" + addr + "/v2/" + repo
	digests := make([]string, 0, len(a.Blobs))
	for d := range a.Blobs {
		digests = append(digests, d)
	}
	sort.Strings(digests)
	for _, d := range digests {
		resp, err := c.Post(base+"/blobs/uploads/", "", nil)
		if err != nil {
			return fmt.Errorf("starting the upload of %s: %w", d, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			return fmt.Errorf("starting the upload of %s: %s", d, resp.Status)
		}
		loc, err := resp.Location()
		if err != nil {
			return fmt.Errorf("the registry gave no upload location for %s: %w", d, err)
		}
		q := loc.Query()
		q.Set("digest", d)
		loc.RawQuery = q.Encode()
		if err := put(c, loc, "application/octet-stream", a.Blobs[d], http.StatusCreated); err != nil {
			return fmt.Errorf("uploading %s: %w", d, err)
		}
	}
	u, err := url.Parse(base + "/manifests/" + tag)
	if err != nil {
		return err
	}
	if err := put(c, u, ManifestType, a.Manifest, http.StatusCreated); err != nil {
		return fmt.Errorf("pushing the manifest of %s:%s: %w", repo, tag, err)
	}
	return nil
}

func put(c *http.Client, u *url.URL, contentType string, body []byte, want int) error {
	req, err := http.NewRequest(http.MethodPut, u.String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("%s: %s", resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}
