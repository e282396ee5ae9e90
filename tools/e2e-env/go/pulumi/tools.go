//go:build tools

// Package tools records the Pulumi CLI's main package as a dependency of this
// module so that `go build github.com/pulumi/pulumi/pkg/v3/cmd/pulumi` works
// from here.
package tools

import (
	_ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
)
