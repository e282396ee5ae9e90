package lb

import (
	"bufio"
	"net"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"
)

var podSubnet = []netip.Prefix{netip.MustParsePrefix("10.213.0.0/24")}

func ap(s string) netip.AddrPort { return netip.MustParseAddrPort(s) }

func TestSelectTakesTheReadyEndpointsInsideThePodSubnet(t *testing.T) {
	got := Select([]Endpoint{
		{Addr: ap("10.213.0.5:8501"), Ready: true, Serving: true},
		{Addr: ap("10.213.0.3:8501"), Ready: true, Serving: true},
		{Addr: ap("10.213.0.3:8501"), Ready: true, Serving: true}, // in two slices
		{Addr: ap("10.213.0.4:8501"), Ready: false, Serving: true, Terminating: true},
		{Addr: ap("10.213.0.6:8501"), Ready: false, Serving: false}, // starting: not ready yet
		{Addr: ap("10.0.0.7:8501"), Ready: true, Serving: true},     // a kwok pod's made-up IP
	}, podSubnet)
	want := []netip.AddrPort{ap("10.213.0.3:8501"), ap("10.213.0.5:8501")}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestSelectFallsBackToTerminatingEndpointsThatStillServe(t *testing.T) {
	got := Select([]Endpoint{
		{Addr: ap("10.213.0.4:8501"), Serving: true, Terminating: true},
		{Addr: ap("10.213.0.8:8501"), Serving: false, Terminating: true},
	}, podSubnet)
	if !reflect.DeepEqual(got, []netip.AddrPort{ap("10.213.0.4:8501")}) {
		t.Fatalf("got %v", got)
	}
	if got := Select(nil, podSubnet); len(got) != 0 {
		t.Fatalf("no endpoints gave %v", got)
	}
	if got := Select([]Endpoint{{Addr: ap("10.213.0.4:8501"), Ready: true}}, nil); len(got) != 0 {
		t.Fatalf("nothing is allowed without a pod subnet, got %v", got)
	}
}

func TestSourceRanges(t *testing.T) {
	lo := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	if !SourceAllowed(netip.MustParseAddr("127.0.0.1"), lo) || SourceAllowed(netip.MustParseAddr("192.0.2.2"), lo) {
		t.Fatal("127.0.0.0/8 must admit loopback only")
	}
	if !SourceAllowed(netip.MustParseAddr("::ffff:127.0.0.1"), lo) {
		t.Fatal("an IPv4-mapped client counts as IPv4")
	}
	if !SourceAllowed(netip.MustParseAddr("192.0.2.2"), nil) {
		t.Fatal("no ranges: open")
	}
}

func TestPoolRoundRobin(t *testing.T) {
	var p Pool
	p.Set([]netip.AddrPort{ap("10.213.0.2:1"), ap("10.213.0.3:1")})
	first, second, third := p.Order(), p.Order(), p.Order()
	if first[0] != ap("10.213.0.2:1") || second[0] != ap("10.213.0.3:1") || third[0] != first[0] || len(first) != 2 {
		t.Fatalf("orders %v %v %v", first, second, third)
	}
	if p.Set([]netip.AddrPort{ap("10.213.0.2:1"), ap("10.213.0.3:1")}) {
		t.Fatal("the same set reported as a change")
	}
	if len((&Pool{}).Order()) != 0 {
		t.Fatal("empty pool")
	}
}

// backend is a stand-in pod: it answers every line with its name.
func backend(t *testing.T, name string) netip.AddrPort {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					if _, err := r.ReadString('\n'); err != nil {
						return
					}
					if _, err := c.Write([]byte(name + "\n")); err != nil {
						return
					}
				}
			}()
		}
	}()
	return netip.MustParseAddrPort(ln.Addr().String())
}

type client struct {
	c net.Conn
	r *bufio.Reader
}

func dial(t *testing.T, addr string) *client {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &client{c, bufio.NewReader(c)}
}

func (c *client) ask() (string, error) {
	_ = c.c.SetDeadline(time.Now().Add(3 * time.Second))
	if _, err := c.c.Write([]byte("who\n")); err != nil {
		return "", err
	}
	s, err := c.r.ReadString('\n')
	return strings.TrimSpace(s), err
}

func freePort(t *testing.T) netip.AddrPort {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return netip.MustParseAddrPort(ln.Addr().String())
}

func TestTableSwitchesNewConnectionsAndKeepsOpenOnes(t *testing.T) {
	oldPod, newPod := backend(t, "old"), backend(t, "new")
	table := NewTable(t.Logf)
	defer table.Close()
	lbAddr := freePort(t)
	if _, err := table.Sync("ns/svc", map[netip.AddrPort]Spec{lbAddr: {Backends: []netip.AddrPort{oldPod}}}); err != nil {
		t.Fatal(err)
	}
	pinned := dial(t, lbAddr.String())
	if got, err := pinned.ask(); err != nil || got != "old" {
		t.Fatalf("first answer %q, %v", got, err)
	}

	// The rollout: the new pod becomes ready, the old one leaves the set.
	changes, err := table.Sync("ns/svc", map[netip.AddrPort]Spec{lbAddr: {Backends: []netip.AddrPort{newPod}}})
	if err != nil || len(changes) != 1 {
		t.Fatalf("changes %v, %v", changes, err)
	}
	for i := 0; i < 3; i++ {
		if got, err := dial(t, lbAddr.String()).ask(); err != nil || got != "new" {
			t.Fatalf("new connection %d answered %q, %v", i, got, err)
		}
	}
	if got, err := pinned.ask(); err != nil || got != "old" {
		t.Fatalf("the open connection moved: %q, %v", got, err)
	}

	// No ready endpoint: connections are accepted and closed at once.
	if _, err := table.Sync("ns/svc", map[netip.AddrPort]Spec{lbAddr: {}}); err != nil {
		t.Fatal(err)
	}
	if got, err := dial(t, lbAddr.String()).ask(); err == nil {
		t.Fatalf("answered %q with no endpoint", got)
	}

	// Gone: the address is free again.
	table.Forget("ns/svc")
	if _, ok := table.Backends(lbAddr); ok {
		t.Fatal("still listed")
	}
	if c, err := net.DialTimeout("tcp", lbAddr.String(), time.Second); err == nil {
		c.Close()
		t.Fatal("still listening")
	}
}

func TestTableSkipsABackendThatRefuses(t *testing.T) {
	gone := freePort(t) // nothing listens there any more
	alive := backend(t, "alive")
	table := NewTable(t.Logf)
	defer table.Close()
	lbAddr := freePort(t)
	if _, err := table.Sync("ns/svc", map[netip.AddrPort]Spec{lbAddr: {Backends: []netip.AddrPort{gone, alive}}}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		if got, err := dial(t, lbAddr.String()).ask(); err != nil || got != "alive" {
			t.Fatalf("connection %d: %q, %v", i, got, err)
		}
	}
}

func TestTableRefusesAClientOutsideTheSourceRanges(t *testing.T) {
	pod := backend(t, "pod")
	table := NewTable(t.Logf)
	defer table.Close()
	lbAddr := freePort(t)
	only := []netip.Prefix{netip.MustParsePrefix("10.9.0.0/16")}
	if _, err := table.Sync("ns/svc", map[netip.AddrPort]Spec{lbAddr: {Backends: []netip.AddrPort{pod}, SourceRanges: only}}); err != nil {
		t.Fatal(err)
	}
	if got, err := dial(t, lbAddr.String()).ask(); err == nil {
		t.Fatalf("a loopback client got %q through a 10.9.0.0/16-only load balancer", got)
	}
}

func TestTableAddressBelongsToOneService(t *testing.T) {
	table := NewTable(t.Logf)
	defer table.Close()
	lbAddr := freePort(t)
	if _, err := table.Sync("a/one", map[netip.AddrPort]Spec{lbAddr: {}}); err != nil {
		t.Fatal(err)
	}
	if _, err := table.Sync("b/two", map[netip.AddrPort]Spec{lbAddr: {}}); err == nil || !strings.Contains(err.Error(), "a/one") {
		t.Fatalf("a second Service took the address: %v", err)
	}
}

func TestAllocatorGivesEachServiceItsOwnAddress(t *testing.T) {
	a := NewAllocator(netip.MustParsePrefix("127.0.100.0/24"))
	one, _ := a.Assign("ns/one", netip.Addr{})
	two, _ := a.Assign("ns/two", netip.Addr{})
	if one.String() != "127.0.100.1" || two.String() != "127.0.100.2" {
		t.Fatalf("%v %v", one, two)
	}
	if again, _ := a.Assign("ns/one", netip.Addr{}); again != one {
		t.Fatalf("reassigned %v", again)
	}
	// A restarted controller keeps what the Service's status already says.
	kept, _ := a.Assign("ns/three", netip.MustParseAddr("127.0.100.9"))
	if kept.String() != "127.0.100.9" {
		t.Fatalf("kept %v", kept)
	}
	// Taken or outside the range: a fresh one.
	dup, _ := a.Assign("ns/four", netip.MustParseAddr("127.0.100.9"))
	out, _ := a.Assign("ns/five", netip.MustParseAddr("127.0.0.1"))
	if dup.String() != "127.0.100.3" || out.String() != "127.0.100.4" {
		t.Fatalf("%v %v", dup, out)
	}
	a.Release("ns/one")
	if reuse, _ := a.Assign("ns/six", netip.Addr{}); reuse != one {
		t.Fatalf("released address not reused: %v", reuse)
	}
	small := NewAllocator(netip.MustParsePrefix("127.0.101.0/31"))
	if _, err := small.Assign("a", netip.Addr{}); err != nil {
		t.Fatal(err)
	}
	if _, err := small.Assign("b", netip.Addr{}); err == nil {
		t.Fatal("a full range handed out an address")
	}
}
