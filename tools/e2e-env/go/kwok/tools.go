//go:build tools

// Package tools records the two main packages built from this module, so that
// `go build sigs.k8s.io/kwok/cmd/kwok` and
// `go build sigs.k8s.io/metrics-server/cmd/metrics-server` work from here.
package tools

import (
	_ "sigs.k8s.io/kwok/cmd/kwok"
	_ "sigs.k8s.io/metrics-server/cmd/metrics-server"
)
