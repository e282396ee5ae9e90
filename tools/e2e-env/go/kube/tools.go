//go:build tools

// Package tools records metrics-server's main package as a dependency of this
// module so that `go build sigs.k8s.io/metrics-server/cmd/metrics-server`
// works from here.
package tools

import (
	_ "sigs.k8s.io/metrics-server/cmd/metrics-server"
)
