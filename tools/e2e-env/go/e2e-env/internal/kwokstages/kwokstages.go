// Package kwokstages gives kwok the stages it simulates the GPU node and its
// pods with. kwok v0.7 applied its default stages when its configuration named
// none; from v0.8 it exits ("no stages found") and kwokctl passes them instead
// (sigs.k8s.io/kwok pkg/kwok/cmd/root.go; pkg/kwokctl/runtime/cluster.go,
// getDefaultNodeStages and getDefaultPodStages). These are the same upstream
// files, read from the pinned module.
package kwokstages

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"tfs-e2e/e2e-env/internal/bundles"
)

// Module is kwok's module, pinned in the wrapper module go/kwok.
const Module = "sigs.k8s.io/kwok"

// Files are upstream's default stages, in the module: the node's
// initialisation and heartbeat (the status heartbeat, as kwok gives a node
// whose lease it renews itself: --node-lease-duration-seconds), and a pod's
// ready, complete and delete stages.
var Files = []string{
	"kustomize/stage/node/fast/node-initialize.yaml",
	"kustomize/stage/node/heartbeat/node-heartbeat.yaml",
	"kustomize/stage/pod/fast/pod-ready.yaml",
	"kustomize/stage/pod/fast/pod-complete.yaml",
	"kustomize/stage/pod/fast/pod-delete.yaml",
}

// Join is the stage files of the module in moduleDir as one multi-document
// YAML file, the form kwok's --config reads.
func Join(moduleDir string) (string, error) {
	docs := make([]string, 0, len(Files))
	for _, f := range Files {
		b, err := os.ReadFile(filepath.Join(moduleDir, filepath.FromSlash(f)))
		if err != nil {
			return "", fmt.Errorf("kwok's stage %s: %w", f, err)
		}
		docs = append(docs, strings.TrimSpace(strings.TrimPrefix(string(b), "---")))
	}
	return strings.Join(docs, "\n---\n") + "\n", nil
}

// Write writes the stages of the pinned kwok (go mod download in
// tools/kwok, with goEnv: fetched when kwok was built) to path.
func Write(tools string, goEnv []string, path string) error {
	dir, err := bundles.DownloadModule(filepath.Join(tools, "kwok"), goEnv, Module)
	if err != nil {
		return err
	}
	stages, err := Join(dir)
	if err != nil {
		return err
	}
	return os.WriteFile(path, []byte(stages), 0o644)
}
