package migration

import (
	"fmt"

	"github.com/ankusa/ankusa-store/internal/offheap"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// defaultCacheLimit bounds the tenant -> ordinal cache, cleared whole when
// full as the node's Writer clears its own. The node's holds 65 536 entries;
// the migration runs alone, so it can hold four times as many (about 20 MiB):
// at 10^5 tenants a cache of 65 536 was cleared again and again, and then
// most steps waited for the commits to drain and read their tenants' n rows
// (19 800 extra multi-gets in a 10^7-row run, on the builder's serial path).
// The cache only saves reads: ordinals come out the same at any size.
const defaultCacheLimit = 1 << 18

// ordinals hands out tenant ordinals in first-sight order. Its cache holds
// every tenant allocated since it was last cleared, committed or not, so a
// miss can be settled by the store's n rows once the commits have caught up
// (see clear). While complete, the cache holds every tenant that has an
// ordinal at all, and a miss is a new tenant without a read.
//
// The cache is two tables: byName for the tenants the hook table named (by
// hookTenant.name, 4 bytes a tenant off the Go heap), the map for the others
// (no table, or "default"). A dry run keeps every tenant (it cannot fall back
// on the store): at 10^6 tenants a map of strings was some 40 MB and as much
// again of the collector's headroom.
type ordinals struct {
	st       *rocks.Store // nil: nothing to look up (dry run of a fresh store)
	next     uint32
	cache    map[string]uint32
	byName   offheap.Slice[uint32] // ordinal by name-1; 0: not cached
	named    int                   // entries of byName
	complete bool
	limit    int // 0: unbounded

	// The current step's new ordinals, in allocation order.
	fresh []newOrd

	warmSum uint32 // warm's loads, summed: kept, so that the compiler keeps them
}

type newOrd struct {
	ord    uint32
	tenant string
}

// newOrdinals sets up the allocator of a run that starts at next. A resumed
// run loads the ordinals already allocated when they fit the cache; then it
// never needs to read them again.
func newOrdinals(st *rocks.Store, next uint32, limit int) (*ordinals, error) {
	o := &ordinals{st: st, next: next, cache: map[string]uint32{}, complete: true, limit: limit}
	if next == format.FirstOrd || st == nil {
		return o, nil
	}
	if limit > 0 && int(next-format.FirstOrd) > limit {
		o.complete = false
		return o, nil
	}
	err := st.Fold(format.FamOrdByTenant, rocks.ReadOpts{}, func(k, v []byte) error {
		key, err := format.DecodeOrdByTenantKey(k)
		if err != nil {
			return fmt.Errorf("%w: %s: %v", rocks.ErrCorrupt, st.Dir, err)
		}
		ord, err := format.DecodeU32(v)
		if err != nil {
			return fmt.Errorf("%w: %s: %s: %v", rocks.ErrCorrupt, st.Dir, key, err)
		}
		o.cache[key.Tenant] = ord
		return nil
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

// full reports whether the cache has outgrown its limit; the caller clears it
// once every step built so far is committed.
func (o *ordinals) full() bool { return o.limit > 0 && len(o.cache)+o.named >= o.limit }

// clear empties the cache. Only once every allocation in it is committed:
// from then on the store's n rows answer for them.
func (o *ordinals) clear() {
	o.cache = make(map[string]uint32)
	o.free()
	o.complete = false
}

// free empties byName and returns its memory (clear, and the run's end).
func (o *ordinals) free() {
	o.byName.Free()
	o.named = 0
}

// nameSlot is where byName keeps the tenant's ordinal, if it does. The tenant
// called "default" is one tenant whether a hook names it or is filed under it
// (name 0): the map keeps it.
func nameSlot(t *hookTenant) (int, bool) {
	return int(t.name) - 1, t.name != 0 && t.tenant != format.DefaultTenant
}

// cached is the tenant's ordinal, if the cache holds it. A resumed run's
// ordinals, loaded from the n rows before any hook is looked up, are in the
// map whatever the tenant.
func (o *ordinals) cached(t *hookTenant) (uint32, bool) {
	if i, ok := nameSlot(t); ok && i < o.byName.Len() {
		if ord := o.byName.S()[i]; ord != 0 {
			return ord, true
		}
	}
	if len(o.cache) == 0 {
		return 0, false
	}
	ord, ok := o.cache[t.tenant]
	return ord, ok
}

// warm loads the cache's entries for a step's tenants before they are resolved one by one:
// at 10^6 tenants byName is megabytes, and each tenant's entry was a cache miss that its
// resolve waited for (ordinals.cached, 1.35% of a 10^7-row run's samples over 10^6
// tenants). The loads of a step's tenants do not wait for each other, so their misses are
// in flight together. It only reads.
func (o *ordinals) warm(tenants []hookTenant) {
	by := o.byName.S()
	var sum uint32
	for i := range tenants {
		if n, ok := nameSlot(&tenants[i]); ok && n < len(by) {
			sum += by[n]
		}
	}
	o.warmSum += sum
}

// keep caches the tenant's ordinal.
func (o *ordinals) keep(t *hookTenant, ord uint32) {
	i, ok := nameSlot(t)
	if !ok {
		o.cache[t.tenant] = ord
		return
	}
	o.byName.Extend(i + 1)
	if o.byName.S()[i] == 0 {
		o.named++
	}
	o.byName.S()[i] = ord
}

// lookup settles, with one multi-get of their n rows, which of a step's
// tenants that the cache does not know already have an ordinal.
func (o *ordinals) lookup(tenants []hookTenant) error {
	if o.complete || o.st == nil {
		return nil
	}
	var keys [][]byte
	var unknown []*hookTenant
	seen := map[string]bool{}
	for i := range tenants {
		t := &tenants[i]
		if _, ok := o.cached(t); ok || seen[t.tenant] {
			continue
		}
		seen[t.tenant] = true
		unknown = append(unknown, t)
		keys = append(keys, format.OrdByTenantKey{Tenant: t.tenant}.Encode())
	}
	if len(keys) == 0 {
		return nil
	}
	vals, found, err := o.st.MultiGet(format.CFTenants, keys)
	if err != nil {
		return err
	}
	for i, t := range unknown {
		if !found[i] {
			continue
		}
		ord, err := format.DecodeU32(vals[i])
		if err != nil {
			return fmt.Errorf("%w: %s: %s: %v", rocks.ErrCorrupt, o.st.Dir, format.OrdByTenantKey{Tenant: t.tenant}, err)
		}
		o.keep(t, ord)
	}
	return nil
}

// resolve returns the tenant's ordinal, allocating the next one at first sight.
func (o *ordinals) resolve(t hookTenant) (uint32, error) {
	if ord, ok := o.cached(&t); ok {
		return ord, nil
	}
	if o.next > format.MaxOrd {
		return 0, fmt.Errorf("migration: no ordinal left for tenant %q: %d are allocated", t.tenant, format.MaxOrd)
	}
	ord := o.next
	o.next++
	o.keep(&t, ord)
	o.fresh = append(o.fresh, newOrd{ord: ord, tenant: t.tenant})
	return ord, nil
}
