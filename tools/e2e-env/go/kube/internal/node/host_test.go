package node

import (
	"net/netip"
	"reflect"
	"testing"
)

const procNetRoute = `Iface	Destination	Gateway 	Flags	RefCnt	Use	Metric	Mask		MTU	Window	IRTT
eth0	00000000	010200C0	0003	0	0	0	00000000	0	0	0
eth0	000200C0	00000000	0001	0	0	0	00FFFFFF	0	0	0
tfse2e0	0000D50A	00000000	0001	0	0	0	00FFFFFF	0	0	0
`

func TestParseRoutes(t *testing.T) {
	routes, err := ParseRoutes(procNetRoute)
	if err != nil {
		t.Fatal(err)
	}
	want := []Route{
		{"eth0", netip.MustParsePrefix("0.0.0.0/0")},
		{"eth0", netip.MustParsePrefix("192.0.2.0/24")},
		{"tfse2e0", netip.MustParsePrefix("10.213.0.0/24")},
	}
	if !reflect.DeepEqual(routes, want) {
		t.Fatalf("got %v", routes)
	}
}

func TestCollision(t *testing.T) {
	routes, _ := ParseRoutes(procNetRoute)
	subnet := netip.MustParsePrefix("10.213.0.0/24")
	addrs := map[string][]netip.Prefix{
		"lo":      {netip.MustParsePrefix("127.0.0.1/8")},
		"eth0":    {netip.MustParsePrefix("192.0.2.2/24")},
		"tfse2e0": {netip.MustParsePrefix("10.213.0.1/24")},
	}
	if c := Collision(subnet, "tfse2e0", routes, addrs); c != "" {
		t.Fatalf("our own bridge and the default route collide with nothing, got %q", c)
	}
	if c := Collision(netip.MustParsePrefix("192.0.2.128/25"), "tfse2e0", routes, addrs); c == "" {
		t.Fatal("a subnet inside eth0's network was accepted")
	}
	addrs["podman0"] = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	if c := Collision(subnet, "tfse2e0", nil, addrs); c != "address 10.0.0.0/8 on podman0" {
		t.Fatalf("got %q", c)
	}
}

func TestParseCgroupMounts(t *testing.T) {
	info := `25 1 254:0 / / rw,relatime - ext4 /dev/vda rw
30 25 0:26 / /sys/fs/cgroup rw - tmpfs tmpfs rw,mode=755
31 30 0:27 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
32 30 0:28 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
33 30 0:29 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`
	got := ParseCgroupMounts(info)
	want := []string{"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/memory", "/sys/fs/cgroup/unified"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v", got)
	}
}

func TestWithin(t *testing.T) {
	cases := map[[2]string]bool{
		{"/run/x", "/run"}: true, {"/run", "/run"}: true, {"/running", "/run"}: false, {"/root/.cache", "/run"}: false,
	}
	for c, want := range cases {
		if within(c[0], c[1]) != want {
			t.Errorf("within(%q, %q) != %v", c[0], c[1], want)
		}
	}
}
