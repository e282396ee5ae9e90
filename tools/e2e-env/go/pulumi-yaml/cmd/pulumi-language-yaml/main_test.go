package main

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/pulumi/pulumi-yaml/pkg/version"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/emptypb"
)

// client serves the host on a loopback port, as the engine reaches it.
func client(t *testing.T) pulumirpc.LanguageRuntimeClient {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	pulumirpc.RegisterLanguageRuntimeServer(srv, newHost("", ""))
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return pulumirpc.NewLanguageRuntimeClient(conn)
}

func TestLinkAnswersWithAnEmptyResponse(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := client(t).Link(ctx, &pulumirpc.LinkRequest{
		Info:     &pulumirpc.ProgramInfo{RootDirectory: t.TempDir(), ProgramDirectory: t.TempDir(), EntryPoint: "."},
		Packages: []*pulumirpc.LinkRequest_LinkDependency{{Path: "sdks/tf-serving"}},
	})
	if err != nil {
		t.Fatalf("Link: %v (upstream v1.25.0 answers Unimplemented; the wrapper must answer itself)", err)
	}
	if res.GetImportInstructions() != "" {
		t.Errorf("Link's instructions: got %q, want none", res.GetImportInstructions())
	}
}

func TestOtherCallsReachUpstreamsHost(t *testing.T) {
	version.Version = "1.25.0" // the build's ldflags set it
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	info, err := client(t).GetPluginInfo(ctx, &emptypb.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	if info.GetVersion() != "1.25.0" {
		t.Errorf("GetPluginInfo: got version %q, want upstream's 1.25.0", info.GetVersion())
	}
}
