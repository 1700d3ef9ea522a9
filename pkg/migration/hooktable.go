package migration

import (
	"context"
	"sort"
	"strconv"
	"strings"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// hookTableBudget bounds the memory of a hook table (8 bytes a hook, plus the
// tenant names): 64 MiB holds about eight million hooks. A store with more
// hooks is read hook by hook, as before.
const hookTableBudget = 64 << 20

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
	tenants []hookTenant // seq unused
	ids     map[string]uint32
	bytes   int // what the table holds, against the budget
}

// buildHookTable reads every hook's tenant, or returns nil when the hooks do
// not fit the budget (found before the pass from RocksDB's estimate, or
// during it) or the pass would read more than the lookups it saves.
//
// use is Options.hookTable: 0 decides so, 1 always builds one (still within
// budget), -1 never does.
func buildHookTable(ctx context.Context, st *rocks.Store, use, budget int) (*hookTable, error) {
	if use < 0 {
		return nil, nil
	}
	hooks := estimateKeys(st, format.CFHooks)
	if use == 0 && hooks >= 0 {
		// A pass reads each table block once, lookups about one block a row:
		// with a dozen hooks or more to a block, the pass costs less while
		// more rows are left (the index family's keys: the rows, or more on
		// a resumed run) than about an eighth of the hooks.
		if hooks*8 > int64(budget) || estimateKeys(st, format.CFIndex)*8 < hooks {
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
		if t.bytes > budget {
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
	return t, nil
}

func newHookTable(hooks int) *hookTable {
	t := &hookTable{
		tenants: make([]hookTenant, numReasons),
		ids:     map[string]uint32{},
	}
	t.delta.grow(hooks)
	t.who.grow(hooks)
	for r := range t.tenants {
		t.tenants[r] = hookTenant{tenant: format.DefaultTenant, reason: format.DefaultReason(r)}
	}
	return t
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
			t.tenants = append(t.tenants, hookTenant{tenant: tenant})
			t.bytes += 64 + len(tenant) // the map entry, the string, its hookTenant
		}
	}
	t.who.append(w)
	t.bytes += 8
}

// lookup is what a multi-get of the hook followed by TenantOf would say.
func (t *hookTable) lookup(seq uint64) (string, format.DefaultReason) {
	b := sort.Search(len(t.base), func(i int) bool { return t.base[i] > seq }) - 1
	if b >= 0 {
		delta := t.delta.s
		lo, hi := int(t.start[b]), len(delta)
		if b+1 < len(t.start) {
			hi = int(t.start[b+1])
		}
		d := seq - t.base[b]
		j := lo + sort.Search(hi-lo, func(i int) bool { return uint64(delta[lo+i]) >= d })
		if j < hi && uint64(delta[j]) == d {
			w := t.tenants[t.who.s[j]]
			return w.tenant, w.reason
		}
	}
	return format.TenantOf(nil, false)
}

// estimateKeys is RocksDB's estimate of a family's keys, or -1.
func estimateKeys(st *rocks.Store, cf string) int64 {
	v, err := st.Property(cf, "rocksdb.estimate-num-keys")
	if err != nil {
		return -1
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// free returns the table's memory; a nil table has none. The table must not
// be used after it.
func (t *hookTable) free() {
	if t != nil {
		t.delta.free()
		t.who.free()
	}
}
