package main

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

type imageInputs struct {
	imageName    string
	context      string
	dockerfile   string
	platform     string
	target       string
	network      string
	args         map[string]string
	cacheFrom    []string
	addHosts     []string
	skipPush     bool
	server       string
	username     string
	password     string
	contextKnown bool
}

func stringAt(m resource.PropertyMap, key string) (string, bool) {
	v, ok := m[resource.PropertyKey(key)]
	if !ok || v.IsNull() {
		return "", true
	}
	if v.IsSecret() {
		v = v.SecretValue().Element
	}
	if v.IsComputed() || v.IsOutput() && !v.OutputValue().Known {
		return "", false
	}
	if v.IsOutput() {
		v = v.OutputValue().Element
	}
	if !v.IsString() {
		return "", true
	}
	return v.StringValue(), true
}

func objectAt(m resource.PropertyMap, key string) resource.PropertyMap {
	v, ok := m[resource.PropertyKey(key)]
	if !ok {
		return nil
	}
	if v.IsSecret() {
		v = v.SecretValue().Element
	}
	if v.IsObject() {
		return v.ObjectValue()
	}
	return nil
}

func stringsAt(m resource.PropertyMap, key string) []string {
	v, ok := m[resource.PropertyKey(key)]
	if !ok || !v.IsArray() {
		return nil
	}
	var out []string
	for _, e := range v.ArrayValue() {
		if e.IsString() {
			out = append(out, e.StringValue())
		}
	}
	return out
}

// readImageInputs reads the Image's inputs; unknown values (during preview)
// leave contextKnown false.
func readImageInputs(m resource.PropertyMap) (imageInputs, []*pulumirpc.CheckFailure) {
	var in imageInputs
	var failures []*pulumirpc.CheckFailure
	name, known := stringAt(m, "imageName")
	if known && name == "" {
		failures = append(failures, &pulumirpc.CheckFailure{Property: "imageName",
			Reason: "imageName is required: give the full name to tag and push, e.g. 127.0.0.1:5000/model:v1"})
	}
	in.imageName = name
	in.contextKnown = known
	build := objectAt(m, "build")
	ctxDir, ok := stringAt(build, "context")
	in.contextKnown = in.contextKnown && ok
	if ctxDir == "" {
		ctxDir = "."
	}
	in.context = ctxDir
	dockerfile, ok := stringAt(build, "dockerfile")
	in.contextKnown = in.contextKnown && ok
	if dockerfile == "" {
		dockerfile = filepath.Join(ctxDir, "Dockerfile")
	}
	in.dockerfile = dockerfile
	in.platform, _ = stringAt(build, "platform")
	in.target, _ = stringAt(build, "target")
	in.network, _ = stringAt(build, "network")
	in.addHosts = stringsAt(build, "addHosts")
	if cf := objectAt(build, "cacheFrom"); cf != nil {
		in.cacheFrom = stringsAt(cf, "images")
	}
	if args := objectAt(build, "args"); args != nil {
		in.args = map[string]string{}
		for k := range args {
			v, ok := stringAt(args, string(k))
			in.contextKnown = in.contextKnown && ok
			in.args[string(k)] = v
		}
	}
	if v, ok := m["skipPush"]; ok && v.IsBool() {
		in.skipPush = v.BoolValue()
	}
	if reg := objectAt(m, "registry"); reg != nil {
		in.server, _ = stringAt(reg, "server")
		in.username, _ = stringAt(reg, "username")
		in.password, _ = stringAt(reg, "password")
	}
	if in.contextKnown {
		if st, err := os.Stat(in.context); err != nil || !st.IsDir() {
			failures = append(failures, &pulumirpc.CheckFailure{Property: "build.context",
				Reason: fmt.Sprintf("build context %q is not a directory (relative paths start at the program's directory)", in.context)})
		} else if _, err := os.Stat(in.dockerfile); err != nil {
			failures = append(failures, &pulumirpc.CheckFailure{Property: "build.dockerfile",
				Reason: fmt.Sprintf("Dockerfile %q not found (default: <context>/Dockerfile)", in.dockerfile)})
		}
	}
	return in, failures
}

// splitImageName splits NAME[:TAG] into repository and tag (default latest).
func splitImageName(name string) (repo, tag string) {
	slash := strings.LastIndex(name, "/")
	if colon := strings.LastIndex(name, ":"); colon > slash {
		return name[:colon], name[colon+1:]
	}
	return name, "latest"
}

// registryServer is registry.server, or the registry part of imageName.
func (in imageInputs) registryServer() string {
	if in.server != "" {
		return in.server
	}
	repo, _ := splitImageName(in.imageName)
	if i := strings.Index(repo, "/"); i > 0 {
		first := repo[:i]
		if strings.ContainsAny(first, ".:") || first == "localhost" {
			return first
		}
	}
	return "docker.io"
}

type contextFile struct {
	rel  string
	path string
	info fs.FileInfo
}

// contextFiles lists the build context without what .dockerignore excludes.
func contextFiles(dir string) ([]contextFile, error) {
	var patterns []string
	if f, err := os.Open(filepath.Join(dir, ".dockerignore")); err == nil {
		patterns, err = ignorefile.ReadAll(f)
		_ = f.Close()
		if err != nil {
			return nil, fmt.Errorf("reading %s/.dockerignore: %w", dir, err)
		}
	}
	pm, err := patternmatcher.New(patterns)
	if err != nil {
		return nil, fmt.Errorf("%s/.dockerignore: %w", dir, err)
	}
	var files []contextFile
	err = filepath.Walk(dir, func(path string, info fs.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		skip, err := pm.MatchesOrParentMatches(rel)
		if err != nil {
			return err
		}
		if skip {
			if info.IsDir() && !pm.Exclusions() {
				return filepath.SkipDir
			}
			return nil
		}
		files = append(files, contextFile{rel: rel, path: path, info: info})
		return nil
	})
	sort.Slice(files, func(i, j int) bool { return files[i].rel < files[j].rel })
	return files, err
}

// dockerfileInContext returns the Dockerfile's path relative to the context,
// or "" when it lies outside it.
func (in imageInputs) dockerfileInContext() string {
	absCtx, err1 := filepath.Abs(in.context)
	absDf, err2 := filepath.Abs(in.dockerfile)
	if err1 != nil || err2 != nil {
		return ""
	}
	rel, err := filepath.Rel(absCtx, absDf)
	if err != nil || strings.HasPrefix(rel, "..") {
		return ""
	}
	return filepath.ToSlash(rel)
}

// contextDigest hashes every file of the context (name, mode, content) and
// the Dockerfile, so that an unchanged context means no new build.
func contextDigest(in imageInputs) (string, error) {
	files, err := contextFiles(in.context)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s\x00%o\x00", f.rel, f.info.Mode())
		switch {
		case f.info.Mode().IsRegular():
			if err := copyFile(h, f.path); err != nil {
				return "", err
			}
		case f.info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(f.path)
			if err != nil {
				return "", err
			}
			fmt.Fprint(h, target)
		}
		fmt.Fprint(h, "\x00")
	}
	fmt.Fprint(h, "dockerfile\x00")
	if err := copyFile(h, in.dockerfile); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// writeContextTar writes the context as a tar stream; a Dockerfile outside
// the context is added under dockerfileName.
func writeContextTar(w io.Writer, in imageInputs, dockerfileName string) error {
	files, err := contextFiles(in.context)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(w)
	for _, f := range files {
		link := ""
		if f.info.Mode()&fs.ModeSymlink != 0 {
			if link, err = os.Readlink(f.path); err != nil {
				return err
			}
		}
		hdr, err := tar.FileInfoHeader(f.info, link)
		if err != nil {
			return err
		}
		hdr.Name = f.rel
		if f.info.IsDir() {
			hdr.Name += "/"
		}
		hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = 0, 0, "", ""
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if f.info.Mode().IsRegular() {
			if err := copyFile(tw, f.path); err != nil {
				return err
			}
		}
	}
	if in.dockerfileInContext() == "" {
		data, err := os.ReadFile(in.dockerfile)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: dockerfileName, Mode: 0o644, Size: int64(len(data))}); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	return tw.Close()
}

func copyFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}
