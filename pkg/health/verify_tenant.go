package health

import (
	"fmt"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// A run limited to one tenant (--tenant) reads what is that tenant's and
// little else: its ranges of D, F and X, its six counters, its t and n rows,
// and the families whose rows carry the ord in the value (x, a) and the
// markers (A), filtered. It costs what the tenant holds plus the dead,
// archive and marker rows, not the whole store. What can only be decided
// from the whole store (the aggregate, leaked delivery rows, a delivery row
// with two index keys) is listed as not checked.

// scopeTenant limits the run to t, resolved before the run (tenant.Resolve): it
// reads t's n row at the run's snapshot, which must still name t's ordinal, and checks
// its t row, the two-way agreement of invariant 4 for this tenant.
func (e *foldEngine) scopeTenant(t format.Tenant) error {
	if e.format != format.Format3 {
		return fmt.Errorf("verify: %s is format %d, which has no tenant ordinals: %w", e.st.Dir, e.format, ErrNoCounters)
	}
	tenant := t.ID
	nk := format.OrdByTenantKey{Tenant: tenant}.Encode()
	v, ok, err := e.st.GetOpts(format.CFTenants, nk, e.ro)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: %q has no n row in %s", format.ErrNoSuchTenant, tenant, e.st.Dir)
	}
	ord, err := format.DecodeU32(v)
	if err != nil {
		return fmt.Errorf("%w: the n row of tenant %q does not decode: %v", format.ErrNoSuchTenant, tenant, err)
	}
	if ord != t.Ord {
		return fmt.Errorf("%w: the n row of tenant %q names ordinal %d, not %d, at the run's snapshot", format.ErrNoSuchTenant, tenant, ord, t.Ord)
	}
	tk := format.TenantByOrdKey{Ord: ord}.Encode()
	tv, ok, err := e.st.GetOpts(format.CFTenants, tk, e.ro)
	if err != nil {
		return err
	}
	s := e.ords.get(ord)
	if ok {
		s.flags |= ordHasT
		if len(tv) == 0 {
			s.flags |= ordErased
		} else {
			e.ords.setName(s, tv)
		}
	}
	e.famCounter(format.FamOrdByTenant.Name, format.CFTenants).Keys++
	e.famCounter(format.FamTenantByOrd.Name, format.CFTenants).Keys++
	e.checkOrdBounds(ord, nk, "n row")
	e.matchTenant(tenant, ord, nk)
	e.scope = &TenantRef{Ord: ord, ID: &tenant}
	for _, nc := range []NotChecked{
		{Check: "aggregate counters", Reason: "ordinal 0 sums every tenant: verify without --tenant checks it"},
		{Check: CheckDeliveryIndexKeys, Reason: "a delivery row's index keys can only be matched over the whole store"},
		{Check: "leaked_delivery_rows", Reason: "a delivery row names no tenant: leaks are counted over the whole store"},
		{Check: "other tenants", Reason: "limited to tenant " + tenant},
	} {
		e.notChecked(nc.Check, nc.Reason)
	}
	return nil
}

// checkSentinels looks up every sentinel of a format 3 store (invariant 6)
// where a one-tenant run does not fold the family to find them. A missing
// one is corruption, as a fold would report it.
func (e *foldEngine) checkSentinels() error {
	for _, f := range format.FamiliesOf(e.format) {
		fk := e.famCounter(f.Name, f.CF)
		for _, which := range []string{format.SentinelLo, format.SentinelHi} {
			key := f.Lo
			if which == format.SentinelHi {
				key = f.Hi
			}
			_, ok, err := e.st.GetOpts(f.CF, key, e.ro)
			fk.Keys++
			if err != nil {
				if !isCorrupt(err) {
					return err
				}
				e.corrupt(f, key, corruptDetail(err))
				continue
			}
			if !ok {
				e.corrupt(f, key, fmt.Sprintf("its %s sentinel is missing, so a fold of the family cannot tell a complete read from one cut short", which))
				e.setBroken(f.Name)
			}
		}
	}
	return nil
}

// getTenantCounters reads the tenant's six counters.
func (e *foldEngine) getTenantCounters() error {
	fk := e.famCounter(format.FamCounters.Name, format.CFCounters)
	for _, f := range format.Fields {
		ck := format.CounterKey{Ord: e.scope.Ord, Field: f, Shard: format.Unsharded}
		k := ck.Encode()
		v, ok, err := e.st.GetOpts(format.CFCounters, k, e.ro)
		fk.Keys++
		if err != nil {
			if !isCorrupt(err) {
				return err
			}
			e.corrupt(format.FamCounters, k, err.Error())
			e.unreadCounters[ck] = true
			continue
		}
		if ok {
			e.storeCounter(ck, k, v)
		}
	}
	return nil
}

// rowProbe checks, for one tenant's index rows, that their delivery row and
// hook are there, by point reads in chunks: what the whole-store run learns
// from r5 and the hooks join.
type rowProbe struct {
	on    bool
	keys  [][]byte
	arena []byte
	chunk int // sizes.probeChunk
	// Counted rows.
	withoutDelivery, withoutHook int64
}

func (p *rowProbe) add(seq uint64, sink uint16) (full bool) {
	if !p.on {
		return false
	}
	if p.arena == nil {
		p.arena = make([]byte, 0, p.chunk*format.KeyLenDelivery)
	}
	n := len(p.arena)
	p.arena = format.DeliveryKey{Seq: seq, Sink: sink}.Append(p.arena)
	p.keys = append(p.keys, p.arena[n:len(p.arena):len(p.arena)])
	return len(p.keys) >= p.chunk
}

func (e *foldEngine) flushProbe() error {
	p := &e.probe
	if !p.on || len(p.keys) == 0 {
		return nil
	}
	defer func() { p.keys, p.arena = p.keys[:0], p.arena[:0] }()
	_, found, err := e.multiGet(format.FamDeliveries, p.keys)
	if err != nil {
		return err
	}
	// A hook key is the first eight bytes of a delivery key; rows of one
	// hook share it.
	idx := make(map[string]int, len(p.keys))
	var hookKeys [][]byte
	for _, k := range p.keys {
		hk := k[:format.KeyLenHook]
		if _, ok := idx[string(hk)]; !ok {
			idx[string(hk)] = len(hookKeys)
			hookKeys = append(hookKeys, hk)
		}
	}
	_, hfound, err := e.multiGet(format.FamHooks, hookKeys)
	if err != nil {
		return err
	}
	fk := e.famCounter(format.FamDeliveries.Name, format.FamDeliveries.CF)
	hk := e.famCounter(format.FamHooks.Name, format.FamHooks.CF)
	fk.Keys += int64(len(p.keys))
	hk.Keys += int64(len(hookKeys))
	for i, k := range p.keys {
		if !found[i] {
			p.withoutDelivery++
		}
		if !hfound[idx[string(k[:format.KeyLenHook])]] {
			p.withoutHook++
		}
	}
	return nil
}
