// Command pulumi-language-yaml is this environment's YAML language host:
// pulumi-yaml v1.25.0's own host (github.com/pulumi/pulumi-yaml/pkg/server),
// served by this small main, which answers one call itself.
//
// The Pulumi CLI calls the language host's Link after `pulumi package add`
// generated a package for the program's language; v1.25.0 (the version the Go
// module proxy serves) does not implement it, so the call fails with
// Unimplemented and `pulumi package add` with it. A YAML program has no SDK to
// link: it names a package's types by their tokens and the engine loads the
// package's schema itself (the `packages` entry `pulumi package add` writes to
// Pulumi.yaml). Link therefore answers with nothing to do, as later pulumi-yaml
// releases do. Every other call goes to upstream's host unchanged; the host is
// made with its RPC schema loader on (see newHost).
//
// The engine starts it as `pulumi-language-yaml [flags] ENGINE_ADDRESS` and
// reads the port it listens on from its first line of standard output.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/pulumi/pulumi-yaml/pkg/server"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
)

// host is upstream's language host with Link answered here.
type host struct {
	pulumirpc.LanguageRuntimeServer
}

// newHost is upstream's host with its RPC schema loader on: a program's
// packages are loaded through the engine (the loader the CLI passes with each
// call), as upstream's own language tests run it, not by a plugin host inside
// this process, which would look for the packages' language hosts (a
// component package's `runtime: nodejs`) beside this executable only (the
// environment ignores PATH: PULUMI_IGNORE_AMBIENT_PLUGINS) and so miss the
// CLI's, which lives in another bundle.
func newHost(engineAddress, tracing string) *host {
	return &host{server.NewLanguageHost(engineAddress, tracing, true)}
}

// Link has nothing to link into a YAML program: no files change, and there is
// no import to show.
func (h *host) Link(context.Context, *pulumirpc.LinkRequest) (*pulumirpc.LinkResponse, error) {
	return &pulumirpc.LinkResponse{}, nil
}

func main() {
	tracing := flag.String("tracing", "", "emit tracing to a Zipkin-compatible endpoint")
	flag.String("root", "", "root of the program (unused, accepted as upstream's host does)")
	flag.String("compiler", "", "obsolete, accepted as upstream's host does")
	flag.Parse()

	engineAddress := flag.Arg(0)
	var cancel chan bool
	if engineAddress != "" {
		// Stop when the engine stops answering, or on SIGINT.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		cancel = make(chan bool)
		go func() {
			<-ctx.Done()
			stop()
			close(cancel)
		}()
		if err := rpcutil.Healthcheck(ctx, engineAddress, 5*time.Minute, stop); err != nil {
			fail("could not start the engine health check: %v", err)
		}
	}

	h := newHost(engineAddress, *tracing)
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Cancel: cancel,
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, h)
			return nil
		},
	})
	if err != nil {
		fail("could not start the gRPC server: %v", err)
	}
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		fail("gRPC server stopped: %v", err)
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "pulumi-language-yaml: "+format+"\n", args...)
	os.Exit(1)
}
