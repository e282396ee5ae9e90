package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"
)

// dockerClient speaks the Docker Engine API (as podman's compatible service
// serves it) over a unix socket or tcp.
type dockerClient struct {
	http *http.Client
	base string
}

func newDockerClient(host string) (*dockerClient, error) {
	u, err := url.Parse(host)
	if err != nil {
		return nil, fmt.Errorf("DOCKER_HOST %q is not a URL: %w", host, err)
	}
	switch u.Scheme {
	case "unix":
		sock := u.Path
		tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		}}
		return &dockerClient{http: &http.Client{Transport: tr}, base: "http://docker"}, nil
	case "tcp", "http":
		return &dockerClient{http: &http.Client{}, base: "http://" + u.Host}, nil
	default:
		return nil, fmt.Errorf("DOCKER_HOST %q: only unix:// and tcp:// are supported", host)
	}
}

// jsonMessage is one line of the Engine API's streamed progress.
type jsonMessage struct {
	Stream      string                    `json:"stream"`
	Status      string                    `json:"status"`
	Error       string                    `json:"error"`
	ErrorDetail *struct{ Message string } `json:"errorDetail"`
	Aux         json.RawMessage           `json:"aux"`
}

// readStream reads the progress stream; it returns the text lines, the aux
// payloads and the first error the daemon reported.
func readStream(r io.Reader, echo io.Writer) ([]string, []json.RawMessage, error) {
	dec := json.NewDecoder(r)
	var lines []string
	var aux []json.RawMessage
	for {
		var m jsonMessage
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return lines, aux, nil
			}
			return lines, aux, fmt.Errorf("reading the daemon's progress: %w", err)
		}
		if m.Error != "" || m.ErrorDetail != nil && m.ErrorDetail.Message != "" {
			msg := m.Error
			if msg == "" {
				msg = m.ErrorDetail.Message
			}
			return lines, aux, errors.New(msg)
		}
		text := m.Stream
		if text == "" {
			text = m.Status
		}
		if text != "" {
			lines = append(lines, strings.TrimRight(text, "\n"))
			if echo != nil {
				fmt.Fprint(echo, strings.TrimRight(text, "\n")+"\n")
			}
		}
		if len(m.Aux) > 0 {
			aux = append(aux, m.Aux)
		}
	}
}

func tail(lines []string, n int) string {
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// progress sends a build or push request and reads the daemon's progress
// stream, echoing it to stderr; step ("docker build of IMAGE") starts each
// error it returns.
func (d *dockerClient) progress(req *http.Request, step string) ([]string, []json.RawMessage, error) {
	resp, err := d.http.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: cannot reach the daemon: %w", step, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		return nil, nil, fmt.Errorf("%s: %s: %s", step, resp.Status, strings.TrimSpace(string(body)))
	}
	lines, aux, err := readStream(resp.Body, os.Stderr)
	if err != nil {
		return nil, nil, fmt.Errorf("%s failed: %v\n%s", step, err, tail(lines, 20))
	}
	return lines, aux, nil
}

func (d *dockerClient) build(ctx context.Context, in imageInputs) (string, error) {
	const outsideName = ".pulumi-standin.Dockerfile"
	q := url.Values{}
	q.Set("t", in.imageName)
	q.Set("rm", "1")
	q.Set("forcerm", "1")
	if rel := in.dockerfileInContext(); rel != "" {
		q.Set("dockerfile", rel)
	} else {
		q.Set("dockerfile", outsideName)
	}
	if in.platform != "" {
		q.Set("platform", in.platform)
	}
	if in.target != "" {
		q.Set("target", in.target)
	}
	if in.network != "" {
		q.Set("networkmode", in.network)
	}
	if len(in.args) > 0 {
		b, _ := json.Marshal(in.args)
		q.Set("buildargs", string(b))
	}
	if len(in.cacheFrom) > 0 {
		b, _ := json.Marshal(in.cacheFrom)
		q.Set("cachefrom", string(b))
	}
	if len(in.addHosts) > 0 {
		q.Set("extrahosts", strings.Join(in.addHosts, ","))
	}
	endpoint := "/build"
	// Podman's Docker-compatible /build ignores the isolation setting, and an
	// OCI runtime cannot run RUN steps in every sandbox (this one has no cgroup
	// or rlimit control); its own API takes buildah's isolation, so with
	// BUILDAH_ISOLATION set (chroot, as the e2e environment sets it) builds
	// go through the libpod endpoint, which takes the same parameters.
	if iso := os.Getenv("BUILDAH_ISOLATION"); iso != "" && d.isPodman(ctx) {
		endpoint = "/v4.0.0/libpod/build"
		q.Set("isolation", iso)
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(writeContextTar(pw, in, outsideName)) }()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.base+endpoint+"?"+q.Encode(), pr)
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-tar")
	_, aux, err := d.progress(req, "docker build of "+in.imageName)
	if err != nil {
		return "", err
	}
	for _, a := range aux {
		var id struct{ ID string }
		if json.Unmarshal(a, &id) == nil && id.ID != "" {
			return id.ID, nil
		}
	}
	info, err := d.inspect(ctx, in.imageName)
	if err != nil {
		return "", fmt.Errorf("docker build of %s: built, but the image cannot be inspected: %w", in.imageName, err)
	}
	return info.ID, nil
}

// isPodman tells whether the daemon is podman's API service.
func (d *dockerClient) isPodman(ctx context.Context) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.base+"/version", nil)
	if err != nil {
		return false
	}
	resp, err := d.http.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var v struct {
		Components []struct{ Name string }
	}
	if json.NewDecoder(resp.Body).Decode(&v) != nil {
		return false
	}
	for _, c := range v.Components {
		if strings.Contains(strings.ToLower(c.Name), "podman") {
			return true
		}
	}
	return false
}

type imageInfo struct {
	ID          string   `json:"Id"`
	RepoDigests []string `json:"RepoDigests"`
}

func (d *dockerClient) inspect(ctx context.Context, name string) (*imageInfo, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.base+"/images/"+name+"/json", nil)
	if err != nil {
		return nil, err
	}
	resp, err := d.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("inspect %s: %s", name, resp.Status)
	}
	var info imageInfo
	if err := json.NewDecoder(resp.Body).Decode(&info); err != nil {
		return nil, err
	}
	return &info, nil
}

func (d *dockerClient) localRepoDigest(ctx context.Context, name string) (string, error) {
	info, err := d.inspect(ctx, name)
	if err != nil {
		return "", err
	}
	repo, _ := splitImageName(name)
	for _, rd := range info.RepoDigests {
		if strings.HasPrefix(rd, repo+"@") {
			return rd, nil
		}
	}
	return "", nil
}

var digestPattern = regexp.MustCompile(`sha256:[0-9a-f]{64}`)

// pushWarning is what the real provider (5.x) logs when the engine's push
// stream carries no digest, as podman's Docker-compatible API does
// (containers/podman#14779), before it takes the local store's digest.
const pushWarning = "Push completed without reporting a digest; falling back to local image inspect"

// push pushes imageName and returns the digest the daemon reported for the
// push, or "" when it reported none.
func (d *dockerClient) push(ctx context.Context, in imageInputs) (string, error) {
	repo, tag := splitImageName(in.imageName)
	auth, _ := json.Marshal(map[string]string{
		"username": in.username, "password": in.password, "serveraddress": in.registryServer(),
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost,
		d.base+"/images/"+repo+"/push?tag="+url.QueryEscape(tag), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("X-Registry-Auth", base64.URLEncoding.EncodeToString(auth))
	lines, aux, err := d.progress(req, "docker push of "+in.imageName)
	if err != nil {
		return "", err
	}
	return pushedDigest(aux, lines), nil
}

// pushedDigest is the digest a push stream reports: Docker's aux
// {"Digest": ...} or its "TAG: digest: sha256:... size: N" status line; ""
// when the stream has neither (podman).
func pushedDigest(aux []json.RawMessage, lines []string) string {
	for _, a := range aux {
		var pushed struct{ Digest string }
		if json.Unmarshal(a, &pushed) == nil && digestPattern.MatchString(pushed.Digest) {
			return digestPattern.FindString(pushed.Digest)
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if m := digestPattern.FindString(lines[i]); m != "" && strings.Contains(lines[i], "digest") {
			return m
		}
	}
	return ""
}

// fallbackRepoDigest is the real provider's fallback after a push without a
// digest: the local store's view of the image (its first RepoDigest, one of
// this repository's if there is one, else the image id), which the registry
// does not know when the daemon re-compressed the layers on push.
func fallbackRepoDigest(repo string, info imageInfo) string {
	for _, rd := range info.RepoDigests {
		if strings.HasPrefix(rd, repo+"@") {
			return rd
		}
	}
	if len(info.RepoDigests) > 0 {
		_, digest, _ := strings.Cut(info.RepoDigests[0], "@")
		return repo + "@" + digest
	}
	id := info.ID
	if !strings.HasPrefix(id, "sha256:") {
		id = "sha256:" + id
	}
	return repo + "@" + id
}

// manifestMediaTypes are the manifest kinds a digest lookup accepts; a
// registry answers a HEAD without a matching Accept with a schema 1 digest
// or 404.
var manifestMediaTypes = []string{
	"application/vnd.oci.image.manifest.v1+json",
	"application/vnd.docker.distribution.manifest.v2+json",
	"application/vnd.oci.image.index.v1+json",
	"application/vnd.docker.distribution.manifest.list.v2+json",
}

// registryDigest asks the registry (HTTP API v2) for the manifest digest of
// path:reference (a tag or a digest) on server. Loopback registries are
// spoken to over http, others over https.
func registryDigest(ctx context.Context, server, path, reference, user, password string) (string, error) {
	scheme := "https"
	host := server
	if h, _, err := net.SplitHostPort(server); err == nil {
		host = h
	}
	if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
		scheme = "http"
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	manifest := fmt.Sprintf("%s://%s/v2/%s/manifests/%s", scheme, server, path, reference)
	// HEAD first; a registry that leaves the header off a HEAD gets a GET.
	for _, method := range []string{http.MethodHead, http.MethodGet} {
		req, err := http.NewRequestWithContext(ctx, method, manifest, nil)
		if err != nil {
			return "", err
		}
		req.Header.Set("Accept", strings.Join(manifestMediaTypes, ", "))
		if user != "" {
			req.SetBasicAuth(user, password)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return "", fmt.Errorf("registry %s: manifest %s:%s: %w", server, path, reference, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return "", fmt.Errorf("registry %s: manifest %s:%s: %s", server, path, reference, resp.Status)
		}
		if digest := resp.Header.Get("Docker-Content-Digest"); digestPattern.MatchString(digest) {
			return digest, nil
		}
	}
	return "", fmt.Errorf("registry %s: manifest %s:%s: no Docker-Content-Digest in the answer", server, path, reference)
}
