// Command pulumi-resource-docker is this environment's stand-in for the
// Docker resource provider of @pulumi/docker. The real provider's module
// (github.com/pulumi/pulumi-docker/provider) is not served by the Go module
// proxy reachable here, so this provider implements what the project uses:
// the resource docker:index/image:Image, against the Docker Engine API
// (podman's compatible service on DOCKER_HOST): it builds the context, tags
// the image as imageName, pushes it unless skipPush, and reports repoDigest;
// and the function getRegistryImage, against the registry's v2 API. Like the
// real provider it hashes the build context, so an unchanged context builds
// nothing, never deletes images or tags, and, when the push reports no
// digest (podman), warns and reports the local store's digest as repoDigest.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"
)

// dockerProviderVersion is set by the build (ldflags) to the @pulumi/docker
// version it stands in for, read from the repository's package-lock.json; the
// default only marks a binary built some other way.
var dockerProviderVersion = "0.0.0-dev"

const imageType = "docker:index/image:Image"

func main() {
	p := &provider{registryAuth: map[string]registryLogin{}}
	if len(os.Args) > 1 {
		p.connectEngine(os.Args[1])
	}
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterResourceProviderServer(srv, p)
			return nil
		},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-resource-docker: could not start the gRPC server: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-resource-docker: %v\n", err)
		os.Exit(1)
	}
}

type provider struct {
	pulumirpc.UnimplementedResourceProviderServer
	dockerHost string
	// registryAuth holds the configured registry logins by host.
	registryAuth map[string]registryLogin
	// engine receives warnings for the user; nil until the engine's address is known.
	engine pulumirpc.EngineClient
}

// connectEngine dials the engine's address (given by the handshake, or as the
// first argument by older engines) for logging.
func (p *provider) connectEngine(address string) {
	if address == "" || p.engine != nil {
		return
	}
	conn, err := grpc.NewClient(address, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-resource-docker: cannot reach the engine at %s: %v\n", address, err)
		return
	}
	p.engine = pulumirpc.NewEngineClient(conn)
}

// warn shows msg to the user as a warning on urn, as the real provider's host.Log does.
func (p *provider) warn(ctx context.Context, urn, msg string) {
	fmt.Fprintf(os.Stderr, "warning: %s: %s\n", urn, msg)
	if p.engine != nil {
		_, _ = p.engine.Log(ctx, &pulumirpc.LogRequest{Severity: pulumirpc.LogSeverity_WARNING, Message: msg, Urn: urn})
	}
}

var unmarshalOpts = plugin.MarshalOptions{KeepUnknowns: true, SkipNulls: true, KeepSecrets: false}

func unmarshal(s *structpb.Struct) (resource.PropertyMap, error) {
	return plugin.UnmarshalProperties(s, unmarshalOpts)
}

func marshal(m resource.PropertyMap) (*structpb.Struct, error) {
	return plugin.MarshalProperties(m, plugin.MarshalOptions{KeepUnknowns: true, SkipNulls: true})
}

func (p *provider) Handshake(_ context.Context, req *pulumirpc.ProviderHandshakeRequest) (*pulumirpc.ProviderHandshakeResponse, error) {
	p.connectEngine(req.GetEngineAddress())
	return &pulumirpc.ProviderHandshakeResponse{}, nil
}

func (p *provider) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: dockerProviderVersion}, nil
}

func (p *provider) GetSchema(context.Context, *pulumirpc.GetSchemaRequest) (*pulumirpc.GetSchemaResponse, error) {
	schema := map[string]any{
		"name":        "docker",
		"version":     dockerProviderVersion,
		"description": "Stand-in Docker provider of the tf-serving e2e environment (Image only)",
		"functions": map[string]any{
			getRegistryImageToken: map[string]any{
				"inputs": map[string]any{
					"properties": map[string]any{
						"name":               map[string]any{"type": "string"},
						"insecureSkipVerify": map[string]any{"type": "boolean"},
					},
					"required": []string{"name"},
				},
				"outputs": map[string]any{
					"properties": map[string]any{
						"id":                 map[string]any{"type": "string"},
						"name":               map[string]any{"type": "string"},
						"sha256Digest":       map[string]any{"type": "string"},
						"insecureSkipVerify": map[string]any{"type": "boolean"},
					},
				},
			},
		},
		"resources": map[string]any{
			imageType: map[string]any{
				"inputProperties": map[string]any{
					"build":          map[string]any{"type": "object"},
					"buildOnPreview": map[string]any{"type": "boolean"},
					"imageName":      map[string]any{"type": "string"},
					"registry":       map[string]any{"type": "object"},
					"skipPush":       map[string]any{"type": "boolean"},
				},
				"requiredInputs": []string{"imageName"},
				"properties": map[string]any{
					"baseImageName":  map[string]any{"type": "string"},
					"context":        map[string]any{"type": "string"},
					"dockerfile":     map[string]any{"type": "string"},
					"imageName":      map[string]any{"type": "string"},
					"platform":       map[string]any{"type": "string"},
					"registryServer": map[string]any{"type": "string"},
					"repoDigest":     map[string]any{"type": "string"},
				},
			},
		},
	}
	data, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.GetSchemaResponse{Schema: string(data)}, nil
}

func (p *provider) CheckConfig(_ context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	return &pulumirpc.CheckResponse{Inputs: req.GetNews()}, nil
}

func (p *provider) DiffConfig(_ context.Context, req *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	olds, err := unmarshal(req.GetOldInputs())
	if err != nil {
		return nil, err
	}
	news, err := unmarshal(req.GetNews())
	if err != nil {
		return nil, err
	}
	if olds["host"].DeepEquals(news["host"]) {
		return &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_NONE}, nil
	}
	return &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_SOME, Diffs: []string{"host"}}, nil
}

func (p *provider) Configure(_ context.Context, req *pulumirpc.ConfigureRequest) (*pulumirpc.ConfigureResponse, error) {
	host := ""
	auth := resource.NewNullProperty()
	if req.GetArgs() != nil {
		args, err := unmarshal(req.GetArgs())
		if err != nil {
			return nil, err
		}
		if v, ok := stringAt(args, "host"); ok {
			host = v
		}
		if v, ok := args["registryAuth"]; ok {
			auth = v
		}
	}
	if v, ok := req.GetVariables()["docker:config:registryAuth"]; ok && auth.IsNull() {
		auth = resource.NewStringProperty(v)
	}
	logins, err := registryAuthFrom(auth)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	p.registryAuth = logins
	if host == "" {
		host = req.GetVariables()["docker:config:host"]
	}
	if host == "" {
		host = os.Getenv("DOCKER_HOST")
	}
	if host == "" {
		host = "unix:///var/run/docker.sock"
	}
	p.dockerHost = host
	return &pulumirpc.ConfigureResponse{SupportsPreview: true}, nil
}

// imageProperties are a request's properties, once its resource is known
// to be an Image.
func imageProperties(t, urn string, props *structpb.Struct) (resource.PropertyMap, error) {
	if err := onlyImage(t, urn); err != nil {
		return nil, err
	}
	return unmarshal(props)
}

func onlyImage(t, urn string) error {
	if t == "" {
		t = string(resource.URN(urn).Type())
	}
	if t != imageType {
		return status.Errorf(codes.Unimplemented,
			"the e2e environment's stand-in docker provider implements only %s, not %s", imageType, t)
	}
	return nil
}

func (p *provider) Invoke(ctx context.Context, req *pulumirpc.InvokeRequest) (*pulumirpc.InvokeResponse, error) {
	if req.GetTok() != getRegistryImageToken {
		return nil, status.Errorf(codes.Unimplemented,
			"the e2e environment's stand-in docker provider implements only the function %s, not %s", getRegistryImageToken, req.GetTok())
	}
	args, err := unmarshal(req.GetArgs())
	if err != nil {
		return nil, err
	}
	outs, err := p.getRegistryImage(ctx, args)
	if err != nil {
		return &pulumirpc.InvokeResponse{Failures: []*pulumirpc.CheckFailure{{Property: "name", Reason: err.Error()}}}, nil
	}
	s, err := marshal(outs)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.InvokeResponse{Return: s}, nil
}

func (p *provider) Check(_ context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	news, err := imageProperties(req.GetType(), req.GetUrn(), req.GetNews())
	if err != nil {
		return nil, err
	}
	in, failures := readImageInputs(news)
	if len(failures) == 0 && in.contextKnown {
		digest, err := contextDigest(in)
		if err != nil {
			failures = append(failures, &pulumirpc.CheckFailure{Property: "build.context", Reason: err.Error()})
		} else {
			build := resource.PropertyMap{}
			if b, ok := news["build"]; ok && b.IsObject() {
				build = b.ObjectValue().Copy()
			}
			build["contextDigest"] = resource.NewStringProperty(digest)
			news["build"] = resource.NewObjectProperty(build)
		}
	}
	if len(failures) > 0 {
		return &pulumirpc.CheckResponse{Inputs: req.GetNews(), Failures: failures}, nil
	}
	inputs, err := plugin.MarshalProperties(news, plugin.MarshalOptions{KeepUnknowns: true, SkipNulls: true})
	if err != nil {
		return nil, err
	}
	return &pulumirpc.CheckResponse{Inputs: inputs}, nil
}

func (p *provider) Diff(_ context.Context, req *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	olds, err := imageProperties(req.GetType(), req.GetUrn(), req.GetOldInputs())
	if err != nil {
		return nil, err
	}
	news, err := unmarshal(req.GetNews())
	if err != nil {
		return nil, err
	}
	ignored := map[string]bool{}
	for _, k := range req.GetIgnoreChanges() {
		ignored[k] = true
	}
	var diffs []string
	keys := map[resource.PropertyKey]bool{}
	for k := range olds {
		keys[k] = true
	}
	for k := range news {
		keys[k] = true
	}
	for k := range keys {
		if ignored[string(k)] {
			continue
		}
		o, n := olds[k], news[k]
		if n.ContainsUnknowns() || !o.DeepEquals(n) {
			diffs = append(diffs, string(k))
		}
	}
	sort.Strings(diffs)
	if len(diffs) == 0 {
		return &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_NONE}, nil
	}
	return &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_SOME, Diffs: diffs}, nil
}

// buildAndPushMarshalled is Create's and Update's shared work: build, push, and the outputs on the wire.
func (p *provider) buildAndPushMarshalled(ctx context.Context, urn string, props resource.PropertyMap, preview bool) (string, *structpb.Struct, error) {
	id, outs, err := p.buildAndPush(ctx, urn, props, preview)
	if err != nil {
		return "", nil, err
	}
	s, err := marshal(outs)
	return id, s, err
}

func (p *provider) Create(ctx context.Context, req *pulumirpc.CreateRequest) (*pulumirpc.CreateResponse, error) {
	props, err := imageProperties(req.GetType(), req.GetUrn(), req.GetProperties())
	if err != nil {
		return nil, err
	}
	id, s, err := p.buildAndPushMarshalled(ctx, req.GetUrn(), props, req.GetPreview())
	if err != nil {
		return nil, err
	}
	return &pulumirpc.CreateResponse{Id: id, Properties: s}, nil
}

func (p *provider) Update(ctx context.Context, req *pulumirpc.UpdateRequest) (*pulumirpc.UpdateResponse, error) {
	news, err := imageProperties(req.GetType(), req.GetUrn(), req.GetNews())
	if err != nil {
		return nil, err
	}
	_, s, err := p.buildAndPushMarshalled(ctx, req.GetUrn(), news, req.GetPreview())
	if err != nil {
		return nil, err
	}
	return &pulumirpc.UpdateResponse{Properties: s}, nil
}

// Read returns the recorded state: the image is not looked up again.
func (p *provider) Read(_ context.Context, req *pulumirpc.ReadRequest) (*pulumirpc.ReadResponse, error) {
	if err := onlyImage(req.GetType(), req.GetUrn()); err != nil {
		return nil, err
	}
	return &pulumirpc.ReadResponse{Id: req.GetId(), Properties: req.GetProperties(), Inputs: req.GetInputs()}, nil
}

// Delete leaves the image and its tags alone, as the real provider does.
func (p *provider) Delete(context.Context, *pulumirpc.DeleteRequest) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

func (p *provider) Cancel(context.Context, *emptypb.Empty) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

func (p *provider) buildAndPush(ctx context.Context, urn string, props resource.PropertyMap, preview bool) (string, resource.PropertyMap, error) {
	in, failures := readImageInputs(props)
	if len(failures) > 0 {
		msgs := make([]string, 0, len(failures))
		for _, f := range failures {
			msgs = append(msgs, f.GetProperty()+": "+f.GetReason())
		}
		return "", nil, fmt.Errorf("invalid Image inputs: %s", strings.Join(msgs, "; "))
	}
	outs := resource.PropertyMap{}
	for k, v := range props {
		outs[k] = v
	}
	unknown := resource.MakeComputed(resource.NewStringProperty(""))
	outs["baseImageName"] = resource.NewStringProperty(in.imageName)
	outs["imageName"] = resource.NewStringProperty(in.imageName)
	outs["registryServer"] = resource.NewStringProperty(in.registryServer())
	outs["context"] = resource.NewStringProperty(in.context)
	outs["dockerfile"] = resource.NewStringProperty(in.dockerfile)
	if in.platform != "" {
		outs["platform"] = resource.NewStringProperty(in.platform)
	}
	if preview {
		outs["repoDigest"] = unknown
		if !in.contextKnown {
			outs["context"] = unknown
			outs["dockerfile"] = unknown
		}
		return "", outs, nil
	}
	d, err := newDockerClient(p.dockerHost)
	if err != nil {
		return "", nil, err
	}
	imageID, err := d.build(ctx, in)
	if err != nil {
		return "", nil, err
	}
	repoDigest := ""
	if in.skipPush {
		repoDigest, _ = d.localRepoDigest(ctx, in.imageName)
	} else {
		repo, _ := splitImageName(in.imageName)
		pushed, err := d.push(ctx, in)
		if err != nil {
			return "", nil, err
		}
		if pushed != "" {
			repoDigest = repo + "@" + pushed
		} else {
			p.warn(ctx, urn, pushWarning)
			info, err := d.inspect(ctx, in.imageName)
			if err != nil {
				return "", nil, fmt.Errorf("docker push of %s: pushed, but the image cannot be inspected: %w", in.imageName, err)
			}
			repoDigest = fallbackRepoDigest(repo, *info)
		}
	}
	outs["repoDigest"] = resource.NewStringProperty(repoDigest)
	return imageID, outs, nil
}
