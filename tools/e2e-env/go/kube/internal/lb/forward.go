// Package lb is the data plane of the environment's loopback load balancer:
// each LoadBalancer Service port listens on the Service's own loopback
// address and forwards every new TCP connection to one of the Service's
// ready endpoints, as a cloud's L4 load balancer does. Connections already
// open stay with their endpoint until either side closes them (so an HTTP
// keep-alive or gRPC connection is pinned to one pod, as behind a cloud
// load balancer).
package lb

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"slices"
	"sync"
	"time"
)

// Endpoint is one address of a Service port, with the EndpointSlice
// conditions (nil conditions already resolved by the caller: ready and
// serving default to true, terminating to false).
type Endpoint struct {
	Addr        netip.AddrPort
	Ready       bool
	Serving     bool
	Terminating bool
}

// Select returns the endpoints new connections go to, as kube-proxy picks
// them: the ready ones; when none is ready, those still serving while they
// terminate (a pod in its preStop pause still answers). Only addresses inside
// allowed are ever used (the pod subnet: a simulated node's made-up pod IPs
// must never be dialled). Sorted, without duplicates.
func Select(eps []Endpoint, allowed []netip.Prefix) []netip.AddrPort {
	inside := func(a netip.Addr) bool {
		for _, p := range allowed {
			if p.Contains(a) {
				return true
			}
		}
		return false
	}
	var ready, terminating []netip.AddrPort
	for _, e := range eps {
		if !inside(e.Addr.Addr()) {
			continue
		}
		switch {
		case e.Ready:
			ready = append(ready, e.Addr)
		case e.Serving && e.Terminating:
			terminating = append(terminating, e.Addr)
		}
	}
	out := ready
	if len(out) == 0 {
		out = terminating
	}
	slices.SortFunc(out, func(a, b netip.AddrPort) int { return a.Compare(b) })
	return slices.Compact(out)
}

// SourceAllowed applies a Service's loadBalancerSourceRanges (empty: open).
func SourceAllowed(src netip.Addr, ranges []netip.Prefix) bool {
	if len(ranges) == 0 {
		return true
	}
	src = src.Unmap()
	for _, r := range ranges {
		if r.Contains(src) {
			return true
		}
	}
	return false
}

// Pool is a round-robin set of backends that can be replaced at any time.
type Pool struct {
	mu      sync.Mutex
	addrs   []netip.AddrPort
	sources []netip.Prefix
	next    int
}

// Set replaces the backends; it says whether they changed.
func (p *Pool) Set(addrs []netip.AddrPort) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if slices.Equal(p.addrs, addrs) {
		return false
	}
	p.addrs = slices.Clone(addrs)
	p.next = 0
	return true
}

// SetSources replaces the allowed client ranges.
func (p *Pool) SetSources(ranges []netip.Prefix) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sources = slices.Clone(ranges)
}

// Order is the order in which a new connection tries the backends: the next
// one in turn first, then the others (a backend that refuses is skipped).
func (p *Pool) Order() []netip.AddrPort {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.addrs)
	out := make([]netip.AddrPort, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, p.addrs[(p.next+i)%n])
	}
	if n > 0 {
		p.next = (p.next + 1) % n
	}
	return out
}

func (p *Pool) allows(src netip.Addr) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return SourceAllowed(src, p.sources)
}

// Listener forwards one loopback address and port to a Pool.
type Listener struct {
	ln    net.Listener
	pool  *Pool
	logf  func(string, ...any)
	mu    sync.Mutex
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// DialTimeout bounds the connection to one backend.
var DialTimeout = 2 * time.Second

// Listen starts forwarding addr to pool.
func Listen(addr netip.AddrPort, pool *Pool, logf func(string, ...any)) (*Listener, error) {
	ln, err := net.Listen("tcp", addr.String())
	if err != nil {
		return nil, err
	}
	l := &Listener{ln: ln, pool: pool, logf: logf, conns: map[net.Conn]struct{}{}}
	l.wg.Add(1)
	go l.serve()
	return l, nil
}

// Addr is where the listener accepts.
func (l *Listener) Addr() net.Addr { return l.ln.Addr() }

func (l *Listener) serve() {
	defer l.wg.Done()
	for {
		c, err := l.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(50 * time.Millisecond)
			continue
		}
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			l.forward(c)
		}()
	}
}

func (l *Listener) track(c net.Conn, on bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if on {
		l.conns[c] = struct{}{}
	} else {
		delete(l.conns, c)
	}
}

func (l *Listener) forward(client net.Conn) {
	l.track(client, true)
	defer l.track(client, false)
	defer client.Close()
	src, _ := netip.ParseAddrPort(client.RemoteAddr().String())
	if !l.pool.allows(src.Addr()) {
		l.logf("%s: refused %s (not in loadBalancerSourceRanges)", l.ln.Addr(), src)
		return
	}
	var backend net.Conn
	var tried []string
	for _, b := range l.pool.Order() {
		c, err := net.DialTimeout("tcp", b.String(), DialTimeout)
		if err == nil {
			backend = c
			break
		}
		tried = append(tried, fmt.Sprintf("%s (%v)", b, err))
	}
	if backend == nil {
		if len(tried) == 0 {
			l.logf("%s: no ready endpoint for %s", l.ln.Addr(), src)
		} else {
			l.logf("%s: no endpoint answered for %s: %v", l.ln.Addr(), src, tried)
		}
		return
	}
	l.track(backend, true)
	defer l.track(backend, false)
	defer backend.Close()
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		if tc, ok := dst.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
		done <- struct{}{}
	}
	go pipe(backend, client)
	go pipe(client, backend)
	<-done
	<-done
}

// Close stops accepting and ends the connections in flight (the Service is
// gone or no longer a load balancer).
func (l *Listener) Close() {
	_ = l.ln.Close()
	l.mu.Lock()
	for c := range l.conns {
		_ = c.Close()
	}
	l.mu.Unlock()
	l.wg.Wait()
}
