package bundles

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"tfs-e2e/e2e-env/internal/versions"
)

// The YAML language host: pulumi-yaml's host in the wrapper module
// go/pulumi-yaml, whose main answers Link itself (see its doc comment). Its
// own module because pulumi-yaml v1.25.0 compiles only against the Pulumi Go
// SDK it was written for (pkg/v3 v3.206.0), not against the CLI's.
const (
	yamlModule  = "github.com/pulumi/pulumi-yaml"
	yamlCheck   = "pulumi-language-yaml"
	yamlPackage = "./cmd/pulumi-language-yaml"
)

// YAMLVersion is the pulumi-yaml version go/pulumi-yaml/go.mod requires, without "v".
func YAMLVersion(tools string) (string, error) {
	gomod, err := os.ReadFile(filepath.Join(tools, "pulumi-yaml", "go.mod"))
	if err != nil {
		return "", err
	}
	v, err := versions.ModuleVersion(gomod, yamlModule)
	if err != nil {
		return "", fmt.Errorf("go/pulumi-yaml/%w", err)
	}
	return strings.TrimPrefix(v, "v"), nil
}

// yamlBundle names the bundle: pulumi-language-yaml-VERSION-KEY.
func yamlBundle(tools, bin, goVersion string) (string, error) {
	v, err := YAMLVersion(tools)
	if err != nil {
		return "", err
	}
	k, err := Key(goVersion, filepath.Join(tools, "pulumi-yaml", "go.mod"), filepath.Join(tools, "pulumi-yaml", "go.sum"),
		filepath.Join(tools, "pulumi-yaml", "cmd", "pulumi-language-yaml"))
	if err != nil {
		return "", err
	}
	return filepath.Join(bin, "pulumi-language-yaml-"+v+"-"+k), nil
}

// PulumiYAML builds the YAML language host, reporting upstream's version.
func (b *Builder) PulumiYAML() error {
	v, err := YAMLVersion(b.Tools)
	if err != nil {
		return err
	}
	return b.build(b.Dirs.PulumiYAML, yamlCheck, "pulumi-language-yaml "+v, func(tmp string) error {
		b.Log("building pulumi-language-yaml %s (upstream's host, Link answered by the wrapper)...", v)
		return b.goCmd("pulumi-yaml", "build-pulumi-yaml.log", 40, "building pulumi-language-yaml failed", nil,
			"build", "-trimpath", NoDWARF, "-ldflags", "-s -w -X "+yamlModule+"/pkg/version.Version="+v,
			"-o", filepath.Join(tmp, yamlCheck), yamlPackage)
	})
}
