// Command pulumi-language-nodejs is this environment's stand-in for Pulumi's
// Node.js language host. The real one lives in a nested module of the pulumi
// repository (sdk/nodejs/cmd/pulumi-language-nodejs) that the Go module proxy
// reachable here does not serve, so this small host speaks the same
// LanguageRuntime gRPC protocol (from sdk/v3's pulumirpc) and starts the same
// Node.js entry points that @pulumi/pulumi ships (cmd/run, cmd/run-plugin,
// cmd/run-policy-pack). It covers what `pulumi up/preview/destroy`, the
// Automation API and `--policy-pack` need; code generation, templates and
// packing are not implemented.
//
// The engine starts it as `pulumi-language-nodejs [flags] ENGINE_ADDRESS` and
// reads the port it listens on from its first line of standard output.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"
)

// languageHostVersion is the version this host reports; the build (ldflags) sets
// it to the version of the Pulumi CLI it is installed beside (tools/e2e-env/go/pulumi's
// go.mod); the default only marks a binary built some other way.
var languageHostVersion = "0.0.0-dev"

// exitAfterUserMessage is the exit code @pulumi/pulumi's cmd/run uses when the
// program failed and already told the user why.
const exitAfterUserMessage = 32

func main() {
	engineAddress := ""
	for _, arg := range os.Args[1:] {
		if !strings.HasPrefix(arg, "-") {
			engineAddress = arg // the positional engine address comes last
		}
	}
	host := &languageHost{engineAddress: engineAddress, children: map[*os.Process]struct{}{}}
	cancel := make(chan bool)
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Cancel: cancel,
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, host)
			return nil
		},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-language-nodejs: could not start the gRPC server: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-language-nodejs: gRPC server stopped: %v\n", err)
		os.Exit(1)
	}
}

type languageHost struct {
	pulumirpc.UnimplementedLanguageRuntimeServer

	engineAddress string

	mu       sync.Mutex
	children map[*os.Process]struct{}
}

func (h *languageHost) Handshake(_ context.Context, req *pulumirpc.LanguageHandshakeRequest) (*pulumirpc.LanguageHandshakeResponse, error) {
	if req.GetEngineAddress() != "" {
		h.engineAddress = req.GetEngineAddress()
	}
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

func (h *languageHost) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: languageHostVersion}, nil
}

func (h *languageHost) Cancel(context.Context, *emptypb.Empty) (*emptypb.Empty, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for p := range h.children {
		_ = p.Signal(syscall.SIGINT)
	}
	return &emptypb.Empty{}, nil
}

// programOptions are the runtime options of Pulumi.yaml (`runtime.options`).
type programOptions struct {
	typescript     bool
	tsconfig       string
	nodeargs       []string
	packageManager string
}

func readOptions(s *structpb.Struct) programOptions {
	opts := programOptions{typescript: true, packageManager: "npm"}
	if s == nil {
		return opts
	}
	m := s.AsMap()
	if v, ok := m["typescript"].(bool); ok {
		opts.typescript = v
	}
	if v, ok := m["tsconfig"].(string); ok {
		opts.tsconfig = v
	}
	if v, ok := m["nodeargs"].(string); ok && strings.TrimSpace(v) != "" {
		opts.nodeargs = strings.Fields(v)
	}
	if v, ok := m["packagemanager"].(string); ok && v != "" {
		opts.packageManager = v
	}
	return opts
}

// findPulumiScript looks for node_modules/@pulumi/pulumi/<rel> from dir
// upwards, as Node's module resolution would.
func findPulumiScript(dir, rel string) (string, error) {
	start := dir
	for {
		candidate := filepath.Join(dir, "node_modules", "@pulumi", "pulumi", rel)
		if _, err := os.Stat(candidate); err == nil {
			return candidate, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("it looks like the Pulumi SDK has not been installed: no node_modules/@pulumi/pulumi/%s "+
				"in %s or above; run `npm install` there", rel, start)
		}
		dir = parent
	}
}

func nodeExecutable() (string, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return "", errors.New("could not find `node` on PATH: install Node.js or add it to PATH")
	}
	return node, nil
}

func (h *languageHost) track(p *os.Process, add bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if add {
		h.children[p] = struct{}{}
	} else {
		delete(h.children, p)
	}
}

func (h *languageHost) Run(_ context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	info := req.GetInfo()
	programDir := req.GetPwd()
	entry := req.GetProgram()
	var rootDir string
	var opts programOptions
	if info != nil {
		programDir = info.GetProgramDirectory()
		entry = info.GetEntryPoint()
		rootDir = info.GetRootDirectory()
		opts = readOptions(info.GetOptions())
	} else {
		opts = readOptions(nil)
	}
	if entry == "" {
		entry = "."
	}
	runScript, err := findPulumiScript(programDir, filepath.Join("cmd", "run"))
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	node, err := nodeExecutable()
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}

	args := append([]string{}, opts.nodeargs...)
	args = append(args, runScript,
		"--monitor="+req.GetMonitorAddress(),
		"--engine="+h.engineAddress,
		"--project="+req.GetProject(),
		"--stack="+req.GetStack(),
		"--pwd="+req.GetPwd(),
		"--parallel="+strconv.Itoa(int(req.GetParallel())),
	)
	if req.GetOrganization() != "" {
		args = append(args, "--organization="+req.GetOrganization())
	}
	if rootDir != "" {
		args = append(args, "--root-directory="+rootDir)
	}
	if req.GetDryRun() {
		args = append(args, "--dry-run")
	}
	args = append(args, entry)
	args = append(args, req.GetArgs()...)

	configJSON, err := json.Marshal(req.GetConfig())
	if err != nil {
		return nil, status.Errorf(codes.Internal, "encoding config: %v", err)
	}
	secretKeys := req.GetConfigSecretKeys()
	if secretKeys == nil {
		secretKeys = []string{}
	}
	secretJSON, err := json.Marshal(secretKeys)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "encoding secret config keys: %v", err)
	}
	env := append(os.Environ(),
		"PULUMI_CONFIG="+string(configJSON),
		"PULUMI_CONFIG_SECRET_KEYS="+string(secretJSON),
		"PULUMI_NODEJS_TYPESCRIPT="+strconv.FormatBool(opts.typescript),
	)
	if opts.tsconfig != "" {
		env = append(env, "PULUMI_NODEJS_TSCONFIG_PATH="+opts.tsconfig)
	}

	cmd := exec.Command(node, args...)
	cmd.Dir = programDir
	cmd.Env = env
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("could not start node: %v", err)}, nil
	}
	h.track(cmd.Process, true)
	err = cmd.Wait()
	h.track(cmd.Process, false)
	if err == nil {
		return &pulumirpc.RunResponse{}, nil
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		code := exitErr.ExitCode()
		if code == exitAfterUserMessage {
			return &pulumirpc.RunResponse{Bail: true}, nil
		}
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("Program exited with non-zero exit code: %d", code)}, nil
	}
	return &pulumirpc.RunResponse{Error: fmt.Sprintf("Problem executing program (could not run language executor): %v", err)}, nil
}

// packageJSON holds the fields of package.json this host reads.
type packageJSON struct {
	Name            string            `json:"name"`
	Version         string            `json:"version"`
	Dependencies    map[string]string `json:"dependencies"`
	DevDependencies map[string]string `json:"devDependencies"`
	Pulumi          *struct {
		Resource bool   `json:"resource"`
		Name     string `json:"name"`
		Version  string `json:"version"`
		Server   string `json:"server"`
	} `json:"pulumi"`
}

func readPackageJSON(path string) (*packageJSON, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var pkg packageJSON
	if err := json.Unmarshal(data, &pkg); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &pkg, nil
}

// findPackageRoot returns the nearest directory at or above dir holding a
// package.json.
func findPackageRoot(dir string) (string, error) {
	start := dir
	for {
		if _, err := os.Stat(filepath.Join(dir, "package.json")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no package.json in %s or above", start)
		}
		dir = parent
	}
}

// resolveModule finds node_modules/<name>/package.json from dir upwards.
func resolveModule(dir, name string) (string, *packageJSON) {
	for {
		candidate := filepath.Join(dir, "node_modules", name)
		if pkg, err := readPackageJSON(filepath.Join(candidate, "package.json")); err == nil {
			return candidate, pkg
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
}

type plugin struct{ name, version, server string }

// requiredPlugins walks the program's dependency tree and collects the
// packages that declare a resource plugin in their package.json `pulumi`
// section (as @pulumi/kubernetes and @pulumi/docker do).
func requiredPlugins(programDir string) ([]plugin, error) {
	root, err := findPackageRoot(programDir)
	if err != nil {
		return nil, err
	}
	top, err := readPackageJSON(filepath.Join(root, "package.json"))
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	found := map[string]plugin{}
	var walk func(dir string, deps map[string]string)
	walk = func(dir string, deps map[string]string) {
		names := make([]string, 0, len(deps))
		for n := range deps {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			modDir, pkg := resolveModule(dir, n)
			if pkg == nil || seen[modDir] {
				continue
			}
			seen[modDir] = true
			if pkg.Pulumi != nil && pkg.Pulumi.Resource {
				name := pkg.Pulumi.Name
				if name == "" {
					name = strings.TrimPrefix(n, "@pulumi/")
				}
				v := pkg.Pulumi.Version
				if v == "" {
					v = pkg.Version
				}
				found[name+"@"+v] = plugin{name: name, version: v, server: pkg.Pulumi.Server}
			}
			walk(modDir, pkg.Dependencies)
		}
	}
	all := map[string]string{}
	for k, v := range top.Dependencies {
		all[k] = v
	}
	for k, v := range top.DevDependencies {
		all[k] = v
	}
	walk(root, all)
	keys := make([]string, 0, len(found))
	for k := range found {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]plugin, 0, len(keys))
	for _, k := range keys {
		out = append(out, found[k])
	}
	return out, nil
}

func programDirOf(info *pulumirpc.ProgramInfo, pwd string) string {
	if info != nil && info.GetProgramDirectory() != "" {
		return info.GetProgramDirectory()
	}
	return pwd
}

func (h *languageHost) GetRequiredPackages(_ context.Context, req *pulumirpc.GetRequiredPackagesRequest) (*pulumirpc.GetRequiredPackagesResponse, error) {
	plugins, err := requiredPlugins(programDirOf(req.GetInfo(), ""))
	if err != nil {
		return nil, status.Errorf(codes.FailedPrecondition, "%v", err)
	}
	resp := &pulumirpc.GetRequiredPackagesResponse{}
	for _, p := range plugins {
		resp.Packages = append(resp.Packages, &pulumirpc.PackageDependency{
			Name: p.name, Kind: "resource", Version: p.version, Server: p.server,
		})
	}
	return resp, nil
}

func (h *languageHost) GetRequiredPlugins(_ context.Context, req *pulumirpc.GetRequiredPluginsRequest) (*pulumirpc.GetRequiredPluginsResponse, error) {
	plugins, err := requiredPlugins(programDirOf(req.GetInfo(), req.GetPwd()))
	if err != nil {
		return nil, status.Errorf(codes.FailedPrecondition, "%v", err)
	}
	resp := &pulumirpc.GetRequiredPluginsResponse{}
	for _, p := range plugins {
		resp.Plugins = append(resp.Plugins, &pulumirpc.PluginDependency{
			Name: p.name, Kind: "resource", Version: p.version, Server: p.server,
		})
	}
	return resp, nil
}

func (h *languageHost) About(context.Context, *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	node, err := nodeExecutable()
	if err != nil {
		return nil, status.Errorf(codes.FailedPrecondition, "%v", err)
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		return nil, status.Errorf(codes.Internal, "running node --version: %v", err)
	}
	return &pulumirpc.AboutResponse{Executable: node, Version: strings.TrimSpace(string(out))}, nil
}

func (h *languageHost) GetProgramDependencies(_ context.Context, req *pulumirpc.GetProgramDependenciesRequest) (*pulumirpc.GetProgramDependenciesResponse, error) {
	root, err := findPackageRoot(programDirOf(req.GetInfo(), req.GetPwd()))
	if err != nil {
		return nil, status.Errorf(codes.FailedPrecondition, "%v", err)
	}
	top, err := readPackageJSON(filepath.Join(root, "package.json"))
	if err != nil {
		return nil, status.Errorf(codes.FailedPrecondition, "%v", err)
	}
	names := make([]string, 0, len(top.Dependencies))
	for n := range top.Dependencies {
		names = append(names, n)
	}
	sort.Strings(names)
	resp := &pulumirpc.GetProgramDependenciesResponse{}
	for _, n := range names {
		v := top.Dependencies[n]
		if _, pkg := resolveModule(root, n); pkg != nil {
			v = pkg.Version
		}
		resp.Dependencies = append(resp.Dependencies, &pulumirpc.DependencyInfo{Name: n, Version: v})
	}
	return resp, nil
}

// InstallDependencies runs the package manager's install in the program's
// directory and streams its output.
func (h *languageHost) InstallDependencies(req *pulumirpc.InstallDependenciesRequest,
	server grpc.ServerStreamingServer[pulumirpc.InstallDependenciesResponse],
) error {
	dir := programDirOf(req.GetInfo(), req.GetDirectory())
	opts := readOptions(nil)
	if req.GetInfo() != nil {
		opts = readOptions(req.GetInfo().GetOptions())
	}
	root, err := findPackageRoot(dir)
	if err != nil {
		return status.Errorf(codes.FailedPrecondition, "%v", err)
	}
	cmd := exec.Command(opts.packageManager, "install")
	cmd.Dir = root
	stdout := &streamWriter{send: func(b []byte) error {
		return server.Send(&pulumirpc.InstallDependenciesResponse{Stdout: b})
	}}
	stderr := &streamWriter{send: func(b []byte) error {
		return server.Send(&pulumirpc.InstallDependenciesResponse{Stderr: b})
	}}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		return status.Errorf(codes.Internal, "`%s install` in %s failed: %v", opts.packageManager, root, err)
	}
	return nil
}

// RunPlugin starts a plugin written in Node.js: a policy pack (kind
// "analyzer") through @pulumi/pulumi's cmd/run-policy-pack, anything else
// through cmd/run-plugin.
func (h *languageHost) RunPlugin(req *pulumirpc.RunPluginRequest,
	server grpc.ServerStreamingServer[pulumirpc.RunPluginResponse],
) error {
	dir := programDirOf(req.GetInfo(), req.GetPwd())
	opts := readOptions(nil)
	if req.GetInfo() != nil {
		opts = readOptions(req.GetInfo().GetOptions())
	}
	entry := "run-plugin"
	if req.GetKind() == "analyzer" {
		entry = "run-policy-pack"
	}
	script, err := findPulumiScript(dir, filepath.Join("cmd", entry))
	if err != nil {
		return status.Errorf(codes.FailedPrecondition, "%v", err)
	}
	node, err := nodeExecutable()
	if err != nil {
		return status.Errorf(codes.FailedPrecondition, "%v", err)
	}
	cmd := exec.Command(node, pluginCommandLine(req.GetKind(), opts.nodeargs, script, dir, req.GetArgs())...)
	cmd.Dir = dir
	if len(req.GetEnv()) > 0 {
		cmd.Env = req.GetEnv()
	}
	var sendMu sync.Mutex
	send := func(r *pulumirpc.RunPluginResponse) error {
		sendMu.Lock()
		defer sendMu.Unlock()
		return server.Send(r)
	}
	cmd.Stdout = &streamWriter{send: func(b []byte) error {
		return send(&pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Stdout{Stdout: b}})
	}}
	cmd.Stderr = &streamWriter{send: func(b []byte) error {
		return send(&pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Stderr{Stderr: b}})
	}}
	if err := cmd.Start(); err != nil {
		return status.Errorf(codes.Internal, "could not start node: %v", err)
	}
	h.track(cmd.Process, true)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var waitErr error
	select {
	case waitErr = <-done:
	case <-server.Context().Done():
		_ = cmd.Process.Kill()
		waitErr = <-done
	}
	h.track(cmd.Process, false)
	code := 0
	var exitErr *exec.ExitError
	if errors.As(waitErr, &exitErr) {
		code = exitErr.ExitCode()
	} else if waitErr != nil {
		return status.Errorf(codes.Internal, "running plugin: %v", waitErr)
	}
	return send(&pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Exitcode{Exitcode: int32(code)}})
}

// pluginCommandLine is node's arguments for a plugin in folder dir, started by
// the engine with args (the engine's address first). The two entry points of
// @pulumi/pulumi read them in different orders: cmd/run-policy-pack's usage is
// `RUN <engine-address> <program>` (it drops the first positional argument and
// runs the next), while cmd/run-plugin runs its first positional argument as
// the program and hands the rest to it as process.argv (cmd/run-plugin/run.js:
// `program = argv._[0]`, `programArgs = argv._.slice(1)`), where a component
// provider's componentProviderHost reads the engine's address.
func pluginCommandLine(kind string, nodeargs []string, script, dir string, args []string) []string {
	out := append(append([]string{}, nodeargs...), script)
	if kind == "analyzer" {
		out = append(out, args...)
		return append(out, dir)
	}
	out = append(out, dir)
	return append(out, args...)
}

// streamWriter forwards each write as one message; exec copies child output
// through it from a single goroutine per stream.
type streamWriter struct {
	send func([]byte) error
}

func (w *streamWriter) Write(p []byte) (int, error) {
	if err := w.send(bytes.Clone(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

var _ io.Writer = (*streamWriter)(nil)
