//go:build tools

// Package tools records prometheus-adapter's main package as a dependency of
// this module so that `go build sigs.k8s.io/prometheus-adapter/cmd/adapter`
// works from here.
package tools

import (
	_ "sigs.k8s.io/prometheus-adapter/cmd/adapter"
)
