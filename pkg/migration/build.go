package migration

import (
	"sync"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// maxDefaultSeqs bounds the seqs remembered to count distinct hooks filed
// under default, so that memory does not grow with the store; past it hooks
// are counted once per step and the summary says the count is approximate.
// Findings (rare) and nil tenants (all of an old node's hooks, maybe) have a
// budget each, so that a store of nil tenants keeps its findings exact.
const maxDefaultSeqs = 1 << 16

// builder turns fetched steps into batches, strictly in step order: it owns
// the ordinal allocator, whose first-sight order is the order of the steps.
type builder struct {
	ords      *ordinals
	startedAt uint64 // ms; a due row after it is a retry (kind 1)
	deltas    format.Deltas
	markers   map[format.ActiveKey]struct{}

	// defaultSeqs[finding] holds the seqs counted so far.
	defaultSeqs [2]map[uint64]struct{}
	seqLimit    int
	approx      bool

	ops      opBuf
	key, val []byte // scratch; ops copies what it is given

	// sink, when set, is handed each step's writes once its batch is built (the bulk
	// method keeps them for its tables; the range deletions of the finish are its own).
	sink func(*opBuf) error
	// sumsCounters: the sink takes the step's counter deltas (deltas) and sums them
	// itself, so the builder makes no operand of them (the bulk method's counter sums:
	// the operands' sort and encoding, and their keys decoded again to be summed, were a
	// tenth of its CPU at 10^7 rows); it still counts them in the step's writes and bytes.
	sumsCounters bool
	// keepStrays: the sink takes each dead or archive stray as a put of its key and value as
	// they were, beside the step's writes and not counted among them (the steps make no
	// such write): the bulk method's kept keys' reader passes over those families' keys
	// (skippedSpans), and its table files must still hold them.
	keepStrays bool
	strays     []int // the step's dead and archive strays, by row, while keepStrays
}

func newBuilder(ords *ordinals, startedAt uint64) *builder {
	return &builder{
		ords: ords, startedAt: startedAt,
		markers:     map[format.ActiveKey]struct{}{},
		defaultSeqs: [2]map[uint64]struct{}{{}, {}},
		seqLimit:    maxDefaultSeqs,
	}
}

// build fills stp.batch and stp.stats. drain waits until every step before
// stp is committed; the allocator needs it before it may forget ordinals.
func (b *builder) build(stp *step, drain func(num int) error) error {
	if b.ords.full() {
		if err := drain(stp.num); err != nil {
			return err
		}
		b.ords.clear()
	}
	if err := b.ords.lookup(stp.tenants); err != nil {
		return err
	}
	// stp.tenants lists hooks in the order their rows come, so resolving them
	// in that order hands out ordinals in first-sight order.
	ords := make([]uint32, len(stp.tenants))
	st := &stp.stats
	b.ords.warm(stp.tenants)
	for i, t := range stp.tenants {
		ord, err := b.ords.resolve(t)
		if err != nil {
			return err
		}
		ords[i] = ord
		b.countDefault(st, t)
	}

	b.ops.reset()
	b.deltas.Reset()
	b.strays = b.strays[:0]
	clear(b.markers)
	for i := range stp.rows {
		r := &stp.rows[i]
		pi := r.phase - 1
		if r.stray {
			st.strays[pi]++
			if len(st.strayEx[pi]) < maxExamples {
				st.strayEx[pi] = append(st.strayEx[pi], append([]byte(nil), r.key...))
			}
			if b.keepStrays && (r.phase == PhaseDead || r.phase == PhaseArchive) {
				b.strays = append(b.strays, i)
			}
			continue
		}
		st.rows[pi]++
		ord := ords[r.hook]
		if reason := stp.tenants[r.hook].reason; reason != format.ReasonNone {
			st.defRows[reason]++
		}
		b.row(st, r, ord)
	}
	var counterOps, counterBytes int
	if b.sumsCounters {
		counterOps, counterBytes = b.deltas.OpsSize()
	} else {
		for _, op := range b.deltas.Ops() {
			b.ops.merge(cfCounters, op.Key, op.Operand)
		}
	}
	for _, n := range b.ords.fresh {
		b.key = format.TenantByOrdKey{Ord: n.ord}.Append(b.key[:0])
		b.ops.put(cfTenants, b.key, []byte(n.tenant))
		b.key = format.OrdByTenantKey{Tenant: n.tenant}.Append(b.key[:0])
		b.ops.put(cfTenants, b.key, format.EncodeU32(n.ord))
	}
	if len(b.ords.fresh) > 0 {
		b.ops.put(cfDefault, []byte(format.KeyNextOrd), format.EncodeU32(b.ords.next))
	}
	st.newTenants = uint32(len(b.ords.fresh))
	st.nextOrd = b.ords.next
	b.ords.fresh = b.ords.fresh[:0]

	if stp.finish {
		b.ops.del(cfDefault, []byte(format.KeyMigrating3))
		b.ops.del(cfDefault, []byte(format.KeyMigrating3Now))
		b.ops.put(cfDefault, []byte(format.KeyFormat), format.EncodeU32(format.Format3))
	} else {
		b.ops.put(cfDefault, []byte(format.KeyMigrating3), stp.cursor.Encode())
	}
	// The step's operations and bytes, as its batch counts them (rocks.Batch: every write's
	// key and value bytes, the range deletions' bounds): the sink takes the writes without
	// a batch.
	st.ops, st.bytes = int64(len(b.ops.ops)+counterOps), int64(len(b.ops.arena)+counterBytes)
	if stp.finish {
		for _, f := range finishFamilies {
			lo, hi := prefixRange(f)
			st.ops++
			st.bytes += int64(len(lo) + len(hi))
		}
	}
	for _, i := range b.strays {
		b.ops.put(cfIndex, stp.rows[i].key, stp.rows[i].val)
	}
	if b.sink != nil {
		return b.sink(&b.ops)
	}
	batch := newBatch()
	if err := b.ops.writeTo(batch); err != nil {
		return err
	}
	if stp.finish {
		// Phase 5: the old due and inflight families go whole, sentinels and
		// strays with them.
		for _, f := range finishFamilies {
			lo, hi := prefixRange(f)
			batch.DeleteRange(f.CF, lo, hi)
		}
	}
	stp.batch = batch
	return nil
}

// finishFamilies are the format 2 families the finish deletes whole.
var finishFamilies = []format.Family{format.FamDueV2, format.FamInflightV2}

// row adds one row's operations and counter deltas (the contract's phase table).
func (b *builder) row(st *stepStats, r *row, ord uint32) {
	switch r.phase {
	case PhaseDue:
		kind, field := format.KindFirstAttempt, format.FieldPending
		if r.at > b.startedAt {
			kind, field = format.KindRetry, format.FieldScheduled
		}
		b.ops.del(cfIndex, r.key)
		dk := format.DueKey{Ord: ord, At: r.at, Seq: r.seq, Sink: r.sink}
		b.key = dk.Append(b.key[:0])
		b.val = format.DueValue{Size: uint32(r.size), Kind: kind}.Append(b.val[:0])
		b.ops.put(cfIndex, b.key, b.val)
		if m := dk.ActiveKey(); !b.hasMarker(m) {
			b.key = m.Append(b.key[:0])
			b.ops.put(cfIndex, b.key, nil)
		}
		b.deltas.Add(ord, field, 1)
		b.deltas.Add(ord, format.FieldBytes, r.size)
	case PhaseInflight:
		b.ops.del(cfIndex, r.key)
		b.key = format.InflightKey{Ord: ord, Seq: r.seq, Sink: r.sink}.Append(b.key[:0])
		b.ops.put(cfIndex, b.key, r.val) // <<size::32>>, unchanged
		b.deltas.Add(ord, format.FieldInflight, 1)
		b.deltas.Add(ord, format.FieldBytes, r.size)
	case PhaseDead:
		v := r.dead
		v.Ord, v.HasOrd = ord, true
		b.val = v.AppendEncode(b.val[:0])
		b.ops.put(cfIndex, r.key, b.val)
		b.key = format.DeadByTenantKey{Ord: ord, At: r.at, Seq: r.seq, Sink: r.sink}.Append(b.key[:0])
		b.ops.put(cfIndex, b.key, nil)
		b.deltas.Add(ord, format.FieldDead, 1)
		b.deltas.Add(ord, format.FieldBytes, r.size)
		switch r.sizeBad {
		case deliveryMissing:
			st.delivMissing++
		case deliveryUndecodable:
			st.delivBad++
		}
		if r.sizeBad != deliveryOK && len(st.delivEx) < maxExamples {
			st.delivEx = append(st.delivEx, format.DeliveryKey{Seq: r.seq, Sink: r.sink}.Encode())
		}
	case PhaseArchive:
		b.val = format.ArchiveValue{Size: uint32(r.size), Ord: ord, HasOrd: true}.Append(b.val[:0])
		b.ops.put(cfIndex, r.key, b.val)
		b.deltas.Add(ord, format.FieldArchivePending, 1)
	}
}

// batches recycles the steps' batches: a step's is ~100 KiB of keys and
// values, grown from nothing each time otherwise. The pipeline returns a
// batch once it is committed (Write keeps nothing of it).
var batches = sync.Pool{New: func() any { return rocks.NewBatch() }}

func newBatch() *rocks.Batch {
	b := batches.Get().(*rocks.Batch)
	b.Clear()
	return b
}

// hasMarker reports whether the batch already puts the marker, and notes it.
// Rows of one tenant in one second share a marker.
func (b *builder) hasMarker(m format.ActiveKey) bool {
	if _, ok := b.markers[m]; ok {
		return true
	}
	b.markers[m] = struct{}{}
	return false
}

// countDefault counts a hook filed under default, once per distinct seq while
// the run can remember them.
func (b *builder) countDefault(st *stepStats, t hookTenant) {
	if t.reason == format.ReasonNone {
		return
	}
	seen := b.defaultSeqs[0]
	if t.reason.IsFinding() {
		seen = b.defaultSeqs[1]
	}
	if _, ok := seen[t.seq]; ok {
		return
	}
	if len(seen) < b.seqLimit {
		seen[t.seq] = struct{}{}
	} else {
		b.approx = true
	}
	st.defHooks[t.reason]++
	if t.reason.IsFinding() && len(st.defEx[t.reason]) < maxExamples {
		st.defEx[t.reason] = append(st.defEx[t.reason], t.seq)
	}
}
