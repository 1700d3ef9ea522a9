package migration

import (
	"context"
	"math"
	"sort"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// hookTableLimit bounds a hook table: 64 MiB (8 bytes a hook, the tenant
// names besides) holds about eight million hooks; and at most 2^18 tenants,
// as many as the ordinal cache holds: the names of 10^6 tenants and the
// index that dedups them are on the Go heap, and at 2*10^6 rows over 10^6
// tenants they took the migration's peak RSS from 169 to 237 MiB for little
// gain (there are about as many tenants as hooks to read). A store past
// either limit is read hook by hook, as before.
var hookTableLimit = hookLimits{bytes: 64 << 20, tenants: 1 << 18}

type hookLimits struct{ bytes, tenants int }

// hookTableBlock is how many hooks share one base seq.
const hookTableBlock = 128

// hookTable holds the tenant of every hook of the store, read in one pass
// over the hooks family before the first step. A step then finds its hooks'
// tenants in memory instead of one multi-get each: at 10^7 rows over 5.9
// million hooks, those multi-gets read and decompressed a 4 KiB table block
// for nearly every row (the hooks are in seq order, the rows in time order),
// 19% of the migration's CPU, where the pass reads each block once. The
// hooks are not written during a migration (the store is locked), so the
// table holds what a multi-get would find; a hook it lacks is missing.
type hookTable struct {
	// Blocks of up to hookTableBlock hooks in seq order: block i holds the
	// hooks start[i] .. start[i+1]-1, whose seqs are base[i] + delta[j].
	base  []uint64
	start []uint32
	delta offHeap
	// who[j] indexes tenants, whose first numReasons entries are "default"
	// for each reason (entry 0, ReasonNone, is never used: a hook whose
	// tenant_id is "default" is a real tenant of that name).
	who     offHeap
	tenants []tenantOf
	ids     map[string]uint32
	bytes   int // what the table holds, against the budget
	// dir and shift find a seq's block (index).
	dir   []uint32
	shift uint
}

// buildHookTable reads every hook's tenant, or returns nil when the hooks do
// not fit the budget (found before the pass from RocksDB's estimate, or
// during it) or the pass would read more than the lookups it saves.
//
// use is Options.hookTable: 0 decides so, 1 always builds one (still within
// limits), -1 never does.
func buildHookTable(ctx context.Context, st *rocks.Store, use int, lim hookLimits) (*hookTable, error) {
	if use < 0 {
		return nil, nil
	}
	hooks := estimateKeys(st, format.CFHooks)
	if use == 0 && hooks >= 0 {
		// A pass reads each table block once, lookups about one block a row:
		// with a dozen hooks or more to a block, the pass costs less while
		// more rows are left (the index family's keys: the rows, or more on
		// a resumed run) than about an eighth of the hooks.
		if hooks*8 > int64(lim.bytes) || estimateKeys(st, format.CFIndex)*8 < hooks {
			return nil, nil
		}
	}
	t := newHookTable(int(max(hooks, 0) + max(hooks, 0)/8))
	fits := true
	err := st.Scan(format.CFHooks, nil, nil, noCache, func(k, v []byte) error {
		if len(t.delta.s)%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		hk, err := format.DecodeHookKey(k)
		if err != nil {
			return nil // not a hook key: no lookup would ever ask for it
		}
		tenant, reason := format.TenantOf(v, true)
		t.add(hk.Seq, tenant, reason)
		if t.bytes > lim.bytes || len(t.tenants)-numReasons > lim.tenants {
			fits = false
			return errStopped
		}
		return nil
	})
	if !fits || err != nil {
		t.free()
		if !fits {
			err = nil
		}
		return nil, err
	}
	t.ids = nil // only the build needs it; at 10^6 tenants it is tens of MiB
	t.index()
	return t, nil
}

func newHookTable(hooks int) *hookTable {
	t := &hookTable{
		tenants: make([]tenantOf, numReasons),
		ids:     map[string]uint32{},
	}
	t.delta.grow(hooks)
	t.who.grow(hooks)
	for r := range t.tenants {
		t.tenants[r] = tenantOf{tenant: format.DefaultTenant, reason: format.DefaultReason(r)}
	}
	return t
}

// tenantOf is what TenantOf says of a hook.
type tenantOf struct {
	tenant string
	reason format.DefaultReason
}

// add appends a hook; seqs arrive in increasing order (the family's key order).
func (t *hookTable) add(seq uint64, tenant string, reason format.DefaultReason) {
	n := len(t.delta.s)
	last := len(t.base) - 1
	if last < 0 || n-int(t.start[last]) == hookTableBlock || seq-t.base[last] > 1<<32-1 {
		t.base = append(t.base, seq)
		t.start = append(t.start, uint32(n))
		t.bytes += 12
		last++
	}
	t.delta.append(uint32(seq - t.base[last]))
	w := uint32(reason)
	if reason == format.ReasonNone {
		var ok bool
		if w, ok = t.ids[tenant]; !ok {
			w = uint32(len(t.tenants))
			t.ids[tenant] = w
			t.tenants = append(t.tenants, tenantOf{tenant: tenant})
			t.bytes += 72 + len(tenant) // the map entry, the string, its tenantOf
		}
	}
	t.who.append(w)
	t.bytes += 8
}

// index builds dir, once every hook is in: slot i of dir is the last block
// whose base is at most base[0] + i<<shift, so a lookup searches a block or
// two instead of every block (the tables are tens of MiB and each step of a
// binary search over them missed the CPU's caches).
func (t *hookTable) index() {
	n := len(t.base)
	if n == 0 {
		return
	}
	span := t.base[n-1] - t.base[0]
	shift := uint(0)
	for span>>shift >= uint64(2*n) {
		shift++
	}
	t.dir, t.shift = make([]uint32, span>>shift+2), shift
	b := 0
	for i := range t.dir {
		lim := uint64(math.MaxUint64)
		if off := uint64(i) << shift; off>>shift == uint64(i) && off <= math.MaxUint64-t.base[0] {
			lim = t.base[0] + off
		}
		for b+1 < n && t.base[b+1] <= lim {
			b++
		}
		t.dir[i] = uint32(b)
	}
}

// lookup is what a multi-get of the hook followed by TenantOf would say.
func (t *hookTable) lookup(seq uint64) (string, format.DefaultReason) {
	if len(t.base) > 0 && seq >= t.base[0] {
		// The block holding seq, if any, is the last one whose base is at
		// most seq: between dir[i] and dir[i+1].
		lo, hi := int(t.dir[len(t.dir)-1]), len(t.base)-1
		if i := (seq - t.base[0]) >> t.shift; i+1 < uint64(len(t.dir)) {
			lo, hi = int(t.dir[i]), int(t.dir[i+1])
		}
		base := t.base[lo : hi+1]
		b := lo + sort.Search(len(base), func(k int) bool { return base[k] > seq }) - 1
		delta := t.delta.s
		first, end := int(t.start[b]), len(delta)
		if b+1 < len(t.start) {
			end = int(t.start[b+1])
		}
		d := seq - t.base[b]
		block := delta[first:end]
		j := sort.Search(len(block), func(k int) bool { return uint64(block[k]) >= d })
		if j < len(block) && uint64(block[j]) == d {
			w := t.tenants[t.who.s[first+j]]
			return w.tenant, w.reason
		}
	}
	return format.TenantOf(nil, false)
}

// estimateKeys is RocksDB's estimate of a family's keys, or -1.
func estimateKeys(st *rocks.Store, cf string) int64 {
	n, ok, err := st.IntProperty(cf, "rocksdb.estimate-num-keys")
	if err != nil || !ok {
		return -1
	}
	return int64(n)
}

// free returns the table's memory; a nil table has none. The table must not
// be used after it.
func (t *hookTable) free() {
	if t != nil {
		t.delta.free()
		t.who.free()
	}
}
