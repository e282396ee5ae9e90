package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

func TestSplitImageName(t *testing.T) {
	cases := map[string][2]string{
		"127.0.0.1:5000/m/model:v1": {"127.0.0.1:5000/m/model", "v1"},
		"127.0.0.1:5000/m/model":    {"127.0.0.1:5000/m/model", "latest"},
		"busybox":                   {"busybox", "latest"},
	}
	for in, want := range cases {
		repo, tag := splitImageName(in)
		if repo != want[0] || tag != want[1] {
			t.Errorf("%s: got %s %s, want %v", in, repo, tag, want)
		}
	}
}

func TestRegistryServer(t *testing.T) {
	cases := map[string]string{
		"127.0.0.1:5000/m/model:v1":                   "127.0.0.1:5000",
		"europe-docker.pkg.dev/p/r/model:v1":          "europe-docker.pkg.dev",
		"localhost/model":                             "localhost",
		"library/busybox":                             "docker.io",
		"123.dkr.ecr.eu-west-1.amazonaws.com/model:1": "123.dkr.ecr.eu-west-1.amazonaws.com",
	}
	for name, want := range cases {
		if got := (imageInputs{imageName: name}).registryServer(); got != want {
			t.Errorf("%s: got %s, want %s", name, got, want)
		}
	}
	if got := (imageInputs{imageName: "a/b", server: "reg.example:443"}).registryServer(); got != "reg.example:443" {
		t.Errorf("registry.server must win, got %s", got)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestContextDigestFollowsContentAndDockerignore(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "Dockerfile"), "FROM base\nCOPY model /models/m\n")
	writeFile(t, filepath.Join(dir, "model/1/saved_model.pb"), "v1")
	writeFile(t, filepath.Join(dir, ".dockerignore"), "scratch\n")
	in := imageInputs{context: dir, dockerfile: filepath.Join(dir, "Dockerfile")}

	first, err := contextDigest(in)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := contextDigest(in)
	if first != again {
		t.Fatalf("same context, different digests: %s %s", first, again)
	}
	writeFile(t, filepath.Join(dir, "scratch/notes.txt"), "ignored")
	if d, _ := contextDigest(in); d != first {
		t.Fatalf("a .dockerignore'd file changed the digest")
	}
	writeFile(t, filepath.Join(dir, "model/1/saved_model.pb"), "v2")
	if d, _ := contextDigest(in); d == first {
		t.Fatalf("a changed model file kept the digest")
	}
}

func TestReadImageInputsChecksPathsAndDefaults(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "Dockerfile"), "FROM base\n")
	props := resource.PropertyMap{
		"imageName": resource.NewStringProperty("127.0.0.1:5000/m:v1"),
		"build": resource.NewObjectProperty(resource.PropertyMap{
			"context": resource.NewStringProperty(dir),
			"args":    resource.NewObjectProperty(resource.PropertyMap{"BASE": resource.NewStringProperty("b")}),
		}),
		"skipPush": resource.NewBoolProperty(true),
	}
	in, failures := readImageInputs(props)
	if len(failures) != 0 || in.dockerfile != filepath.Join(dir, "Dockerfile") || !in.skipPush || in.args["BASE"] != "b" || !in.contextKnown {
		t.Fatalf("unexpected: %+v %v", in, failures)
	}
	if in.dockerfileInContext() != "Dockerfile" {
		t.Fatalf("Dockerfile in context: got %q", in.dockerfileInContext())
	}

	props["build"] = resource.NewObjectProperty(resource.PropertyMap{"context": resource.NewStringProperty(filepath.Join(dir, "missing"))})
	if _, failures := readImageInputs(props); len(failures) != 1 || failures[0].GetProperty() != "build.context" {
		t.Fatalf("a missing context must fail on build.context, got %v", failures)
	}
	props["build"] = resource.NewObjectProperty(resource.PropertyMap{"context": resource.MakeComputed(resource.NewStringProperty(""))})
	if in, failures := readImageInputs(props); len(failures) != 0 || in.contextKnown {
		t.Fatalf("an unknown context (preview) is not checked: %+v %v", in, failures)
	}
}
