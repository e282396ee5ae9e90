package main

import (
	"encoding/json"
	"testing"
)

const localStoreDigest = "sha256:2222222222222222222222222222222222222222222222222222222222222222"

func TestPushedDigestFromDockerStreams(t *testing.T) {
	aux := []json.RawMessage{json.RawMessage(`{"Tag":"ctx-1","Digest":"` + registryDigestValue + `","Size":525}`)}
	if got := pushedDigest(aux, nil); got != registryDigestValue {
		t.Fatalf("Docker's aux digest: got %q", got)
	}
	lines := []string{"The push refers to repository [localhost:5001/m]", "ctx-1: digest: " + registryDigestValue + " size: 525"}
	if got := pushedDigest(nil, lines); got != registryDigestValue {
		t.Fatalf("Docker's status line: got %q", got)
	}
}

func TestPushedDigestIsEmptyForPodmanStreams(t *testing.T) {
	// What podman's compatible API streams for a push: progress, no digest.
	lines := []string{"Getting image source signatures", "Copying blob sha256:" + localStoreDigest[7:], "Copying config sha256:" + localStoreDigest[7:], "Writing manifest to image destination"}
	if got := pushedDigest(nil, lines); got != "" {
		t.Fatalf("no digest was reported, got %q", got)
	}
}

func TestFallbackRepoDigestIsTheLocalStores(t *testing.T) {
	repo := "localhost:5001/e2e/m"
	info := imageInfo{ID: localStoreDigest, RepoDigests: []string{"localhost/other@sha256:aa", repo + "@" + localStoreDigest}}
	if got := fallbackRepoDigest(repo, info); got != repo+"@"+localStoreDigest {
		t.Fatalf("this repository's local RepoDigest expected, got %s", got)
	}
	if got := fallbackRepoDigest(repo, imageInfo{RepoDigests: []string{"localhost/other@" + localStoreDigest}}); got != repo+"@"+localStoreDigest {
		t.Fatalf("the first RepoDigest, in this repository, expected, got %s", got)
	}
	if got := fallbackRepoDigest(repo, imageInfo{ID: localStoreDigest[7:]}); got != repo+"@"+localStoreDigest {
		t.Fatalf("the image id expected without RepoDigests, got %s", got)
	}
}
