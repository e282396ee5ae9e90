// Command pulumi-resource-kubernetes serves the Kubernetes resource provider
// from github.com/pulumi/pulumi-kubernetes/provider/v4. Upstream's main embeds
// files that its Makefile generates and the module does not ship; the build
// script writes them next to this file (schema-embed.json with the version
// set, terraform-mapping-embed.json) before `go build`.
package main

import (
	_ "embed"

	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/provider"
	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version"
)

//go:embed schema-embed.json
var schema []byte

//go:embed terraform-mapping-embed.json
var terraformMapping []byte

func main() {
	provider.Serve("kubernetes", version.Version, schema, terraformMapping)
}
