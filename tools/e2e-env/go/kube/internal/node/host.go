package node

// The node's footprint in the host's namespaces: one bridge with its own
// address, and one cgroup in every hierarchy. Both are made before the
// daemons start and removed after every process in them has gone.

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Route is one IPv4 route of the host's main table (/proc/net/route).
type Route struct {
	Device string
	Prefix netip.Prefix
}

// ParseRoutes reads /proc/net/route's text: destination and mask are
// little-endian hex.
func ParseRoutes(text string) ([]Route, error) {
	var routes []Route
	sc := bufio.NewScanner(strings.NewReader(text))
	for first := true; sc.Scan(); first = false {
		f := strings.Fields(sc.Text())
		if first || len(f) < 8 {
			continue
		}
		dst, err := hexIPv4(f[1])
		if err != nil {
			return nil, fmt.Errorf("route %q: %w", sc.Text(), err)
		}
		mask, err := hexIPv4(f[7])
		if err != nil {
			return nil, fmt.Errorf("route %q: %w", sc.Text(), err)
		}
		ones, _ := net.IPMask(mask.AsSlice()).Size()
		routes = append(routes, Route{Device: f[0], Prefix: netip.PrefixFrom(dst, ones).Masked()})
	}
	return routes, sc.Err()
}

func hexIPv4(s string) (netip.Addr, error) {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 4 {
		return netip.Addr{}, fmt.Errorf("not a hex IPv4 word: %q", s)
	}
	var a [4]byte
	binary.BigEndian.PutUint32(a[:], binary.LittleEndian.Uint32(b))
	return netip.AddrFrom4(a), nil
}

// Collision names what on the host already uses addresses of subnet: an
// interface address or a route, other than the bridge's own (a default
// route, /0, collides with nothing).
func Collision(subnet netip.Prefix, bridge string, routes []Route, addrs map[string][]netip.Prefix) string {
	for _, r := range routes {
		if r.Device == bridge || r.Prefix.Bits() == 0 {
			continue
		}
		if r.Prefix.Overlaps(subnet) {
			return fmt.Sprintf("route %v via %s", r.Prefix, r.Device)
		}
	}
	for dev, list := range addrs {
		if dev == bridge {
			continue
		}
		for _, a := range list {
			if a.Overlaps(subnet) {
				return fmt.Sprintf("address %v on %s", a, dev)
			}
		}
	}
	return ""
}

func hostAddrs() (map[string][]netip.Prefix, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	out := map[string][]netip.Prefix{}
	for _, i := range ifs {
		addrs, err := i.Addrs()
		if err != nil {
			return nil, err
		}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok {
				if p, err := netip.ParsePrefix(n.String()); err == nil {
					out[i.Name] = append(out[i.Name], p)
				}
			}
		}
	}
	return out, nil
}

// CheckSubnet fails when the pod subnet would collide with the host's networks.
func CheckSubnet(s Settings) error {
	text, err := os.ReadFile("/proc/net/route")
	if err != nil {
		return err
	}
	routes, err := ParseRoutes(string(text))
	if err != nil {
		return err
	}
	addrs, err := hostAddrs()
	if err != nil {
		return err
	}
	if what := Collision(s.PodSubnet, s.Bridge, routes, addrs); what != "" {
		return fmt.Errorf("pod subnet %v collides with %s on this host: choose another (TFS_E2E_POD_SUBNET)", s.PodSubnet, what)
	}
	return nil
}

func ip(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// EnsureBridge creates the bridge with its own address (which also adds the
// subnet's connected route through it) and brings it up.
func EnsureBridge(s Settings) error {
	if _, err := net.InterfaceByName(s.Bridge); err != nil {
		if err := ip("link", "add", s.Bridge, "type", "bridge"); err != nil {
			return err
		}
	}
	addrs, _ := hostAddrs()
	want := netip.PrefixFrom(s.BridgeAddr(), s.PodSubnet.Bits())
	has := false
	for _, a := range addrs[s.Bridge] {
		has = has || a == want
	}
	if !has {
		if err := ip("addr", "add", want.String(), "dev", s.Bridge); err != nil {
			return err
		}
	}
	return ip("link", "set", s.Bridge, "up")
}

// RemoveBridge deletes the bridge (and with it its address and route).
func RemoveBridge(s Settings) error {
	if _, err := net.InterfaceByName(s.Bridge); err != nil {
		return nil
	}
	return ip("link", "del", s.Bridge)
}

// CgroupMounts lists the mount points of every cgroup hierarchy (v1 and the
// hybrid layout's unified one) from /proc/self/mountinfo.
func CgroupMounts() ([]string, error) {
	text, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	return ParseCgroupMounts(string(text)), nil
}

// ParseCgroupMounts picks the cgroup and cgroup2 mount points of a mountinfo text.
func ParseCgroupMounts(mountinfo string) []string {
	var out []string
	for _, line := range strings.Split(mountinfo, "\n") {
		left, right, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		lf, rf := strings.Fields(left), strings.Fields(right)
		if len(lf) < 5 || len(rf) < 1 {
			continue
		}
		if rf[0] == "cgroup" || rf[0] == "cgroup2" {
			out = append(out, lf[4])
		}
	}
	return out
}

// EnsureCgroups makes the cgroup root in every hierarchy; cpuset needs its
// cpus and mems copied from the parent before anything can join.
func EnsureCgroups(root string) error {
	mounts, err := CgroupMounts()
	if err != nil {
		return err
	}
	for _, m := range mounts {
		dir := filepath.Join(m, root)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("cgroup %s: %w", dir, err)
		}
		for _, f := range []string{"cpuset.cpus", "cpuset.mems"} {
			parent, err := os.ReadFile(filepath.Join(m, f))
			if err != nil {
				continue // not the cpuset hierarchy
			}
			cur, _ := os.ReadFile(filepath.Join(dir, f))
			if strings.TrimSpace(string(cur)) == "" {
				if err := os.WriteFile(filepath.Join(dir, f), parent, 0o644); err != nil {
					return fmt.Errorf("cgroup %s/%s: %w", dir, f, err)
				}
			}
		}
	}
	return nil
}

// CgroupProcs lists every process in the cgroup root's subtrees.
func CgroupProcs(root string) ([]int, error) {
	mounts, err := CgroupMounts()
	if err != nil {
		return nil, err
	}
	seen := map[int]bool{}
	var pids []int
	for _, m := range mounts {
		_ = filepath.WalkDir(filepath.Join(m, root), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() != "cgroup.procs" {
				return nil
			}
			text, _ := os.ReadFile(path)
			for _, f := range strings.Fields(string(text)) {
				if p, err := strconv.Atoi(f); err == nil && !seen[p] {
					seen[p] = true
					pids = append(pids, p)
				}
			}
			return nil
		})
	}
	return pids, nil
}

// RemoveCgroups kills whatever still runs under the cgroup root (only when
// kill is set: after the node stopped, anything left there is a leak of ours),
// then removes the root's cgroups, deepest first. Bounded: 20 s.
func RemoveCgroups(root string, kill bool) error {
	mounts, err := CgroupMounts()
	if err != nil {
		return err
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		pids, _ := CgroupProcs(root)
		if len(pids) > 0 && kill {
			for _, p := range pids {
				_ = syscall.Kill(p, syscall.SIGKILL)
			}
		}
		var left []string
		for _, m := range mounts {
			left = append(left, removeTree(filepath.Join(m, root))...)
		}
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cgroups still in use: %s (processes %v)", strings.Join(left, ", "), pids)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// removeTree rmdirs a cgroup folder's subfolders, then the folder; it returns
// those that remain.
func removeTree(dir string) []string {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	var left []string
	for _, e := range entries {
		if e.IsDir() {
			left = append(left, removeTree(filepath.Join(dir, e.Name()))...)
		}
	}
	if err := syscall.Rmdir(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		left = append(left, dir)
	}
	return left
}
