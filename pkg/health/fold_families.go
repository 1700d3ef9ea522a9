package health

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/ankusa/ankusa-store/internal/radix"
	"github.com/ankusa/ankusa-store/internal/runs"
	"github.com/ankusa/ankusa-store/internal/words"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// The readers of each family. A row handler decodes its key and value,
// adds to the counters of its ordinal, and feeds the one-to-one checks; a
// key or value that does not decode is a finding and is not counted.

func (e *foldEngine) scoped(r famRead) famRead {
	if e.scope != nil && len(r.fam.Prefix) == 1 {
		r.lo, r.hi = r.fam.TenantSpan(e.scope.Ord)
	}
	return r
}

// foldTenants reads t, then n, and checks that they agree both ways
// (invariant 4). With one tenant it reads that tenant's rows only.
func (e *foldEngine) foldTenants() error {
	defer e.ords.freeze(e.hasNextOrd, e.nextOrd)
	if e.scope != nil {
		return e.checkSentinels()
	}
	err := e.read(famRead{fam: format.FamTenantByOrd, row: func(k, v []byte) bool {
		tk, err := format.DecodeTenantByOrdKey(k)
		if err != nil {
			e.badKeyErr(format.FamTenantByOrd, k, err)
			return false
		}
		s := e.ords.get(tk.Ord)
		s.flags |= ordHasT
		e.tenants++
		if len(v) == 0 {
			s.flags |= ordErased
			e.erased++
		} else {
			e.ords.setName(s, v)
			if !format.ValidTenantID(v) {
				e.finding(CheckBadValue, e.tenantPtr(tk.Ord), keyRef(format.CFTenants, k), nil,
					fmt.Sprintf("its value %q is not a tenant id (non-empty UTF-8 of at most %d bytes)", v, format.MaxTenantIDLen))
			}
		}
		e.checkOrdBounds(tk.Ord, k, "t row")
		return false
	}})
	if err != nil {
		return err
	}
	err = e.read(famRead{fam: format.FamOrdByTenant, row: func(k, v []byte) bool {
		nk, err := format.DecodeOrdByTenantKey(k)
		if err != nil {
			e.badKeyErr(format.FamOrdByTenant, k, err)
			return false
		}
		ord, err := format.DecodeU32(v)
		if err != nil {
			e.badValue(format.CFTenants, k, v, nil, err)
			return false
		}
		e.checkOrdBounds(ord, k, "n row")
		e.matchTenant(nk.Tenant, ord, k)
		return false
	}})
	if err != nil {
		return err
	}
	e.ords.each(func(ord uint32, s *ordState) {
		if s.flags&(ordHasT|ordErased|ordHasN) != ordHasT {
			return
		}
		tk := format.TenantByOrdKey{Ord: ord}.Encode()
		name := e.ords.nameOf(s)
		nk := format.OrdByTenantKey{Tenant: name}.Encode()
		detail := fmt.Sprintf("t row %d names %q, but no n row %q points back at ordinal %d", ord, name, name, ord)
		if v, ok, err := e.st.GetOpts(format.CFTenants, nk, e.ro); err == nil && ok {
			if o, err := format.DecodeU32(v); err == nil {
				detail += fmt.Sprintf(" (it points at ordinal %d)", o)
			}
		}
		e.finding(CheckTenantMaps, e.tenantPtr(ord), keyRef(format.CFTenants, tk), []KeyRef{keyRef(format.CFTenants, nk)}, detail)
	})
	return nil
}

// matchTenant checks an n row (tenant -> ord) against the t row of ord.
func (e *foldEngine) matchTenant(tenant string, ord uint32, nkey []byte) {
	s := e.ords.lookup(ord)
	var detail string
	switch {
	case s == nil || s.flags&ordHasT == 0:
		detail = fmt.Sprintf("n row %q points at ordinal %d, which has no t row", tenant, ord)
	case s.flags&ordErased != 0:
		detail = fmt.Sprintf("n row %q points at ordinal %d, whose t row is erased (a tombstone)", tenant, ord)
	case string(e.ords.nameBytes(s)) != tenant:
		detail = fmt.Sprintf("n row %q points at ordinal %d, but t row %d names %q", tenant, ord, ord, e.ords.nameOf(s))
	default:
		s.flags |= ordHasN
		return
	}
	tk := format.TenantByOrdKey{Ord: ord}.Encode()
	e.finding(CheckTenantMaps, e.tenantPtr(ord), keyRef(format.CFTenants, nkey), []KeyRef{keyRef(format.CFTenants, tk)}, detail)
}

// checkOrdBounds checks what invariant 4 says of an ordinal a t or n row
// names: it is not 0 and is below m:next_ord.
func (e *foldEngine) checkOrdBounds(ord uint32, key []byte, what string) {
	switch {
	case ord == format.AggregateOrd:
		e.finding(CheckTenantOrdZero, nil, keyRef(format.CFTenants, key), nil,
			fmt.Sprintf("a %s names ordinal 0, the node aggregate, which is never a tenant", what))
	case e.hasNextOrd && ord >= e.nextOrd:
		e.finding(CheckOrdNotBelowNext, e.tenantPtr(ord), keyRef(format.CFTenants, key), nil,
			fmt.Sprintf("a %s names ordinal %d, not below m:next_ord %d", what, ord, e.nextOrd))
	}
}

// foldDue reads D: pending or scheduled by kind, and bytes. Every due row
// needs its active marker (markerCheck) and is one delivery's index key
// (r5).
func (e *foldEngine) foldDue() error {
	e.ords.freeze(e.hasNextOrd, e.nextOrd)
	pause := func() error {
		if err := e.spillMarkers(); err != nil {
			return err
		}
		return e.flushProbe()
	}
	err := e.read(e.scoped(famRead{fam: format.FamDue, pause: pause, row: func(k, v []byte) bool {
		dk, err := format.DecodeDueKey(k)
		if err != nil {
			e.badKeyErr(format.FamDue, k, err)
			return false
		}
		s := e.use(dk.Ord, format.CFIndex, k, false)
		if dv, err := format.DecodeDueValue(v); err != nil {
			e.badValue(format.CFIndex, k, v, e.tenantPtr(dk.Ord), err)
		} else {
			s.net.add(dv.Field(), 1)
			s.net.add(format.FieldBytes, int64(dv.Size))
			s.flags |= ordFolded
		}
		if e.r5 != nil {
			el := seqSinkElem(dk.Seq, dk.Sink)
			e.r5.add(0, &el)
		}
		full := e.markers.ask(dk)
		return e.probe.add(dk.Seq, dk.Sink) || full
	}}))
	if err != nil {
		return err
	}
	if err := e.flushProbe(); err != nil {
		return err
	}
	if err := e.joinMarkers(); err != nil {
		return err
	}
	e.markers.need, e.markers.tmp = nil, nil // joined: the batch can go
	return nil
}

// foldInflight reads F: inflight and bytes.
func (e *foldEngine) foldInflight() error {
	err := e.read(e.scoped(famRead{fam: format.FamInflight, pause: e.flushProbe, row: func(k, v []byte) bool {
		fk, err := format.DecodeInflightKey(k)
		if err != nil {
			e.badKeyErr(format.FamInflight, k, err)
			return false
		}
		s := e.use(fk.Ord, format.CFIndex, k, false)
		if size, err := format.DecodeSize(v); err != nil {
			e.badValue(format.CFIndex, k, v, e.tenantPtr(fk.Ord), err)
		} else {
			s.net.add(format.FieldInflight, 1)
			s.net.add(format.FieldBytes, int64(size))
			s.flags |= ordFolded
		}
		if e.r5 != nil {
			el := seqSinkElem(fk.Seq, fk.Sink)
			e.r5.add(0, &el)
		}
		return e.probe.add(fk.Seq, fk.Sink)
	}}))
	if err != nil {
		return err
	}
	return e.flushProbe()
}

// foldDead reads x: dead, and bytes from each row's delivery row. Its
// value's ord names the tenant; x and X must mirror each other (r3). In
// format 2 it is only an index key (r5).
func (e *foldEngine) foldDead() error {
	var unattributed int64
	pause := func() error {
		if err := e.flushDead(laneIndex, deadIfFull); err != nil {
			return err
		}
		return e.flushProbe()
	}
	err := e.read(famRead{fam: format.FamDead, pause: pause, row: func(k, v []byte) bool {
		dk, err := format.DecodeDeadKey(k)
		if err != nil {
			e.badKeyErr(format.FamDead, k, err)
			return false
		}
		if e.format == format.Format2 {
			if _, err := format.DecodeDeadValue(v); err != nil {
				e.badValue(format.CFIndex, k, v, nil, err)
			}
			el := seqSinkElem(dk.Seq, dk.Sink)
			e.r5.add(0, &el)
			return false
		}
		ord, hasOrd, err := deadValueOrd(v)
		var s *ordState
		switch {
		case err != nil || !hasOrd:
			// A dead row all the same, of a tenant nobody can name: it
			// counts in the aggregate only.
			if e.scope != nil {
				unattributed++
				return false
			}
			if err != nil {
				e.badValue(format.CFIndex, k, v, nil, err)
			} else {
				e.finding(CheckDeadWithoutOrd, nil, keyRef(format.CFIndex, k), nil,
					"a format 2 dead value {source_id, id} in a format 3 store: it should carry the tenant's ordinal")
			}
			ord, s = format.AggregateOrd, e.agg()
		case !e.inScope(ord):
			return false
		default:
			if e.ords.isPlain(ord) {
				e.countLater(ord, format.FieldDead)
			} else {
				s = e.use(ord, format.CFIndex, k, false)
			}
			if e.r3 != nil {
				el := deadElem(ord, dk.At, dk.Seq, dk.Sink)
				e.r3.add(0, &el)
			}
		}
		if s != nil {
			s.net.add(format.FieldDead, 1)
			s.flags |= ordFolded
		}
		if e.r5 != nil {
			el := seqSinkElem(dk.Seq, dk.Sink)
			e.r5.add(0, &el)
		}
		full := e.dead.add(dk.Seq, dk.Sink, ord)
		return e.probe.add(dk.Seq, dk.Sink) || full
	}})
	e.applyCounts()
	if err != nil {
		return err
	}
	if unattributed > 0 {
		e.notChecked("dead rows without an ordinal", fmt.Sprintf(
			"%d x row%s carry no readable ordinal, so whether they are this tenant's is unknown; verify without --tenant names them",
			unattributed, words.Plural(unattributed, "", "s")))
	}
	if err := e.flushProbe(); err != nil {
		return err
	}
	// The whole store joins the last rows on the rows lane: in its
	// deliveries scan (Verify) or a join pass of its own (Fold).
	if err := e.flushDead(laneIndex, deadLater); err != nil {
		return err
	}
	if e.scope == nil {
		// Packed: the batch and its scratch (32 MiB) can go before the
		// markers' batches grow.
		e.dead.rows, e.dead.tmp = nil, nil
	}
	return nil
}

// deadSizes collects dead rows waiting for their delivery row's size. The
// whole store joins them with a sequential scan of the deliveries (a point
// read costs ten times a scanned key): batches of at most sizes.dead rows are
// sorted and packed into runs (internal/runs), which the rows lane's
// deliveries scan joins all at once; only runs past their byte budget take a
// join pass of their own. One tenant reads its few by point reads.
type deadSizes struct {
	budget int       // the rows of a batch (sizes.dead)
	rows   []deadRow // the batch
	maxSeq uint64    // of the batch
	tmp    []deadRow // the batch's sort's scratch
	runs   runs.Sorted
	// sparse is the ordTable's map as it was when the runs were packed: the
	// rows lane resolves their ordinals while the index lane adds to it.
	sparse map[uint32]*ordState
}

type deadRow struct {
	seq  uint64
	sink uint16
	ord  uint32
}

// appendDoubling is append for the batches of a join, which grow to a
// million elements: doubling where append would grow a large slice by a
// quarter halves the bytes copied and the fresh pages touched.
func appendDoubling[T any](s []T, v T) []T {
	if len(s) == cap(s) {
		s = slices.Grow(s, max(1024, cap(s)))
	}
	return append(s, v)
}

func (d *deadSizes) add(seq uint64, sink uint16, ord uint32) (full bool) {
	d.rows = appendDoubling(d.rows, deadRow{seq: seq, sink: sink, ord: ord})
	d.maxSeq = max(d.maxSeq, seq)
	return len(d.rows) >= d.budget
}

// pack sorts the batch into a run, in the deliveries' (seq, sink) order.
func (d *deadSizes) pack(t *ordTable) {
	if len(d.rows) == 0 {
		return
	}
	if d.maxSeq < 1<<48 {
		d.tmp = radix.Sort(d.rows, d.tmp, deadKey)
	} else {
		slices.SortStableFunc(d.rows, func(a, b deadRow) int {
			if c := cmp.Compare(a.seq, b.seq); c != 0 {
				return c
			}
			return cmp.Compare(a.sink, b.sink)
		})
	}
	d.maxSeq = 0
	d.runs.Pack(len(d.rows), func(i int) runs.Elem {
		r := &d.rows[i]
		return runs.Elem{r.seq, uint64(r.sink), uint64(r.ord)}
	})
	d.rows = d.rows[:0]
	d.sparse = maps.Clone(t.sparse)
}

// ordState resolves an ordinal of the runs; it is safe on the rows lane.
func (d *deadSizes) ordState(t *ordTable, ord uint32) *ordState {
	if t.inDense(ord) {
		return &t.dense.S()[ord]
	}
	return d.sparse[ord]
}

// When flushDead joins the packed dead rows with the deliveries.
const (
	deadIfFull = iota // only runs past their budget (the dead scan is paused)
	deadLater         // never: the rows lane joins them
	deadNow           // always (Fold's own join pass)
)

// flushDead adds the size of each waiting dead row's delivery row to its
// tenant's bytes: by point reads for one tenant; else it packs them, and
// joins the runs by a pass over the deliveries as when says. A missing
// delivery row counts 0 (r5 counts it); one that does not decode counts 0
// and is a finding.
func (e *foldEngine) flushDead(lane, when int) error {
	d := &e.dead
	if e.scope != nil {
		if len(d.rows) == 0 {
			return nil
		}
		return e.getDeadSizes()
	}
	if when == deadIfFull && len(d.rows) < e.sz.dead {
		return nil
	}
	d.pack(&e.ords)
	if d.runs.Empty() || when == deadLater || (when == deadIfFull && d.runs.Size() < e.sz.deadRunBytes()) {
		return nil
	}
	j := e.deadJoin()
	fk := e.famCounter(format.FamDeliveries.Name, format.FamDeliveries.CF)
	var keys int64
	defer func() { fk.Keys += keys }()
	err := e.reread(format.FamDeliveries, nil, nil, func(k, v []byte) error {
		keys++
		if dk, err := format.DecodeDeliveryKey(k); err == nil {
			j.row(e, dk, k, v)
		}
		return e.tick(lane)
	})
	if ferr := j.finish(e); err == nil {
		err = ferr
	}
	d.runs.Reset()
	return err
}

// deadJoin walks the packed dead rows, merged, beside a deliveries scan.
// The next dead row's (seq, sink) is kept apart, so that the delivery rows
// before it, three in four, cost one compare.
type deadJoin struct {
	rows      *runs.Merge
	seq, sink uint64
	more      bool
	// bytes holds the sizes for the dense ordinals, which come in no
	// ordinal order (fold_ord_adds.go); finish applies them.
	bytes ordAdds
}

// err is a spilled run's failed read: the join stopped short of it.
func (j *deadJoin) err() error {
	if err := j.rows.Err(); err != nil {
		return fmt.Errorf("reading the dead rows' runs back: %w", err)
	}
	return nil
}

func (e *foldEngine) deadJoin() deadJoin {
	j := deadJoin{rows: e.dead.runs.Merge(), bytes: ordAdds{batch: e.sz.ordAdds}}
	j.load()
	return j
}

// load reads the next dead row's (seq, sink) off the runs.
func (j *deadJoin) load() {
	r := j.rows.Peek()
	j.more = r != nil
	if j.more {
		j.seq, j.sink = r[0], r[1]
	}
}

func (j *deadJoin) row(e *foldEngine, dk format.DeliveryKey, k, v []byte) {
	seq, sink := dk.Seq, uint64(dk.Sink)
	if !j.more || seq < j.seq || (seq == j.seq && sink < j.sink) {
		return
	}
	// Dead rows before this delivery row have none (r5 counts them).
	for j.more && (j.seq < seq || (j.seq == seq && j.sink < sink)) {
		j.rows.Next()
		j.load()
	}
	if !j.more || j.seq != seq || j.sink != sink {
		return
	}
	size, err := deliverySize(v)
	if err != nil {
		e.undecodableDelivery(k)
	}
	// Two dead keys for one delivery (a finding of r5) both count it; the
	// third word is each one's ordinal.
	for j.more && j.seq == seq && j.sink == sink {
		ord := uint32(j.rows.Peek()[2])
		if e.ords.inDense(ord) && size <= math.MaxUint32 {
			if j.bytes.add(ord, uint32(size)) {
				j.applyBytes(e)
			}
		} else {
			e.dead.ordState(&e.ords, ord).deadBytes += int64(size)
		}
		j.rows.Next()
		j.load()
	}
}

// applyBytes adds the sizes bytes holds to their ordinals.
func (j *deadJoin) applyBytes(e *foldEngine) {
	dense := e.ords.dense.S()
	j.bytes.flush(func(ord, n uint32) { dense[ord].deadBytes += int64(n) })
}

// finish applies what the join holds and returns err's error: the join's
// sizes are all in their ordStates after it, whether or not it failed.
func (j *deadJoin) finish(e *foldEngine) error {
	j.applyBytes(e)
	j.bytes.free()
	return j.err()
}

// getDeadSizes reads the delivery rows of one tenant's dead rows.
func (e *foldEngine) getDeadSizes() error {
	d := &e.dead
	defer func() { d.rows = d.rows[:0] }()
	for start := 0; start < len(d.rows); start += e.sz.probeChunk {
		rows := d.rows[start:min(start+e.sz.probeChunk, len(d.rows))]
		keys := make([][]byte, len(rows))
		for i, r := range rows {
			keys[i] = format.DeliveryKey{Seq: r.seq, Sink: r.sink}.Encode()
		}
		vals, found, err := e.multiGet(format.FamDeliveries, keys)
		if err != nil {
			return err
		}
		for i, ok := range found {
			if !ok {
				continue
			}
			size, err := deliverySize(vals[i])
			if err != nil {
				e.undecodableDelivery(keys[i])
				continue
			}
			e.ords.lookup(rows[i].ord).deadBytes += int64(size)
		}
	}
	return nil
}

// foldDeadByTenant reads X: each X row must mirror an x row (r3).
func (e *foldEngine) foldDeadByTenant() error {
	return e.read(e.scoped(famRead{fam: format.FamDeadByTenant, row: func(k, v []byte) bool {
		xk, err := format.DecodeDeadByTenantKey(k)
		if err != nil {
			e.badKeyErr(format.FamDeadByTenant, k, err)
			return false
		}
		e.use(xk.Ord, format.CFIndex, k, false)
		if len(v) != 0 {
			e.badValue(format.CFIndex, k, v, e.tenantPtr(xk.Ord), fmt.Errorf("want an empty value"))
		}
		el := deadElem(xk.Ord, xk.At, xk.Seq, xk.Sink)
		e.r3.add(1, &el)
		return false
	}}))
}

// foldArchive reads a: archive_pending for rows that carry an ord.
func (e *foldEngine) foldArchive() error {
	err := e.read(famRead{fam: format.FamArchive, row: func(k, v []byte) bool {
		if _, err := format.DecodeArchiveKey(k); err != nil {
			e.badKeyErr(format.FamArchive, k, err)
			return false
		}
		av, err := format.DecodeArchiveValue(v)
		switch {
		case err != nil:
			if e.scope == nil {
				e.badValue(format.CFIndex, k, v, nil, err)
			}
			return false
		case e.format == format.Format2:
			return false
		case !av.HasOrd:
			if e.scope == nil {
				e.finding(CheckArchiveWithoutOrd, nil, keyRef(format.CFIndex, k), nil,
					"a format 2 archive value <<size::32>> in a format 3 store: it should carry the tenant's ordinal")
				e.agg().net.add(format.FieldArchivePending, 1)
			}
			return false
		case !e.inScope(av.Ord):
			return false
		}
		if e.ords.isPlain(av.Ord) {
			e.countLater(av.Ord, format.FieldArchivePending)
			return false
		}
		s := e.use(av.Ord, format.CFIndex, k, false)
		s.net.add(format.FieldArchivePending, 1)
		s.flags |= ordFolded
		return false
	}})
	e.applyCounts()
	return err
}

// foldCounters reads the stored counters: every key of the family, or the
// six of one tenant. The aggregate is its unsharded key plus its shards.
func (e *foldEngine) foldCounters() error {
	if e.scope != nil {
		return e.getTenantCounters()
	}
	return e.read(famRead{
		fam: format.FamCounters,
		row: func(k, v []byte) bool {
			ck, err := format.DecodeCounterKey(k)
			if err != nil {
				e.finding(CheckCounterKey, nil, keyRef(format.CFCounters, k), nil, fmt.Sprintf("not a counter: %v", err))
				return false
			}
			e.storeCounter(ck, k, v)
			return false
		},
		failedKey: func(k []byte) {
			if ck, err := format.DecodeCounterKey(k); err == nil {
				e.unreadCounters[format.CounterKey{Ord: ck.Ord, Field: ck.Field, Shard: format.Unsharded}] = true
			}
		},
	})
}

// storeCounter takes a stored counter off its ordinal's net. It runs after
// every family the counters count is folded on the index lane (steps); the
// rows lane's dead bytes are apart, in deadBytes.
func (e *foldEngine) storeCounter(ck format.CounterKey, k, v []byte) {
	n, err := format.DecodeCounterValue(v)
	if err != nil {
		e.finding(CheckCounterValue, e.tenantPtr(ck.Ord), keyRef(format.CFCounters, k), nil,
			fmt.Sprintf("its value does not decode, so it reads as no counter: %v", err))
		e.unreadCounters[format.CounterKey{Ord: ck.Ord, Field: ck.Field, Shard: format.Unsharded}] = true
		return
	}
	s := e.use(ck.Ord, format.CFCounters, k, true)
	s.flags |= ordStored
	if ck.Ord == format.AggregateOrd {
		e.aggStored.add(ck.Field, n)
		return
	}
	s.net.add(ck.Field, -n)
	e.storedSum.add(ck.Field, n)
}

// checkFormat2Keys looks for d and f keys, which a format 3 store no longer
// has (invariant 6): the migration's finish deletes both ranges.
func (e *foldEngine) checkFormat2Keys() error {
	for _, f := range []format.Family{format.FamDueV2, format.FamInflightV2} {
		fk := e.famCounter(f.Name, f.CF)
		err := e.st.Scan(f.CF, f.Prefix, f.PrefixEnd(), e.ro, func(k, _ []byte) error {
			fk.Keys++
			e.finding(CheckFormat2KeyRemains, nil, keyRef(f.CF, k), nil,
				fmt.Sprintf("a format 2 %s key in a format 3 store: the migration's finish deletes the whole range", f.Name))
			return e.tick(laneIndex)
		})
		if err != nil {
			if isCorrupt(err) {
				e.corrupt(f, nil, corruptDetail(err))
				continue
			}
			return err
		}
	}
	return nil
}

// foldDueV2 and foldInflightV2 read a format 2 store's d and f: each row is
// one delivery's index key (r5), whatever state it names, so the two differ
// only in how the key decodes.
func (e *foldEngine) foldDueV2() error {
	return e.foldV2Index(format.FamDueV2, func(k []byte) (uint64, uint16, error) {
		dk, err := format.DecodeDueV2Key(k)
		return dk.Seq, dk.Sink, err
	})
}

func (e *foldEngine) foldInflightV2() error {
	return e.foldV2Index(format.FamInflightV2, func(k []byte) (uint64, uint16, error) {
		fk, err := format.DecodeInflightV2Key(k)
		return fk.Seq, fk.Sink, err
	})
}

// foldV2Index folds one of those families: a key that does not decode is a
// bad key, a value that is not a size a bad value, and every row an element
// of r5 by (seq, sink).
func (e *foldEngine) foldV2Index(f format.Family, decode func(k []byte) (seq uint64, sink uint16, err error)) error {
	return e.read(famRead{fam: f, row: func(k, v []byte) bool {
		seq, sink, err := decode(k)
		if err != nil {
			e.badKeyErr(f, k, err)
			return false
		}
		if _, err := format.DecodeSize(v); err != nil {
			e.badValue(format.CFIndex, k, v, nil, err)
		}
		el := seqSinkElem(seq, sink)
		e.r5.add(0, &el)
		return false
	}})
}

// undecodableDelivery counts a dead row's delivery row that does not decode:
// the contract gives it size 0 and has it counted and reported like a missing
// one (invariant 5), not failed. Its key is listed in the counts.
func (e *foldEngine) undecodableDelivery(k []byte) {
	e.badDeliveries++
	if len(e.badDeliveryKeys) < MaxFindingsPerCheck {
		e.badDeliveryKeys = append(e.badDeliveryKeys, keyRef(format.CFDeliveries, k))
	}
}
