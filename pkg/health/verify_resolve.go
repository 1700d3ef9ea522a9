package health

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/format"
)

// After the reads: peel the one-to-one checks, name the keys of what they
// found, and compare the counters.

// reread reads the rows of a family (or of a range of it) again, sentinels
// skipped, for a second pass: a reconExact rescan or naming the keys of a
// finding. The first pass read the same snapshot without error.
func (e *foldEngine) reread(f format.Family, lo, hi []byte, fn func(k, v []byte) error) error {
	if lo == nil && hi == nil && len(f.Prefix) > 0 {
		lo, hi = f.Lo, f.PrefixEnd()
	}
	return e.st.Scan(f.CF, lo, hi, e.ro, func(k, v []byte) error {
		if f.Lo != nil && (bytes.Equal(k, f.Lo) || bytes.Equal(k, f.Hi)) {
			return nil
		}
		return fn(k, v)
	})
}

func (e *foldEngine) anyBroken(fams ...format.Family) bool {
	for _, f := range fams {
		if e.broken[f.Name] {
			return true
		}
	}
	return false
}

// r5Families are the index families whose keys are one delivery's index key.
func (e *foldEngine) r5Families() []format.Family {
	if e.format == format.Format2 {
		return []format.Family{format.FamDueV2, format.FamInflightV2, format.FamDead}
	}
	return []format.Family{format.FamDue, format.FamInflight, format.FamDead}
}

// indexSeqSink returns the (seq, sink) of a key of an r5 family.
func indexSeqSink(f format.Family, k []byte) (uint64, uint16, bool) {
	switch f.Name {
	case format.FamilyNameDue:
		if dk, err := format.DecodeDueKey(k); err == nil {
			return dk.Seq, dk.Sink, true
		}
	case format.FamilyNameInflight:
		if fk, err := format.DecodeInflightKey(k); err == nil {
			return fk.Seq, fk.Sink, true
		}
	case format.FamilyNameDead:
		if dk, err := format.DecodeDeadKey(k); err == nil {
			return dk.Seq, dk.Sink, true
		}
	case format.FamilyNameDueV2:
		if dk, err := format.DecodeDueV2Key(k); err == nil {
			return dk.Seq, dk.Sink, true
		}
	case format.FamilyNameInflightV2:
		if fk, err := format.DecodeInflightV2Key(k); err == nil {
			return fk.Seq, fk.Sink, true
		}
	}
	return 0, 0, false
}

func (e *foldEngine) rescanR5(emit func(side int, el *reconElem)) error {
	for _, f := range e.r5Families() {
		err := e.reread(f, nil, nil, func(k, _ []byte) error {
			if seq, sink, ok := indexSeqSink(f, k); ok {
				el := seqSinkElem(seq, sink)
				emit(0, &el)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return e.reread(format.FamDeliveries, nil, nil, func(k, _ []byte) error {
		if dk, err := format.DecodeDeliveryKey(k); err == nil {
			el := seqSinkElem(dk.Seq, dk.Sink)
			emit(1, &el)
		}
		return nil
	})
}

// resolveDeliveries finishes invariant 5. Each element of r5's difference
// is a (seq, sink) whose index keys (i) and delivery rows (d, 0 or 1)
// differ, with N = i - d: N = -1 is a leaked delivery row; N > 0 is an
// index row whose delivery row is gone, or, if the delivery row is there,
// a delivery row with N + 1 index keys. Index rows without their hook are
// the delivery rows without theirs (the hooks join), corrected by N for the
// elements of the difference.
func (e *foldEngine) resolveDeliveries() error {
	fams := append(e.r5Families(), format.FamDeliveries, format.FamHooks)
	if e.anyBroken(fams...) {
		e.notChecked(CheckDeliveryIndexKeys, "a family it joins could not be read to its end")
		return nil
	}
	items, ok := e.r5.peel()
	if !ok {
		var err error
		if items, err = e.r5.reconExact(items, e.rescanR5); err != nil {
			return err
		}
	}
	slices.SortFunc(items, func(a, b reconItem) int { return slices.Compare(a.E[:], b.E[:]) })

	var dkeys, hkeys [][]byte
	hidx := map[uint64]int{}
	for _, it := range items {
		seq, sink := it.E.seqSink()
		dkeys = append(dkeys, format.DeliveryKey{Seq: seq, Sink: sink}.Encode())
		if _, ok := hidx[seq]; !ok {
			hidx[seq] = len(hkeys)
			hkeys = append(hkeys, format.HookKey{Seq: seq}.Encode())
		}
	}
	dfound, err := e.exists(format.FamDeliveries, dkeys)
	if err != nil {
		return err
	}
	hfound, err := e.exists(format.FamHooks, hkeys)
	if err != nil {
		return err
	}
	var leaks, noDelivery int64
	noHook := e.deliveryRowsWithoutHook
	dups := map[reconElem]bool{} // element -> its delivery row is there
	for i, it := range items {
		seq, _ := it.E.seqSink()
		if !hfound[hidx[seq]] {
			noHook += it.N
		}
		switch {
		case it.N < 0:
			leaks += -it.N
		case !dfound[i]:
			noDelivery += it.N
			if it.N >= 2 {
				dups[it.E] = false
			}
		default:
			dups[it.E] = true
		}
	}
	c := &e.rep.Counts
	c.LeakedDeliveryRows = vfI64(leaks)
	c.IndexRowsWithoutDelivery = vfI64(noDelivery)
	c.IndexRowsWithoutHook = vfI64(noHook)
	c.DeliveryRowsWithoutHook = vfI64(e.deliveryRowsWithoutHook)
	if len(dups) > 0 {
		return e.nameDuplicates(dups)
	}
	return nil
}

// exists reports which keys of a family are present, in chunks.
func (e *foldEngine) exists(f format.Family, keys [][]byte) ([]bool, error) {
	out := make([]bool, 0, len(keys))
	for len(keys) > 0 {
		n := min(len(keys), e.sz.probeChunk)
		_, found, err := e.multiGet(f, keys[:n])
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
		keys = keys[n:]
	}
	return out, nil
}

// nameDuplicates reads the index families once more for the keys of the
// deliveries that have more than one, and reports each delivery with them.
func (e *foldEngine) nameDuplicates(dups map[reconElem]bool) error {
	// Name at most MaxFindingsPerCheck of them; count the rest.
	els := make([]reconElem, 0, len(dups))
	for el := range dups {
		els = append(els, el)
	}
	slices.SortFunc(els, func(a, b reconElem) int { return slices.Compare(a[:], b[:]) })
	if len(els) > MaxFindingsPerCheck {
		e.rep.FindingsOmitted[CheckDeliveryIndexKeys] += int64(len(els) - MaxFindingsPerCheck)
		els = els[:MaxFindingsPerCheck]
	}
	type named struct {
		refs   []KeyRef
		tenant *TenantRef
	}
	keys := make(map[reconElem]*named, len(els))
	for _, el := range els {
		keys[el] = &named{}
	}
	for _, f := range e.r5Families() {
		err := e.reread(f, nil, nil, func(k, _ []byte) error {
			seq, sink, ok := indexSeqSink(f, k)
			if !ok {
				return nil
			}
			n := keys[seqSinkElem(seq, sink)]
			if n == nil {
				return nil
			}
			n.refs = append(n.refs, keyRef(f.CF, k))
			if n.tenant == nil && e.format == format.Format3 && f.Name != format.FamilyNameDead {
				// D and F keys lead with the ordinal.
				n.tenant = e.tenantPtr(be.Uint32(k[1:]))
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for _, el := range els {
		seq, sink := el.seqSink()
		dk := format.DeliveryKey{Seq: seq, Sink: sink}.Encode()
		n := keys[el]
		detail := fmt.Sprintf("the delivery has %d index keys among due, inflight and dead; it must have exactly one", len(n.refs))
		if !dups[el] {
			detail = fmt.Sprintf("%d index keys among due, inflight and dead name this delivery, whose row is gone; a delivery has at most one", len(n.refs))
		}
		e.finding(CheckDeliveryIndexKeys, n.tenant, keyRef(format.CFDeliveries, dk), n.refs, detail)
	}
	return nil
}

// resolveMarkers finishes invariant 2. A due row without its marker was
// reported when its chunk was looked up; a marker no due row asked for is
// stale, and counted: every distinct marker asked for was looked up once.
func (e *foldEngine) resolveMarkers() error {
	if e.anyBroken(format.FamDue, format.FamActive) {
		e.notChecked(CheckMarkerMissing, "a family it joins could not be read to its end")
		return nil
	}
	e.rep.Counts.StaleActiveMarkers = vfI64(e.markers.present - e.markers.found)
	return nil
}

func (e *foldEngine) rescanR3(emit func(side int, el *reconElem)) error {
	err := e.reread(format.FamDead, nil, nil, func(k, v []byte) error {
		dk, err := format.DecodeDeadKey(k)
		if err != nil {
			return nil
		}
		if ord, hasOrd, err := deadValueOrd(v); err == nil && hasOrd && e.inScope(ord) {
			el := deadElem(ord, dk.At, dk.Seq, dk.Sink)
			emit(0, &el)
		}
		return nil
	})
	if err != nil {
		return err
	}
	lo, hi := []byte(nil), []byte(nil)
	if e.scope != nil {
		lo, hi = format.FamDeadByTenant.TenantSpan(e.scope.Ord)
	}
	return e.reread(format.FamDeadByTenant, lo, hi, func(k, _ []byte) error {
		if xk, err := format.DecodeDeadByTenantKey(k); err == nil {
			el := deadElem(xk.Ord, xk.At, xk.Seq, xk.Sink)
			emit(1, &el)
		}
		return nil
	})
}

// resolveDeadByTenant finishes invariant 3: x and X are one-to-one, with the
// same ordinal.
func (e *foldEngine) resolveDeadByTenant() error {
	if e.anyBroken(format.FamDead, format.FamDeadByTenant) {
		e.notChecked("dead_by_tenant", "a family it joins could not be read to its end")
		return nil
	}
	items, ok := e.r3.peel()
	if !ok {
		var err error
		if items, err = e.r3.reconExact(items, e.rescanR3); err != nil {
			return err
		}
	}
	for _, it := range items {
		ord, at, seq, sink := it.E.dead()
		xk := format.DeadKey{At: at, Seq: seq, Sink: sink}.Encode()
		bk := format.DeadByTenantKey{Ord: ord, At: at, Seq: seq, Sink: sink}.Encode()
		if it.N > 0 {
			e.finding(CheckDeadByTenantMissing, e.tenantPtr(ord), keyRef(format.CFIndex, xk), []KeyRef{keyRef(format.CFIndex, bk)},
				fmt.Sprintf("the x row (ordinal %d) has no X row", ord))
			continue
		}
		detail := "the X row has no x row"
		v, found, err := e.st.GetOpts(format.CFIndex, xk, e.ro)
		switch {
		case err != nil:
			return err
		case found:
			o, hasOrd, err := deadValueOrd(v)
			switch {
			case err != nil:
				detail = "the X row's x row has a value that does not decode"
			case !hasOrd:
				detail = "the X row's x row carries no ordinal"
			default:
				detail = fmt.Sprintf("the X row names ordinal %d, but its x row carries ordinal %d", ord, o)
			}
		}
		e.finding(CheckDeadMissing, e.tenantPtr(ord), keyRef(format.CFIndex, bk), []KeyRef{keyRef(format.CFIndex, xk)}, detail)
	}
	return nil
}

// resolveOrds reports the ordinals rows and counters use that invariant 4
// forbids, one finding per ordinal with the first key that uses it.
func (e *foldEngine) resolveOrds() {
	ords := make([]uint32, 0, len(e.odd))
	for o := range e.odd {
		ords = append(ords, o)
	}
	slices.Sort(ords)
	for _, ord := range ords {
		u := e.odd[ord]
		uses := fmt.Sprintf("%d key%s use%s it; the first is shown", u.keys, words.Plural(u.keys, "", "s"), words.Plural(u.keys, "s", ""))
		if ord == format.AggregateOrd {
			e.finding(CheckIndexOrdZero, nil, u.first, nil, "index rows filed under ordinal 0, the node aggregate, which is never a tenant: "+uses)
			continue
		}
		s := e.ords.lookup(ord)
		if s == nil || s.flags&ordHasT == 0 {
			e.finding(CheckOrdWithoutTenant, e.tenantPtr(ord), u.first, []KeyRef{keyRef(format.CFTenants, format.TenantByOrdKey{Ord: ord}.Encode())},
				fmt.Sprintf("ordinal %d has no t row: %s", ord, uses))
		}
		if e.hasNextOrd && ord >= e.nextOrd {
			e.finding(CheckOrdNotBelowNext, e.tenantPtr(ord), u.first, nil,
				fmt.Sprintf("ordinal %d is not below m:next_ord %d: %s", ord, e.nextOrd, uses))
		}
	}
}

// resolveCounters compares every counter with its fold (invariant 1). A
// tenant's net is its fold less its counters, so only the tenants that
// differ have their counters read again, to say what they hold.
func (e *foldEngine) resolveCounters() error {
	withheld := e.withheldFields()
	compared := func(ord uint32, f format.Field) bool {
		return !withheld[f] && !e.unreadCounters[format.CounterKey{Ord: ord, Field: f, Shard: format.Unsharded}]
	}
	var differ []format.CounterKey
	var deltas []int64 // folded minus stored, by differ
	note := func(ord uint32, s *ordState) {
		net := s.netTotal()
		for _, f := range format.Fields {
			if d := net.Get(f); d != 0 && compared(ord, f) {
				differ = append(differ, format.CounterKey{Ord: ord, Field: f, Shard: format.Unsharded})
				deltas = append(deltas, d)
			}
		}
	}
	if e.scope != nil {
		note(e.scope.Ord, e.ords.get(e.scope.Ord))
	} else {
		e.ords.each(func(ord uint32, s *ordState) {
			if ord != format.AggregateOrd {
				note(ord, s)
			}
		})
	}
	stored, err := e.readStored(differ)
	if err != nil {
		return err
	}
	for i, k := range differ {
		e.rep.CounterMismatches = append(e.rep.CounterMismatches, counterMismatch(e.tenantRef(k.Ord), k.Field, stored[i], stored[i]+deltas[i]))
	}
	if e.scope != nil {
		return nil
	}
	agg := e.aggFold()
	for _, f := range format.Fields {
		if s, d := e.aggStored.Get(f), agg.Get(f); s != d && compared(format.AggregateOrd, f) {
			e.rep.CounterMismatches = append(e.rep.CounterMismatches, counterMismatch(e.tenantRef(format.AggregateOrd), f, s, d))
		}
	}
	return nil
}

// aggFold is the aggregate's fold: the rows filed directly under it plus
// every tenant's, each a tenant's net and the counters taken off it.
func (e *foldEngine) aggFold() Counters {
	agg := e.agg().netTotal()
	agg.addAll(&e.storedSum)
	e.ords.each(func(ord uint32, s *ordState) {
		if ord != format.AggregateOrd {
			t := s.netTotal()
			agg.addAll(&t)
		}
	})
	return agg
}

// storedChunk is how many counters readStored reads at a time.
const storedChunk = 4096

// readStored reads the tenants' counters keys name again, at the run's
// snapshot: what foldCounters took off their net (an unsharded key; a value
// that does not decode counted nothing there, and reads as 0 here).
func (e *foldEngine) readStored(keys []format.CounterKey) ([]int64, error) {
	out := make([]int64, len(keys))
	enc := make([][]byte, 0, min(len(keys), storedChunk))
	for lo := 0; lo < len(keys); lo += storedChunk {
		enc = enc[:0]
		for _, k := range keys[lo:min(lo+storedChunk, len(keys))] {
			enc = append(enc, k.Encode())
		}
		vals, found, err := e.st.MultiGetOpts(format.CFCounters, enc, e.ro)
		if err != nil {
			return nil, fmt.Errorf("reading counters again: %w", err)
		}
		for i := range enc {
			if found[i] {
				if n, err := format.DecodeCounterValue(vals[i]); err == nil {
					out[lo+i] = n
				}
			}
		}
	}
	return out, nil
}

// counterSources names the families each counter field is folded from (the
// dead rows' bytes come from their delivery rows), and counters, where the
// stored values are read.
var counterSources = map[format.Field][]string{
	format.FieldPending:        {format.FamilyNameDue},
	format.FieldScheduled:      {format.FamilyNameDue},
	format.FieldInflight:       {format.FamilyNameInflight},
	format.FieldDead:           {format.FamilyNameDead},
	format.FieldBytes:          {format.FamilyNameDue, format.FamilyNameInflight, format.FamilyNameDead, format.FamilyNameDeliveries},
	format.FieldArchivePending: {format.FamilyNameArchive},
}

// withheldFields are the counter fields a comparison would judge on a fold
// or a read cut short by corruption: their mismatches would be the damage's,
// not the store's counters', so they are listed as not checked instead.
func (e *foldEngine) withheldFields() map[format.Field]bool {
	withheld := map[format.Field]bool{}
	var fields, fams []string
	for _, f := range format.Fields {
		for _, fam := range append(counterSources[f], format.FamilyNameCounters) {
			if e.broken[fam] {
				withheld[f] = true
				fields = append(fields, format.FieldNames[f])
				if !slices.Contains(fams, fam) {
					fams = append(fams, fam)
				}
				break
			}
		}
	}
	if len(fields) > 0 {
		e.notChecked("counter fields "+strings.Join(fields, ", "), "folded from or stored in "+
			strings.Join(fams, ", ")+", which could not be read to its end (see corruption): their mismatches would be the damage's")
	}
	return withheld
}
