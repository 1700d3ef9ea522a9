package health

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/ankusa/ankusa-store/internal/offheap"
	"github.com/ankusa/ankusa-store/internal/reporting"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// foldEngine reads a store once, family by family, at one snapshot. Fold
// runs it for the counters alone; Verify runs it with every check, so that
// each family is read once however many invariants it takes part in.
//
// Its memory grows with tenants (one ordState per ordinal) and never with
// rows: the one-to-one checks go through fixed-size reconTables, and the
// rows that need a point read (a dead row's delivery size) are read in
// chunks.
//
// A whole-store run reads on two lanes (goroutines): the index, tenants and
// counters families on one, the delivery rows and hooks on the other (its
// hooks join on a goroutine of its own, fold_deliveries.go). Reading
// is nearly all of a run's time, and RocksDB iterators run in parallel. The
// lanes share the ordStates (the rows lane only ever adds to deadBytes),
// keep one half of r5 each, and take mu for what goes into the report.
type foldEngine struct {
	ctx    context.Context
	st     *rocks.Store
	snap   *rocks.Snapshot
	ro     rocks.ReadOpts
	format uint32
	checks bool
	// scope is the one tenant a run is limited to; nil for the whole store.
	scope *TenantRef

	// Dead rows' delivery rows that do not decode: counted, size 0.
	badDeliveries   int64
	badDeliveryKeys []KeyRef

	nextOrd    uint32
	hasNextOrd bool
	ords       ordTable
	// The last ordinal use() resolved without anything to note: rows of
	// the ord-led families come in runs of one ordinal.
	lastOrd uint32
	lastSt  *ordState
	// odd holds the ordinals used by a row or counter that need a finding:
	// ordinal 0 in an index row, no t row, not below m:next_ord.
	odd map[uint32]*ordUse
	// unreadCounters are counters whose merge failed: there is no stored
	// value to compare.
	unreadCounters map[format.CounterKey]bool
	// aggStored is the aggregate's stored counters (its unsharded key and
	// shards); storedSum sums every other ordinal's, which their net lacks
	// and the aggregate's fold needs.
	aggStored, storedSum Counters

	mu       sync.Mutex // the report, famKeys, broken
	rep      *Report
	famKeys  []*FamilyKeys
	perCheck map[string]int
	// broken names families that could not be read to their end.
	broken map[string]bool

	// progress counts the keys read (from both lanes at once) and is told which families
	// the lanes read now (see reading).
	progress reporting.Reporter
	// ticks counts the keys each lane reads, each on a cache line of its
	// own: two cores incrementing counters on one line would pass it back
	// and forth for every key.
	_     [cacheLine]byte
	ticks [3]laneTicks

	phaseMu  sync.Mutex
	lanes    [2]string
	deadStep int // index of foldDead in the index lane's steps

	// The one-to-one checks (nil when not made). r5's delivery side is
	// filled on the rows lane, into r5rows, and merged after.
	r5      *reconTable // index keys (side 0) vs delivery rows (side 1), by (seq, sink)
	r5rows  *reconTable
	r3      *reconTable // x rows by their value's ord (side 0) vs X rows (side 1)
	markers markerCheck

	dead  deadSizes
	probe rowProbe // one tenant: do index rows have their delivery row and hook?

	// indexAdds holds the index lane's adds of one to plain ordinals from
	// the families in no ordinal order (dead, archive), applied to field
	// indexAddsField (fold_ord_adds.go).
	indexAdds ordAdds
	// sz bounds the batches, chunks, passes and tables (tunedSizes but in tests).
	sz             *sizes
	indexAddsField format.Field

	deliveryRowsWithoutHook int64
	tenants, erased         int64
}

const cacheLine = 64

type laneTicks struct {
	n int64
	_ [cacheLine - 8]byte
}

type ordUse struct {
	first KeyRef
	keys  int64
}

// ordState is what a run learns about one ordinal: 64 bytes, so that the
// table of 10^6 tenants is 61 MiB (off the heap, see ordTable).
type ordState struct {
	// net is what the index lane folded into the ordinal, less its stored
	// counters: foldCounters reads them after every family they count, and
	// subtracts them here (the aggregate's go to foldEngine.aggStored
	// instead, as they are compared with a sum). A healthy tenant ends at
	// zero; what is not is read again (verify_resolve.go), so the table
	// holds one set of counters a tenant, not two.
	net Counters
	// deadBytes is the size of its dead rows' delivery rows, added on the
	// rows lane (net is the index lane's); netTotal sums the two.
	deadBytes int64
	// name is where the t row's tenant id lies in ordTable.names (0: none):
	// at 10^6 tenants a string header and an allocation each would be a
	// fifth of the table.
	name  uint32
	flags uint8
}

// netTotal is the ordinal's fold less its stored counters (for the
// aggregate, its own rows' fold).
func (s *ordState) netTotal() Counters {
	c := s.net
	c.add(format.FieldBytes, s.deadBytes)
	return c
}

const (
	ordHasT   uint8 = 1 << iota // a t row names the ordinal
	ordErased                   // that t row is a tombstone
	ordHasN                     // an n row points back at it with the same name
	ordFolded                   // a row of the counted families belongs to it
	ordStored                   // it has a counter
)

// ordTablePresize bounds the ordinals the table is sized for up front: twice
// the design record's tenants.max default.
const ordTablePresize = 1 << 21

// Lanes.
const (
	laneIndex = 0 // index, tenants and counters families
	laneRows  = 1 // delivery rows and hooks
	// laneHooks is the hooks join of the rows lane, on a goroutine of its
	// own (fold_deliveries.go); it counts keys and checks the context for
	// itself, but reports as part of the rows lane.
	laneHooks = 2
)

// ordTable holds the ordStates: a dense slice for the ordinals the t rows
// hand out (they are dense from 1), a map for anything else. The slice is
// off the Go heap (the collector would let the heap grow by as much again
// around it), and only grows while the t rows are read, so pointers into it
// stay valid after (nothing holds one across a get of those reads: a
// growth unmaps the old table).
type ordTable struct {
	dense  offheap.Slice[ordState]
	sparse map[uint32]*ordState
	frozen bool
	// plain has a bit for every ordinal of dense that a row may use with
	// nothing to note (a t row names it, below m:next_ord), set when the
	// table freezes: at 10^5 tenants the table is megabytes, the bitmap
	// kilobytes.
	plain []uint64
	// names holds the tenant ids, each as its length (uvarint) and bytes,
	// in blocks that are filled and never moved (a growing slice would copy
	// them over and over); a name is block<<nameBlockBits | offset, and
	// offset 0 of block 0 is unused, so that name 0 means none.
	names [][]byte
}

const nameBlockBits = 20

// setName records s's tenant id.
func (t *ordTable) setName(s *ordState, id []byte) {
	need := binary.MaxVarintLen64 + len(id)
	if n := len(t.names); n == 0 || cap(t.names[n-1])-len(t.names[n-1]) < need {
		t.names = append(t.names, make([]byte, 0, max(1<<nameBlockBits, need)))
		if n == 0 {
			t.names[0] = append(t.names[0], 0)
		}
	}
	n := len(t.names) - 1
	b := t.names[n]
	s.name = uint32(n)<<nameBlockBits | uint32(len(b))
	b = binary.AppendUvarint(b, uint64(len(id)))
	t.names[n] = append(b, id...)
}

// nameOf returns s's tenant id ("" if it has none).
func (t *ordTable) nameOf(s *ordState) string { return string(t.nameBytes(s)) }

// nameBytes is nameOf without a copy.
func (t *ordTable) nameBytes(s *ordState) []byte {
	if s.name == 0 {
		return nil
	}
	b := t.names[s.name>>nameBlockBits][s.name&(1<<nameBlockBits-1):]
	n, w := binary.Uvarint(b)
	return b[w : w+int(n) : w+int(n)]
}

// inDense reports whether ord's state is in the dense slice.
func (t *ordTable) inDense(ord uint32) bool { return int64(ord) < int64(t.dense.Len()) }

func (t *ordTable) get(ord uint32) *ordState {
	if t.inDense(ord) {
		return &t.dense.S()[ord]
	}
	if !t.frozen && int64(ord) < 2*int64(t.dense.Len())+1024 {
		t.dense.Extend(int(ord) + 1)
		return &t.dense.S()[ord]
	}
	if s, ok := t.sparse[ord]; ok {
		return s
	}
	if t.sparse == nil {
		t.sparse = map[uint32]*ordState{}
	}
	s := &ordState{}
	t.sparse[ord] = s
	return s
}

// freeze ends the growth of dense, once the t rows are read.
func (t *ordTable) freeze(hasNextOrd bool, nextOrd uint32) {
	if t.frozen {
		return
	}
	t.frozen = true
	dense := t.dense.S()
	t.plain = make([]uint64, (len(dense)+63)/64)
	for i := range dense {
		ord := uint32(i)
		if ord != format.AggregateOrd && dense[i].flags&ordHasT != 0 && (!hasNextOrd || ord < nextOrd) {
			t.plain[i/64] |= 1 << (i % 64)
		}
	}
}

func (t *ordTable) isPlain(ord uint32) bool {
	i := int64(ord) / 64
	return i < int64(len(t.plain)) && t.plain[i]&(1<<(ord%64)) != 0
}

// lookup is get without creating.
func (t *ordTable) lookup(ord uint32) *ordState {
	if t.inDense(ord) {
		return &t.dense.S()[ord]
	}
	return t.sparse[ord]
}

// each calls fn for every ordinal in ascending order.
func (t *ordTable) each(fn func(ord uint32, s *ordState)) {
	dense := t.dense.S()
	for i := range dense {
		fn(uint32(i), &dense[i])
	}
	keys := make([]uint32, 0, len(t.sparse))
	for k := range t.sparse {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fn(k, t.sparse[k])
	}
}

func newFoldEngine(ctx context.Context, st *rocks.Store, checks bool, tenant format.Tenant, rep reporting.Reporter, sz *sizes) (*foldEngine, error) {
	sz = orTuned(sz)
	e := &foldEngine{
		ctx: ctx, st: st, format: st.Format, checks: checks, progress: reporting.Or(rep), sz: sz,
		odd: map[uint32]*ordUse{}, unreadCounters: map[format.CounterKey]bool{},
		perCheck: map[string]int{}, broken: map[string]bool{},
		rep: &Report{Schema: ReportSchema, Format: st.Format, FindingsOmitted: map[string]int64{},
			CounterMismatches: []CounterMismatch{}, Findings: []Finding{}, Corruption: []Corruption{},
			NotChecked: []NotChecked{}, Families: []FamilyKeys{}},
	}
	e.ords.get(format.AggregateOrd)
	e.dead.budget, e.markers.budget, e.probe.chunk, e.indexAdds.batch = sz.dead, sz.markers, sz.probeChunk, sz.ordAdds
	e.dead.runs.Init(3, "counters verify: dead rows", sz.runs)
	e.markers.runs.Init(2, "counters verify: markers", sz.runs)
	// One snapshot for every read, so that the families are folded at one
	// point even on a store that is being written (ReadWrite, as a repair
	// opens it). A secondary instance cannot take snapshots, and needs
	// none: it only moves when told to catch up with its primary, which
	// nothing does during a run.
	if st.Mode() != rocks.Secondary {
		var err error
		if e.snap, err = st.NewSnapshot(); err != nil {
			return nil, err
		}
		e.ro = rocks.ReadOpts{Snap: e.snap}
	}
	if err := e.readNextOrd(); err != nil {
		e.close()
		return nil, err
	}
	// The t rows hand out ordinals below m:next_ord: size for them at once
	// rather than by growing, which at 10^6 tenants held the old and the new
	// table at once (bounded, in case m:next_ord is garbage: pages of the
	// table no ordinal touches cost no memory).
	if e.hasNextOrd && e.scope == nil && tenant.IsZero() {
		e.ords.dense.Grow(int(min(e.nextOrd, ordTablePresize)))
	}
	if !tenant.IsZero() {
		if err := e.scopeTenant(tenant); err != nil {
			e.close()
			return nil, err
		}
		e.rep.Tenant = e.scope
	}
	if checks {
		switch {
		case e.format == format.Format2:
			e.r5, e.r5rows = newReconTable(seqSinkWords, e.sz.reconLogCells, e.sz.reconBudget), newReconTable(seqSinkWords, e.sz.reconLogCells, e.sz.reconBudget)
		case e.scope == nil:
			e.r5, e.r5rows = newReconTable(seqSinkWords, e.sz.reconLogCells, e.sz.reconBudget), newReconTable(seqSinkWords, e.sz.reconLogCells, e.sz.reconBudget)
			e.r3 = newReconTable(deadWords, e.sz.reconLogCells, e.sz.reconBudget)
			e.markers.on = true
		default:
			e.r3 = newReconTable(deadWords, e.sz.reconLogCells, e.sz.reconBudget)
			e.markers.on = true
			e.probe.on = true
		}
	}
	return e, nil
}

// close releases the snapshot and the tenant table: nothing may read an
// ordState after it.
func (e *foldEngine) close() {
	e.snap.Release() // nil-safe
	e.snap = nil
	e.lastSt = nil
	e.ords.dense.Free()
	e.dead.runs.Close()
	e.markers.runs.Close()
}

// readNextOrd reads m:next_ord, which bounds every ordinal (invariant 4).
func (e *foldEngine) readNextOrd() error {
	if e.format != format.Format3 {
		return nil
	}
	k := []byte(format.KeyNextOrd)
	v, ok, err := e.st.GetOpts(format.CFDefault, k, e.ro)
	if err != nil {
		return err
	}
	switch {
	case !ok:
		e.finding(CheckNextOrd, nil, keyRef(format.CFDefault, k), nil, "a format 3 store has no m:next_ord: every ordinal should be below it")
	default:
		n, err := format.DecodeU32(v)
		if err != nil {
			e.finding(CheckNextOrd, nil, keyRef(format.CFDefault, k), nil, fmt.Sprintf("m:next_ord does not decode: %v", err))
			break
		}
		e.nextOrd, e.hasNextOrd = n, true
		if n < format.FirstOrd {
			e.finding(CheckNextOrd, nil, keyRef(format.CFDefault, k), nil, fmt.Sprintf("m:next_ord is %d; ordinals start at %d", n, format.FirstOrd))
		}
	}
	if !e.hasNextOrd && e.checks {
		e.notChecked(CheckOrdNotBelowNext, "m:next_ord is missing or unreadable")
	}
	return nil
}

// run reads every family the run needs, in an order where what a family's
// rows are checked against has been read before them: tenants first (every
// ordinal a row uses must have a t row), counters after the rows they count,
// the delivery rows after the dead rows whose sizes they give.
func (e *foldEngine) run() error {
	index, rows := e.steps()
	defer func() {
		for lane := range e.ticks {
			n := e.ticks[lane].n
			if n&(tickEvery-1) != 0 {
				e.progress.Add(n & (tickEvery - 1))
			}
			e.ticks[lane].n = 0
		}
		e.rep.Keys = 0
		for _, f := range e.famKeys {
			e.rep.Keys += f.Keys
		}
	}()
	if rows == nil {
		defer e.reading(laneIndex, "")
		return e.runSteps(laneIndex, index)
	}
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	parent := e.ctx
	e.ctx = ctx
	defer func() { e.ctx = parent }()

	// The rows lane starts once the index lane has read the dead rows
	// (index[:deadStep+1]): the deliveries scan gives them their sizes.
	ready := make(chan error, 1)
	var rowsErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := <-ready; err != nil {
			return
		}
		defer e.reading(laneRows, "")
		if rowsErr = e.runSteps(laneRows, rows); rowsErr != nil {
			cancel()
		}
	}()
	indexErr := e.runSteps(laneIndex, index[:e.deadStep+1])
	if indexErr == nil {
		// The rows lane is released now: name it now, before its goroutine runs, so the
		// label never says nothing is read while it starts.
		e.reading(laneRows, rows[0].name)
	}
	ready <- indexErr
	if indexErr == nil {
		indexErr = e.runSteps(laneIndex, index[e.deadStep+1:])
	}
	e.reading(laneIndex, "")
	if indexErr != nil {
		cancel()
	}
	wg.Wait()
	if e.r5rows != nil {
		e.r5.merge(e.r5rows)
	}
	// A lane that stopped because the other one failed reports cancellation;
	// the failure is the error to return.
	for _, err := range []error{indexErr, rowsErr} {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	if indexErr != nil {
		return indexErr
	}
	return rowsErr
}

// step is one family read of a lane, named for progress.
type step struct {
	name string
	fn   func() error
}

// runSteps runs a lane's steps in order, saying which family the lane reads.
func (e *foldEngine) runSteps(lane int, steps []step) error {
	for _, st := range steps {
		e.reading(lane, st.name)
		if err := st.fn(); err != nil {
			return err
		}
	}
	return nil
}

// reading records what a lane reads now and tells the progress, as its phase, what both
// lanes read ("due + deliveries"), one call at a time.
func (e *foldEngine) reading(lane int, name string) {
	e.phaseMu.Lock()
	defer e.phaseMu.Unlock()
	e.lanes[lane] = name
	label := e.lanes[laneIndex]
	if e.lanes[laneRows] != "" {
		if label != "" {
			label += " + "
		}
		label += e.lanes[laneRows]
	}
	e.progress.Phase(label)
}

// steps returns what each lane reads; rows is nil for a run on one lane (one
// tenant: its point reads need no second lane). e.deadStep is the index
// step after which the rows lane may start.
func (e *foldEngine) steps() (index, rows []step) {
	deliveries := step{"deliveries", e.foldDeliveries}
	if e.format == format.Format2 {
		e.deadStep = -1 // no sizes to wait for: no counters
		return []step{{"due", e.foldDueV2}, {"inflight", e.foldInflightV2}, {"dead", e.foldDead}, {"archive", e.foldArchive}}, []step{deliveries}
	}
	index = []step{{"tenants", e.foldTenants}, {"dead", e.foldDead}}
	e.deadStep = len(index) - 1
	index = append(index, step{"due", e.foldDue}, step{"inflight", e.foldInflight})
	if e.checks {
		index = append(index, step{"dead_by_tenant", e.foldDeadByTenant})
	}
	index = append(index, step{"archive", e.foldArchive}, step{"counters", e.foldCounters})
	if e.checks {
		index = append(index, step{"format 2 keys", e.checkFormat2Keys})
	}
	switch {
	case e.scope != nil:
		return index, nil
	case e.checks:
		return index, []step{deliveries}
	}
	return index, []step{{"dead sizes", func() error { return e.flushDead(laneRows, deadNow) }}}
}

// use resolves the ordinal an index row or a counter names, noting once
// per ordinal what invariant 4 says about it.
func (e *foldEngine) use(ord uint32, cf string, key []byte, counter bool) *ordState {
	if e.lastSt != nil && e.lastOrd == ord {
		return e.lastSt
	}
	s := e.ords.get(ord)
	odd := (ord == format.AggregateOrd && !counter) ||
		(ord != format.AggregateOrd && (s.flags&ordHasT == 0 || (e.hasNextOrd && ord >= e.nextOrd)))
	if !odd {
		e.lastOrd, e.lastSt = ord, s
		return s
	}
	if e.checks {
		u := e.odd[ord]
		if u == nil {
			u = &ordUse{first: keyRef(cf, key)}
			e.odd[ord] = u
		}
		u.keys++
	}
	return s
}

// note is use for a row that adds to no counter (an active marker): an
// ordinal with nothing to note costs a bit of the plain bitmap, not a
// visit to its ordState (markers come in no ordinal order).
func (e *foldEngine) note(ord uint32, cf string, key []byte) {
	if !e.ords.isPlain(ord) {
		e.use(ord, cf, key, false)
	}
}

// countLater counts one row of field f for a plain ordinal (one whose rows
// note nothing: ordTable.isPlain) in indexAdds, applied by a batch.
func (e *foldEngine) countLater(ord uint32, f format.Field) {
	if e.indexAddsField != f {
		e.applyCounts()
		e.indexAddsField = f
	}
	if e.indexAdds.add(ord, 1) {
		e.applyCounts()
	}
}

// applyCounts applies the counts countLater holds; a family's fold calls it
// when its rows end, before anything reads the ordStates.
func (e *foldEngine) applyCounts() {
	dense, f := e.ords.dense.S(), e.indexAddsField
	e.indexAdds.flush(func(ord, n uint32) {
		s := &dense[ord]
		s.net.add(f, int64(n))
		s.flags |= ordFolded
	})
}

// forget drops use()'s cache; ordinals of a new family come in another order.
func (e *foldEngine) forget() { e.lastSt = nil }

// agg is the aggregate's state: ordinal 0.
func (e *foldEngine) agg() *ordState { return &e.ords.dense.S()[format.AggregateOrd] }

// inScope reports whether a row of ordinal ord belongs to the run.
func (e *foldEngine) inScope(ord uint32) bool { return e.scope == nil || e.scope.Ord == ord }

// tenantRef names an ordinal as the t rows do.
func (e *foldEngine) tenantRef(ord uint32) TenantRef {
	r := TenantRef{Ord: ord}
	if s := e.ords.lookup(ord); s != nil && s.flags&ordHasT != 0 {
		if s.flags&ordErased != 0 {
			r.Erased = true
		} else {
			name := e.ords.nameOf(s)
			r.ID = &name
		}
	}
	return r
}

func (e *foldEngine) tenantPtr(ord uint32) *TenantRef {
	r := e.tenantRef(ord)
	return &r
}

// folded builds Fold's result. A tenant's net lacks its stored counters:
// Fold's result lists them, so they are read again.
func (e *foldEngine) folded() (*Folded, error) {
	out := &Folded{Format: e.format, Keys: e.rep.Keys}
	var ords []uint32
	var want []format.CounterKey
	listed := func(ord uint32, s *ordState) bool {
		if e.scope != nil {
			return ord == e.scope.Ord
		}
		return ord != format.AggregateOrd && s.flags&(ordHasT|ordFolded|ordStored) != 0
	}
	e.ords.each(func(ord uint32, s *ordState) {
		if !listed(ord, s) {
			return
		}
		ords = append(ords, ord)
		if s.flags&ordStored != 0 {
			for _, f := range format.Fields {
				want = append(want, format.CounterKey{Ord: ord, Field: f, Shard: format.Unsharded})
			}
		}
	})
	stored, err := e.readStored(want)
	if err != nil {
		return nil, err
	}
	if e.scope == nil {
		out.Ords = append(out.Ords, OrdFold{Tenant: TenantRef{Ord: format.AggregateOrd}, Folded: e.aggFold(), Stored: e.aggStored})
	}
	for _, ord := range ords {
		s := e.ords.lookup(ord)
		o := OrdFold{Tenant: e.tenantRef(ord)}
		if s.flags&ordStored != 0 {
			for i, f := range format.Fields {
				o.Stored.add(f, stored[i])
			}
			stored = stored[len(format.Fields):]
		}
		o.Folded = s.netTotal()
		o.Folded.addAll(&o.Stored)
		out.Ords = append(out.Ords, o)
	}
	if e.scope != nil {
		out.Ords[0].Tenant = *e.scope
	}
	return out, nil
}

// CorruptError is Verify's and Fold's error for a store they could not read
// to the end: errors.Is(err, rocks.ErrCorrupt). The report lists every such
// read; this error names the first.
type CorruptError struct {
	Corruption []Corruption
}

func (e *CorruptError) Error() string {
	s := e.Corruption[0].String()
	if n := len(e.Corruption); n > 1 {
		s += fmt.Sprintf(" (and %d more)", n-1)
	}
	return "store is corrupt: " + s
}

func (e *CorruptError) Is(target error) bool { return target == rocks.ErrCorrupt }

func (e *foldEngine) corruptErr() error {
	return &CorruptError{Corruption: slices.Clone(e.rep.Corruption)}
}

// isCorrupt reports whether err is a corrupt read rather than a failed one.
func isCorrupt(err error) bool { return errors.Is(err, rocks.ErrCorrupt) }
