package bundles

import "path/filepath"

// The real node's container runtime: containerd 2.x, its runc shim and runc,
// from the wrapper module go/containerd (one bundle, one folder: `kube node
// run --runtime-dir` takes it). Upstream's Makefiles build them so:
// containerd with cgo where a snapshotter needs it (btrfs), the shim static
// without cgo and without gRPC, runc with cgo (its nsenter is C) and the
// seccomp tag, which links libseccomp (Debian's libseccomp-dev to build,
// libseccomp2 to run).
const (
	containerdCheck   = "runc" // the last of the three the build writes
	containerdPackage = "github.com/containerd/containerd/v2/cmd/containerd"
	shimPackage       = "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2"
	runcPackage       = "github.com/opencontainers/runc"
)

// RuntimeBuilds are the three go builds: output name, package, build tags,
// CGO_ENABLED. containerd leaves out the btrfs, devmapper and zfs snapshotters
// (the node uses overlayfs only; btrfs alone would need cgo and its headers),
// so it builds static without cgo; the shim's tags are upstream's
// (SHIM_GO_BUILDTAGS); runc's are upstream's BUILDTAGS.
var RuntimeBuilds = []struct{ Out, Package, Tags, Cgo string }{
	{"containerd", containerdPackage, "urfave_cli_no_docs no_btrfs no_devmapper no_zfs", "0"},
	{"containerd-shim-runc-v2", shimPackage, "urfave_cli_no_docs no_grpc", "0"},
	{"runc", runcPackage, "seccomp urfave_cli_no_docs", "1"},
}

// runtimeBundle names the bundle: containerd-VERSION-runc-VERSION-KEY.
func runtimeBundle(tools, bin, goVersion, containerd, runc string) (string, error) {
	m := func(p string) string { return filepath.Join(tools, "containerd", p) }
	k, err := Key(goVersion, m("go.mod"), m("go.sum"), m("tools.go"))
	if err != nil {
		return "", err
	}
	return filepath.Join(bin, "containerd-"+containerd+"-runc-"+runc+"-"+k), nil
}

// RuntimeLDFlags are a build's -ldflags: containerd and its shim report the
// pinned version as upstream's release builds do (`git describe`, so with
// its "v"; the kubelet reports it parsed, as the node's containerRuntimeVersion
// containerd://2.2.10); runc reads its own from the module's VERSION file.
func RuntimeLDFlags(out, containerdVersion string) string {
	if out == "runc" {
		return "-s -w"
	}
	return "-s -w -X github.com/containerd/containerd/v2/version.Version=" + containerdVersion
}

// Containerd builds containerd, containerd-shim-runc-v2 and runc into one folder.
func (b *Builder) Containerd() error {
	v := b.Versions
	what := "containerd " + v.Containerd + " + runc " + v.Runc
	return b.build(b.Dirs.Containerd, containerdCheck, what, func(tmp string) error {
		b.Log("building containerd %s, containerd-shim-runc-v2, runc %s (libseccomp)...", v.Containerd, v.Runc)
		for _, r := range RuntimeBuilds {
			if err := b.goCmd("containerd", "build-"+r.Out+".log", 40, "building "+r.Out+" failed"+runtimeHint(r.Cgo),
				[]string{"CGO_ENABLED=" + r.Cgo}, "build", "-trimpath", NoDWARF, "-tags", r.Tags,
				"-ldflags", RuntimeLDFlags(r.Out, v.Containerd), "-o", filepath.Join(tmp, r.Out), r.Package); err != nil {
				return err
			}
		}
		return nil
	})
}

// runtimeHint names what a cgo build needs, for its failure message.
func runtimeHint(cgo string) string {
	if cgo != "1" {
		return ""
	}
	return " (it needs gcc and Debian's libseccomp-dev: scripts/e2e-env packages)"
}
