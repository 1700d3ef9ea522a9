package migration

import (
	"context"
	"math"
	"sort"

	"github.com/ankusa/ankusa-store/internal/offheap"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// hookTableLimit bounds what a hook table holds in memory: the tenant names
// (hookNames: each name once, with its offset and dedup slot, about 20 bytes
// beside its own length) and the seqs' block bases (12 bytes per
// hookTableBlock hooks). At 10^6 tenants and 6*10^7 hooks (a 10^8-row store)
// that is some 30 MiB. The hooks' own records are in a file (hookRecords),
// so the store's size does not count here. A store past the limit is read
// hook by hook.
var hookTableLimit = hookLimits{bytes: 64 << 20, tenants: 1 << 22}

type hookLimits struct{ bytes, tenants int }

// hookTableBlock is how many hooks share one base seq.
const hookTableBlock = 128

// hookTable holds the tenant of every hook of the store, read in one pass
// over the hooks family before the first step. A step then finds its hooks'
// tenants without a multi-get: at 10^7 rows over 5.9 million hooks, those
// multi-gets read and decompressed a 4 KiB table block for nearly every row
// (the hooks are in seq order, the rows in time order), 19% of the
// migration's CPU, where the pass reads each block once. And a multi-get at
// random across the whole hooks family needs every hooks table's index
// block, a megabyte for 64 MiB of table: at 10^8 rows 84 MB held on the heap
// (rocks.Options.LookupFamilies), or read again from disk for most lookups
// through a bounded cache (the migration at 10^7 rows took 1.75x as long
// with a cache a quarter of the index). The hooks are not written during a
// migration (the store is locked), so the table holds what a multi-get would
// find; a hook it lacks is missing.
type hookTable struct {
	// Blocks of up to hookTableBlock hooks in seq order: block i holds the
	// hooks start[i] .. start[i+1]-1, whose records (hookRecords) hold
	// their seqs as deltas from base[i] and their tenants.
	// The arrays are off the Go heap (internal/offheap).
	base  offheap.Slice[uint64]
	start offheap.Slice[uint32]
	recs  *hookRecords
	names *hookNames
	// dir and shift find a seq's block (index).
	dir   offheap.Slice[uint32]
	shift uint
}

// buildHookTable reads every hook's tenant, or returns nil when the names do
// not fit the budget (found during the pass), the pass would read more than
// the lookups it saves, or the records have no room in dir, the directory
// whose file system holds them (the run then looks hooks up, as a store past
// the budget does): the store's for a migration, whose space estimate counts
// them; the system's temporary directory for a dry run, which writes nothing
// beside the store.
//
// use is Options.hookTable: 0 decides so, 1 always builds one (still within
// limits), -1 never does.
func buildHookTable(ctx context.Context, st *rocks.Store, use int, lim hookLimits, dir string) (*hookTable, error) {
	if use < 0 {
		return nil, nil
	}
	hooks := estimateKeys(st, format.CFHooks)
	if use == 0 && hooks >= 0 {
		// A pass reads each table block once, lookups about one block a row:
		// with a dozen hooks or more to a block, the pass costs less while
		// more rows are left (the index family's keys: the rows, or more on
		// a resumed run) than about an eighth of the hooks.
		if estimateKeys(st, format.CFIndex)*8 < hooks {
			return nil, nil
		}
	}
	t, err := newHookTable(dir)
	if err != nil {
		return nil, nil // no unnamed file there: look the hooks up
	}
	fits := true
	err = st.Scan(format.CFHooks, nil, nil, noCache, func(k, v []byte) error {
		if t.recs.n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		hk, err := format.DecodeHookKey(k)
		if err != nil {
			return nil // not a hook key: no lookup would ever ask for it
		}
		tenant, reason := format.TenantOf(v, true)
		if err := t.add(hk.Seq, tenant, reason); err != nil {
			return err
		}
		if t.base.Bytes()+t.start.Bytes()+t.names.bytes() > lim.bytes || t.names.tenants() > lim.tenants {
			fits = false
			return errStopped
		}
		return nil
	})
	if err == nil {
		err = t.finish()
	}
	if !fits || err != nil {
		t.free()
		if !fits || isRecordsErr(err) {
			err = nil
		}
		return nil, err
	}
	return t, nil
}

// finish makes the table ready for lookups once every hook is added: the
// records written out, what only adding needs dropped, the index built.
func (t *hookTable) finish() error {
	if err := t.recs.flush(); err != nil {
		return err
	}
	t.names.built()
	t.index()
	return nil
}

// newHookTable is an empty table, its records in a file in dir.
func newHookTable(dir string) (*hookTable, error) {
	recs, err := newHookRecords(dir)
	if err != nil {
		return nil, err
	}
	return &hookTable{recs: recs, names: newHookNames()}, nil
}

// add appends a hook; seqs arrive in increasing order (the family's key order).
func (t *hookTable) add(seq uint64, tenant string, reason format.DefaultReason) error {
	n := t.recs.n
	last := len(t.base.S()) - 1
	if last < 0 || n-int(t.start.S()[last]) == hookTableBlock || seq-t.base.S()[last] > 1<<32-1 {
		t.base.Append(seq)
		t.start.Append(uint32(n))
		last++
	}
	return t.recs.add(uint32(seq-t.base.S()[last]), t.names.who(tenant, reason))
}

// index builds dir, once every hook is in: slot i of dir is the last block
// whose base is at most base[0] + i<<shift, so a lookup searches a block or
// two instead of every block (the tables are tens of MiB and each step of a
// binary search over them missed the CPU's caches).
func (t *hookTable) index() {
	base := t.base.S()
	n := len(base)
	if n == 0 {
		return
	}
	span := base[n-1] - base[0]
	shift := uint(0)
	for span>>shift >= uint64(2*n) {
		shift++
	}
	t.shift = shift
	slots := int(span>>shift + 2)
	t.dir.Grow(slots)
	b := 0
	for i := range slots {
		lim := uint64(math.MaxUint64)
		if off := uint64(i) << shift; off>>shift == uint64(i) && off <= math.MaxUint64-base[0] {
			lim = base[0] + off
		}
		for b+1 < n && base[b+1] <= lim {
			b++
		}
		t.dir.Append(uint32(b))
	}
}

// lookup is what a multi-get of the hook followed by TenantOf would say,
// with the tenant's name number (hookTenant.name). It reads the hook's block
// of records from the file: safe from several goroutines at once.
func (t *hookTable) lookup(seq uint64) (string, format.DefaultReason, uint32, error) {
	if bases, dir, start := t.base.S(), t.dir.S(), t.start.S(); len(bases) > 0 && seq >= bases[0] {
		// The block holding seq, if any, is the last one whose base is at
		// most seq: between dir[i] and dir[i+1].
		lo, hi := int(dir[len(dir)-1]), len(bases)-1
		if i := (seq - bases[0]) >> t.shift; i+1 < uint64(len(dir)) {
			lo, hi = int(dir[i]), int(dir[i+1])
		}
		base := bases[lo : hi+1]
		b := lo + sort.Search(len(base), func(k int) bool { return base[k] > seq }) - 1
		first, end := int(start[b]), t.recs.n
		if b+1 < len(start) {
			end = int(start[b+1])
		}
		// A delta past 32 bits is no hook's: add started a new block for it.
		if d := seq - bases[b]; d <= math.MaxUint32 {
			who, ok, err := t.recs.find(first, end, uint32(d))
			if err != nil {
				return "", 0, 0, err
			}
			if ok {
				tenant, reason, name := t.names.of(who)
				return tenant, reason, name, nil
			}
		}
	}
	tenant, reason := format.TenantOf(nil, false)
	return tenant, reason, 0, nil
}

// hooks is how many hooks the table holds.
func (t *hookTable) hooks() int { return t.recs.n }

// estimateKeys is RocksDB's estimate of a family's keys, or -1.
func estimateKeys(st *rocks.Store, cf string) int64 {
	n, ok, err := st.IntProperty(cf, "rocksdb.estimate-num-keys")
	if err != nil || !ok {
		return -1
	}
	return int64(n)
}

// free closes the records' file, which frees its blocks, and returns the
// table's memory off the heap; a nil table has none. The table must not be
// used after it; the tenants it returned stay valid (hookNames).
func (t *hookTable) free() {
	if t != nil {
		t.recs.close()
		t.names.free()
		t.base.Free()
		t.start.Free()
		t.dir.Free()
	}
}
