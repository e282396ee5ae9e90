package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/structpb"
)

const registryDigestValue = "sha256:1111111111111111111111111111111111111111111111111111111111111111"

// fakeRegistry answers manifest requests for team/model:ctx-1 the way a v2
// registry does: only with a manifest media type accepted, only with the
// login (when user is set), and HEAD without a body.
func fakeRegistry(t *testing.T, user, password string) (*httptest.Server, *[]string) {
	t.Helper()
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Method+" "+r.URL.Path)
		if user != "" {
			u, p, ok := r.BasicAuth()
			if !ok || u != user || p != password {
				w.Header().Set("WWW-Authenticate", `Basic realm="registry"`)
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
		}
		if r.URL.Path != "/v2/team/model/manifests/ctx-1" {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		if !strings.Contains(r.Header.Get("Accept"), "application/vnd.oci.image.manifest.v1+json") ||
			!strings.Contains(r.Header.Get("Accept"), "application/vnd.docker.distribution.manifest.v2+json") {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		w.Header().Set("Docker-Content-Digest", registryDigestValue)
		w.Header().Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	return srv, &seen
}

func hostOf(srv *httptest.Server) string {
	return strings.TrimPrefix(srv.URL, "http://")
}

func TestRegistryDigestAsksTheRegistryForTheTag(t *testing.T) {
	srv, seen := fakeRegistry(t, "ci", "s3cret")
	got, err := registryDigest(context.Background(), hostOf(srv), "team/model", "ctx-1", "ci", "s3cret")
	if err != nil || got != registryDigestValue {
		t.Fatalf("got %q, %v; want %s", got, err, registryDigestValue)
	}
	if len(*seen) != 1 || (*seen)[0] != "HEAD /v2/team/model/manifests/ctx-1" {
		t.Fatalf("one HEAD for the manifest expected, got %v", *seen)
	}
	if _, err := registryDigest(context.Background(), hostOf(srv), "team/model", "ctx-1", "", ""); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("without the login the registry refuses: want a 401 error, got %v", err)
	}
	if _, err := registryDigest(context.Background(), hostOf(srv), "team/model", "ctx-2", "ci", "s3cret"); err == nil ||
		!strings.Contains(err.Error(), "team/model:ctx-2") || !strings.Contains(err.Error(), "404") {
		t.Fatalf("an unknown tag must fail naming it, got %v", err)
	}
}

func TestRegistryAuthFromConfiguration(t *testing.T) {
	text := `[{"address":"https://registry.internal:5000","username":"ci","password":"s3cret"}]`
	for _, v := range []resource.PropertyValue{
		resource.NewStringProperty(text),
		resource.MakeSecret(resource.NewStringProperty(text)),
		resource.NewArrayProperty([]resource.PropertyValue{resource.NewObjectProperty(resource.PropertyMap{
			"address": resource.NewStringProperty("registry.internal:5000"), "username": resource.NewStringProperty("ci"), "password": resource.NewStringProperty("s3cret"),
		})}),
	} {
		logins, err := registryAuthFrom(v)
		if err != nil || logins["registry.internal:5000"] != (registryLogin{Address: logins["registry.internal:5000"].Address, Username: "ci", Password: "s3cret"}) {
			t.Fatalf("%v: got %+v, %v", v, logins, err)
		}
	}
	if logins, err := registryAuthFrom(resource.NewNullProperty()); err != nil || len(logins) != 0 {
		t.Fatalf("no registryAuth means no logins, got %v %v", logins, err)
	}
	if _, err := registryAuthFrom(resource.NewStringProperty(`[{"username":"ci"}]`)); err == nil || !strings.Contains(err.Error(), "address") {
		t.Fatalf("an entry without address must be refused naming it, got %v", err)
	}
}

func TestImageReference(t *testing.T) {
	host, path, ref, err := imageReference("localhost:5001/e2e-x/half-plus-two:ctx-0123456789abcdef")
	if err != nil || host != "localhost:5001" || path != "e2e-x/half-plus-two" || ref != "ctx-0123456789abcdef" {
		t.Fatalf("got %s %s %s %v", host, path, ref, err)
	}
	if _, _, ref, _ := imageReference("r.example/m@" + registryDigestValue); ref != registryDigestValue {
		t.Fatalf("a digest reference is kept, got %s", ref)
	}
	if _, _, _, err := imageReference("busybox:1"); err == nil || !strings.Contains(err.Error(), "registry host") {
		t.Fatalf("a name without a registry host must be refused, got %v", err)
	}
}

func invokeArgs(t *testing.T, name string) *structpb.Struct {
	t.Helper()
	s, err := marshal(resource.PropertyMap{"name": resource.NewStringProperty(name)})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestInvokeGetRegistryImageWithTheConfiguredLogin(t *testing.T) {
	srv, _ := fakeRegistry(t, "ci", "s3cret")
	p := &provider{}
	auth, _ := json.Marshal([]registryLogin{{Address: hostOf(srv), Username: "ci", Password: "s3cret"}})
	if _, err := p.Configure(context.Background(), &pulumirpc.ConfigureRequest{
		Variables: map[string]string{"docker:config:registryAuth": string(auth)},
	}); err != nil {
		t.Fatal(err)
	}
	name := hostOf(srv) + "/team/model:ctx-1"
	resp, err := p.Invoke(context.Background(), &pulumirpc.InvokeRequest{Tok: getRegistryImageToken, Args: invokeArgs(t, name)})
	if err != nil || len(resp.GetFailures()) != 0 {
		t.Fatalf("invoke failed: %v %v", err, resp.GetFailures())
	}
	outs, err := unmarshal(resp.GetReturn())
	if err != nil {
		t.Fatal(err)
	}
	if outs["sha256Digest"].StringValue() != registryDigestValue || outs["name"].StringValue() != name {
		t.Fatalf("got %v", outs)
	}

	resp, err = p.Invoke(context.Background(), &pulumirpc.InvokeRequest{Tok: getRegistryImageToken, Args: invokeArgs(t, hostOf(srv)+"/team/model:gone")})
	if err != nil || len(resp.GetFailures()) != 1 || !strings.Contains(resp.GetFailures()[0].GetReason(), "team/model:gone") {
		t.Fatalf("a missing tag must come back as a failure naming it, got %v %v", err, resp.GetFailures())
	}
	if _, err := p.Invoke(context.Background(), &pulumirpc.InvokeRequest{Tok: "docker:index/getNetwork:getNetwork"}); err == nil {
		t.Fatal("other functions must be refused")
	}
}
