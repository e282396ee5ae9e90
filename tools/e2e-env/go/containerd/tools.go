//go:build tools

// Package tools records the three main packages built from this module, so
// that `go build github.com/containerd/containerd/v2/cmd/containerd`,
// `.../cmd/containerd-shim-runc-v2` and `go build github.com/opencontainers/runc`
// work from here.
package tools

import (
	_ "github.com/containerd/containerd/v2/cmd/containerd"
	_ "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2"
	_ "github.com/opencontainers/runc"
)
