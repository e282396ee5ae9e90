package lb

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"
	"sync"
)

// Spec is what one listening address forwards to.
type Spec struct {
	Backends     []netip.AddrPort
	SourceRanges []netip.Prefix
}

type entry struct {
	owner string
	l     *Listener
	pool  *Pool
}

// Table holds every Service's listeners, keyed by the address they listen
// on; each address belongs to one Service (its owner).
type Table struct {
	mu      sync.Mutex
	entries map[netip.AddrPort]*entry
	listen  func(netip.AddrPort, *Pool) (*Listener, error)
}

// NewTable forwards through real listeners.
func NewTable(logf func(string, ...any)) *Table {
	return &Table{
		entries: map[netip.AddrPort]*entry{},
		listen:  func(a netip.AddrPort, p *Pool) (*Listener, error) { return Listen(a, p, logf) },
	}
}

// Sync makes owner's listeners exactly want: it closes those no longer
// wanted, opens the new ones and switches the backends of the others (new
// connections go to the new set at once; open ones stay where they are). An
// address another owner holds is an error for that address only; the rest
// is still applied. It returns what changed, for the log.
func (t *Table) Sync(owner string, want map[netip.AddrPort]Spec) (changes []string, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for addr, e := range t.entries {
		if _, ok := want[addr]; e.owner == owner && !ok {
			e.l.Close()
			delete(t.entries, addr)
			changes = append(changes, "closed "+addr.String())
		}
	}
	var clashes []string
	for _, addr := range sortedKeys(want) {
		spec := want[addr]
		e, ok := t.entries[addr]
		if ok && e.owner != owner {
			clashes = append(clashes, fmt.Sprintf("%s is %s's", addr, e.owner))
			continue
		}
		if !ok {
			pool := &Pool{}
			l, lerr := t.listen(addr, pool)
			if lerr != nil {
				clashes = append(clashes, fmt.Sprintf("%s: %v", addr, lerr))
				continue
			}
			e = &entry{owner: owner, l: l, pool: pool}
			t.entries[addr] = e
			changes = append(changes, "listening on "+addr.String())
		}
		e.pool.SetSources(spec.SourceRanges)
		if e.pool.Set(spec.Backends) {
			changes = append(changes, fmt.Sprintf("%s -> %s", addr, describe(spec.Backends)))
		}
	}
	if len(clashes) > 0 {
		err = fmt.Errorf("cannot listen: %s", strings.Join(clashes, "; "))
	}
	return changes, err
}

// Forget closes every listener of owner.
func (t *Table) Forget(owner string) []string {
	changes, _ := t.Sync(owner, nil)
	return changes
}

// Backends is what addr forwards to now (for tests and the log).
func (t *Table) Backends(addr netip.AddrPort) ([]netip.AddrPort, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.entries[addr]
	if !ok {
		return nil, false
	}
	e.pool.mu.Lock()
	defer e.pool.mu.Unlock()
	return append([]netip.AddrPort(nil), e.pool.addrs...), true
}

// Close ends everything.
func (t *Table) Close() {
	t.mu.Lock()
	owners := map[string]bool{}
	for _, e := range t.entries {
		owners[e.owner] = true
	}
	t.mu.Unlock()
	for o := range owners {
		t.Forget(o)
	}
}

func describe(b []netip.AddrPort) string {
	if len(b) == 0 {
		return "no endpoint"
	}
	s := make([]string, len(b))
	for i, a := range b {
		s[i] = a.String()
	}
	return strings.Join(s, ", ")
}

func sortedKeys(m map[netip.AddrPort]Spec) []netip.AddrPort {
	keys := make([]netip.AddrPort, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].Compare(keys[j]) < 0 })
	return keys
}

// Allocator gives each Service an address of its own from a range (so two
// Services with the same ports never clash), keeping the one it already has.
type Allocator struct {
	mu      sync.Mutex
	pool    netip.Prefix
	byOwner map[string]netip.Addr
	owners  map[netip.Addr]string
}

// NewAllocator hands out pool's addresses, its first one (the network) excluded.
func NewAllocator(pool netip.Prefix) *Allocator {
	return &Allocator{pool: pool.Masked(), byOwner: map[string]netip.Addr{}, owners: map[netip.Addr]string{}}
}

// Assign returns owner's address: the one it holds, else current when that
// is free and in the range (a restarted controller keeps what it published),
// else the first free one.
func (a *Allocator) Assign(owner string, current netip.Addr) (netip.Addr, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if addr, ok := a.byOwner[owner]; ok {
		return addr, nil
	}
	take := func(addr netip.Addr) netip.Addr {
		a.byOwner[owner] = addr
		a.owners[addr] = owner
		return addr
	}
	if current.IsValid() && a.pool.Contains(current) && current != a.pool.Addr() {
		if _, taken := a.owners[current]; !taken {
			return take(current), nil
		}
	}
	for addr := a.pool.Addr().Next(); a.pool.Contains(addr); addr = addr.Next() {
		if _, taken := a.owners[addr]; !taken {
			return take(addr), nil
		}
	}
	return netip.Addr{}, fmt.Errorf("every address of %v is taken", a.pool)
}

// Release frees owner's address.
func (a *Allocator) Release(owner string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if addr, ok := a.byOwner[owner]; ok {
		delete(a.byOwner, owner)
		delete(a.owners, addr)
	}
}
