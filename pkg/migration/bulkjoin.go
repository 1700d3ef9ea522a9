package migration

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sync"

	"github.com/ankusa/ankusa-store/internal/radix"
	"github.com/ankusa/ankusa-store/internal/reporting"
	"github.com/ankusa/ankusa-store/internal/runs"
	"github.com/ankusa/ankusa-store/internal/slots"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// joinBatch is the elements a join collects before it sorts them into a run (24 bytes each,
// twice: the batch and the radix sort's copy): 12 MiB, whatever the store's size. At 2^20
// (48 MiB, and a second batch for the answers) a 10^6-row run peaked at 228 MiB.
const joinBatch = 1 << 18

// What a dead row's answer from the deliveries says of its delivery row (its kind): its size,
// or why it has none.
const (
	joinSize uint32 = iota + 1
	joinUndecodable
	joinMissing
)

// rowJoin is what the bulk method's fetch reads instead of looking each step's hooks and
// delivery rows up by key: for every row of the index, numbered in the scan's order (strays
// included), its hook's tenant and, for a dead row, its delivery row's size. It is made by
// sorted joins: the rows' seqs (one scan of the index) sorted by radix into runs and merged
// in seq order beside one scan of the hooks family and, at the same time, the dead rows'
// (seq, sink) beside one scan of the deliveries; each answer is put in the row's slot
// (internal/slots: the hooks' and the deliveries' answers apart), which the fetch reads in
// the rows' order. A multi-get a step read a table block at random for nearly every row; a
// scan reads each block once.
type rowJoin struct {
	keys  int64 // the index keys the steps' scanner reads (rows and strays)
	temp  int64 // the bytes the joins' runs and answers spilled to the temporary directory
	names *hookNames
	// first is each phase's first row in the scan's order (the rows of the phases before
	// it), which numbers the answers' slots; second is the keys of a phase's first part
	// (keyParts), which the numbers of its second part's rows start past.
	first  [PhaseFinish + 1]uint64
	second [PhaseFinish + 1]uint64
	hooks  *slots.Table // the hooks' answers: the row's hook's who (hookNames)
	sizes  *slots.Table // the dead rows' answers: the kind (joinSize...), the size
	hr     *slots.Reader
	sr     *slots.Reader
	phase  Phase  // the phase of the row fetch read last
	n      uint64 // the rows of that phase fetch read: the next one's rowID is (phase, n)
	vr     format.ValueReader
	// fetch's, for a step: each row's who and rowID, read before the names are looked up.
	whos []uint32
	at   []uint64
}

// slot is the answers' number of the row rowID numbered: its place in the scan's order.
func (j *rowJoin) slot(row uint64) uint64 {
	p, n := row>>rowIDShift, row&(rowSecond-1)
	if row&rowSecond != 0 {
		n += j.second[p]
	}
	return j.first[p] + n
}

// joinRows reads the index family's rows in the steps' order and joins them with the hooks
// and the deliveries: the two joins at once, each on its own goroutine, the hooks' scan on
// hookWorkers more (bulkhooks.go).
func joinRows(ctx context.Context, st *rocks.Store, opts Options) (j *rowJoin, err error) {
	want := runs.New(3, "bulk migration: rows by hook", opts.joinRuns)
	defer want.Close()
	dead := runs.New(3, "bulk migration: dead rows by delivery", opts.joinRuns)
	defer dead.Close()
	j = &rowJoin{names: newHookNames(), vr: opts.Values}
	defer func() {
		if err != nil {
			j.free()
			j = nil
		}
	}()

	// The rows by (seq, row) for the hooks, and the dead rows alone again by (seq, sink,
	// row) for the deliveries (keyPass), a batch for each of its workers.
	b, b2 := newElemBatch(opts.joinBatch), newElemBatch(opts.joinBatch)
	b.bySeq, b2.bySeq = true, true
	// Dead rows are a few of the rows: their batch is a quarter of the rows'. Each worker
	// has its own, as the two parts of the dead rows are read at once.
	db, db2 := newElemBatch(max(opts.joinBatch/4, 1)), newElemBatch(max(opts.joinBatch/4, 1))
	rep := reporting.Or(opts.Progress)
	kparts, err := keyParts(st, opts.keySplit)
	if err != nil {
		return nil, err
	}
	rows, keys, byPhase, firstSeq, lastSeq, err := keyPass(ctx, st, kparts, []*elemBatch{b, b2}, want, []*elemBatch{db, db2}, dead, rep)
	if err != nil {
		return nil, err
	}
	// The read stage's total: every key the steps' scanner reads, strays too.
	j.keys = int64(keys)
	for _, p := range RowPhases {
		j.first[p+1] = j.first[p] + byPhase[p].keys
		j.second[p] = byPhase[p].firstPart
	}
	j.hooks = slots.New("bulk migration: rows' hooks", keys, false, opts.joinSlots)
	j.sizes = slots.New("bulk migration: dead rows' sizes", keys, true, opts.joinSlots)
	// The batches are let go: the answers go to their slots.
	b, b2, db, db2 = nil, nil, nil, nil
	// The join stage counts the rows the hooks' join answers, of the rows the pass kept.
	startStage(rep, StageJoin, "rows", int64(rows))
	if err := want.SpillErr(); err != nil {
		return nil, err
	}
	if err := dead.SpillErr(); err != nil {
		return nil, err
	}

	// The two joins at once; the first to fail stops the other. The deliveries are read
	// ahead of their join, on a goroutine of their own: their join is one goroutine beside
	// the hooks' three, and it was the stage's last seconds alone.
	scan := opts.joinScan
	if scan == nil {
		scan = func(cf string, lo, hi []byte, fn func(k, v []byte) error) error {
			return st.ScanAhead(cf, lo, hi, bulkRead, fn)
		}
	}
	jctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var deadErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		if deadErr = joinDeliveries(jctx, scan, dead, j, opts.Values); deadErr != nil {
			cancel()
		}
	}()
	var parts []hookPart
	if rows > 0 {
		n := max(int(rows/uint64(hookPartRows)), 1)
		if opts.hookParts > 0 {
			n = opts.hookParts
		}
		parts = hookParts(firstSeq, lastSeq, n)
	}
	hookErr := joinHooks(jctx, hookReaders(st, opts.joinScan), want, j, parts, opts.hookWorkers, rep)
	if hookErr != nil {
		cancel()
	}
	wg.Wait()
	// When the hooks' join stopped because the deliveries' failed, that failure is the run's.
	if deadErr != nil && (hookErr == nil || errors.Is(hookErr, context.Canceled) && ctx.Err() == nil) {
		return nil, deadErr
	}
	if hookErr != nil {
		return nil, hookErr
	}
	j.names.built()
	// The joins' runs and answers are all in their files now: their peak in the temporary
	// directory.
	j.temp = want.Spilled() + dead.Spilled() + j.hooks.Spilled() + j.sizes.Spilled()
	j.hr, j.sr = j.hooks.Reader(), j.sizes.Reader()
	return j, nil
}

// keyPassOrder is the order the key pass takes the phases in: the dead rows first, the
// largest (bench/scale_bench.sh's 10^8-row store: 800 MB of the index's 1.4 GB), so that the
// other worker reads the rest meanwhile.
var keyPassOrder = []Phase{PhaseDead, PhaseDue, PhaseInflight, PhaseArchive}

// rowIDShift places a row's phase above its place in the phase's scan (rowID).
const rowIDShift = 48

// rowSecond marks a row of a phase's second part (keyParts), numbered from 0 in its part:
// its slot is past the first part's keys (rowJoin.slot). Every row of the second part is
// numbered above every row of the first, so the numbers still sort in the scanner's order.
const rowSecond = 1 << (rowIDShift - 1)

// rowID is the joins' number of the n-th row (0-based, strays included) of phase p as the
// steps' scanner reads it: the phases are read at once (keyPass), so no row knows how many
// the phases before it hold, and the phase in the high bits keeps the numbers in the
// scanner's order.
func rowID(p Phase, n uint64) uint64 { return uint64(p)<<rowIDShift | n }

// keyPart is a part of a phase's keys for the key pass: [lo, hi) of its family, the second
// part of the phase when second.
type keyPart struct {
	p      Phase
	second bool
	lo, hi []byte
}

// phaseCount is what the key pass read of a phase: its keys (rows and strays), and those of
// its first part.
type phaseCount struct{ keys, firstPart uint64 }

// keyParts cuts the dead and the due rows' keys in two for the key pass, each at the key
// halfway between its first and last row keys (midKey), or where split says (a test's: nil
// for none), and leaves the other phases whole; in keyPassOrder, each phase's first part
// first. With the phases whole, the two workers read one the due rows, the other the dead
// rows and then the rest, and one of them read alone for the last fifth of the pass (4.5 s of
// 29 at 10^8 rows); with halves of the two largest phases first, the two smaller ones even
// out the end. Where the cut falls changes no row's number, only how the work is shared.
func keyParts(st *rocks.Store, split func(Phase) []byte) ([]keyPart, error) {
	var parts []keyPart
	for _, p := range keyPassOrder {
		fam := p.family()
		lo, hi := fam.Lo, format.Successor(fam.Hi)
		var at []byte
		if p == PhaseDead || p == PhaseDue {
			var err error
			if at, err = splitKey(st, p, split); err != nil {
				return nil, err
			}
		}
		if at == nil {
			parts = append(parts, keyPart{p: p, lo: lo, hi: hi})
			continue
		}
		parts = append(parts, keyPart{p: p, lo: lo, hi: at}, keyPart{p: p, second: true, lo: at, hi: hi})
	}
	return parts, nil
}

// splitKey is where keyParts cuts phase p's keys: split's when set, else halfway between the
// first and the last key between the sentinels; nil for no cut (fewer than two keys there).
func splitKey(st *rocks.Store, p Phase, split func(Phase) []byte) ([]byte, error) {
	if split != nil {
		return split(p), nil
	}
	fam := p.family()
	var first, last []byte
	err := st.ScanKeys(fam.CF, format.Successor(fam.Lo), fam.Hi, rocks.ReadOpts{}, func(k []byte) error {
		first = bytes.Clone(k)
		return rocks.Stop
	})
	if err == nil && first != nil {
		err = st.ScanReverse(fam.CF, format.Successor(fam.Lo), fam.Hi, rocks.ReadOpts{}, func(k, _ []byte) error {
			last = bytes.Clone(k)
			return rocks.Stop
		})
	}
	if err != nil || first == nil || last == nil || bytes.Compare(first, last) >= 0 {
		return nil, err
	}
	return midKey(first, last), nil
}

// midKey is a key halfway between a and b (a < b) in the bytewise order: their first 16
// bytes (zeros past an end) read as big-endian numbers, and the number halfway between them.
// It is below b; it may be a itself, or below it (a longer than 16 bytes, or ending in
// zeros, which it leaves off): any key cuts the keys correctly, this one about in half when
// they are spread evenly between a and b.
func midKey(a, b []byte) []byte {
	var pa, pb [16]byte
	copy(pa[:], a)
	copy(pb[:], b)
	ahi, alo := binary.BigEndian.Uint64(pa[:8]), binary.BigEndian.Uint64(pa[8:])
	bhi, blo := binary.BigEndian.Uint64(pb[:8]), binary.BigEndian.Uint64(pb[8:])
	// (a + b) / 2 in 129 bits: the sum's carry becomes the half's top bit.
	lo, c := bits.Add64(alo, blo, 0)
	hi, c := bits.Add64(ahi, bhi, c)
	var m [16]byte
	binary.BigEndian.PutUint64(m[:8], hi>>1|c<<63)
	binary.BigEndian.PutUint64(m[8:], lo>>1|hi<<63)
	return bytes.TrimRight(m[:], "\x00")
}

// keyPass reads the index family's row keys, the parts (keyParts) at once on a goroutine for
// each batch of bs (a phase's keys are a range of their own, and one scan of them all took
// a quarter of the join stage, on one core), into want (every row but the strays, by (seq,
// rowID)) and, through the same worker's batch of dbs, dead (the dead rows alone, by (seq,
// sink, rowID), for the deliveries); it returns the rows it kept and each phase's keys, and
// the least and greatest seq among the rows; the batches are empty again when it returns. A
// batch is in row order already, so stable passes by seq (and by sink before them, for dead)
// sort it whole; the workers' batches are packed one at a time. The rows are numbered as the
// steps' scanner reads them: each phase's keys between its sentinels, strays included (a
// missing sentinel is the scanner's to refuse, before anything is written). Only the keys
// are read: the values are the steps'. rep is told the keys read as they are (the pass is
// the first of a run's reads, some tenth of them, before the join has counted anything to
// show).
func keyPass(ctx context.Context, st *rocks.Store, parts []keyPart, bs []*elemBatch, want *runs.Sorted, dbs []*elemBatch, dead *runs.Sorted, rep reporting.Reporter) (rows, keys uint64, byPhase [numRowPhases + 1]phaseCount, firstSeq, lastSeq uint64, err error) {
	kctx, cancel := context.WithCancel(ctx)
	defer cancel()
	work := make(chan keyPart, len(parts))
	for _, kp := range parts {
		work <- kp
	}
	close(work)
	var (
		mu   sync.Mutex // guards the sums below and the runs' Pack
		wg   sync.WaitGroup
		errs []error
	)
	firstSeq = math.MaxUint64
	for i, b := range bs {
		db := dbs[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.lock, db.lock = &mu, &mu
			defer func() { b.lock, db.lock = nil, nil }()
			for kp := range work {
				pdb := db
				if kp.p != PhaseDead {
					pdb = nil
				}
				n, k, first, last, err := phaseKeys(kctx, st, kp, b, want, pdb, dead, rep)
				mu.Lock()
				rows, keys, firstSeq, lastSeq = rows+n, keys+k, min(firstSeq, first), max(lastSeq, last)
				byPhase[kp.p].keys += k
				if !kp.second {
					byPhase[kp.p].firstPart = k
				}
				if err != nil {
					errs = append(errs, err)
					cancel()
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
			b.flush(want)
			db.flush(dead)
		}()
	}
	wg.Wait()
	if err := firstCause(ctx, errs); err != nil {
		return 0, 0, byPhase, 0, 0, err
	}
	return rows, keys, byPhase, firstSeq, lastSeq, nil
}

// phaseKeys reads part kp's row keys into b for want and, when db is not nil, into db for
// dead; it returns the rows it kept (not the strays), the keys it read and the rows' least
// and greatest seq.
func phaseKeys(ctx context.Context, st *rocks.Store, kp keyPart, b *elemBatch, want *runs.Sorted, db *elemBatch, dead *runs.Sorted, rep reporting.Reporter) (rows, keys, firstSeq, lastSeq uint64, err error) {
	p, fam := kp.p, kp.p.family()
	var n, second uint64
	if kp.second {
		second = rowSecond
	}
	firstSeq = math.MaxUint64
	defer func() { rep.Add(int64(n % keysTold)) }()
	err = st.ScanKeys(fam.CF, kp.lo, kp.hi, bulkRead, func(k []byte) error {
		if n%keysTold == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if bytes.Equal(k, fam.Lo) {
			return nil
		}
		if bytes.Equal(k, fam.Hi) {
			return rocks.Stop
		}
		if r := rowOfKey(p, k); !r.stray {
			// The hooks' join reads a row's seq alone: its element leaves the sink out
			// (want's batches sort by seq, not (seq, sink)), the deliveries' has it.
			row := rowID(p, n) | second
			b.add(want, runs.Elem{r.seq, 0, row})
			if db != nil {
				db.add(dead, runs.Elem{r.seq, uint64(r.sink), row})
			}
			rows++
			firstSeq, lastSeq = min(firstSeq, r.seq), max(lastSeq, r.seq)
		}
		if n++; n%keysTold == 0 {
			rep.Add(keysTold)
		}
		return nil
	})
	return rows, n, firstSeq, lastSeq, err
}

// keysTold is how many keys the key pass reads between two counts it tells.
const keysTold = 65536

// joinScan is how the joins read a family: [lo, hi) in key order, as bulkRead reads
// (Options.joinScan for a test's failing reader).
type joinScan func(cf string, lo, hi []byte, fn func(k, v []byte) error) error

// joinTold is how many rows the hooks' join answers between two counts it tells.
const joinTold = 65536

// joinHooks answers each row of want (seq order) with its hook's who, in its slot of
// j.hooks, from the hooks' keys in parts (hookScan).
func joinHooks(ctx context.Context, open func() (partReader, error), want *runs.Sorted, j *rowJoin, parts []hookPart, workers int, rep reporting.Reporter) error {
	m := want.Merge()
	missing := j.names.who(format.TenantOf(nil, false))
	// The rows answered, told every joinTold: the join is a fifth to a third of a run.
	var answered int64
	answer := func(e *runs.Elem, who uint32) {
		j.hooks.Put(j.slot(e[2]), who, 0)
		if answered++; answered%joinTold == 0 {
			rep.Add(joinTold)
		}
	}
	defer func() { rep.Add(answered % joinTold) }()
	if len(parts) > 0 {
		hs, err := startHookScan(ctx, open, parts, workers, j.names.seed)
		if err != nil {
			return err
		}
		defer hs.stop()
		hs.taking = j.names.warm
		var key [format.KeyLenDelivery]byte
		for e := m.Peek(); e != nil; e = m.Peek() {
			k, id, h, ok, err := hs.next()
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			who, have := uint32(0), false
			for ; e != nil; e = m.Peek() {
				c := bytes.Compare(format.HookKey{Seq: e[0]}.Append(key[:0]), k)
				if c > 0 {
					break
				}
				if c < 0 {
					answer(e, missing)
				} else {
					if !have {
						who, have = j.names.whoHashed(id, h.hash, h.reason), true
					}
					answer(e, who)
				}
				m.Next()
			}
		}
	}
	for e := m.Peek(); e != nil; e = m.Peek() {
		answer(e, missing)
		m.Next()
	}
	if err := m.Err(); err != nil {
		return err
	}
	return j.hooks.Finish()
}

// joinDeliveries answers each dead row of dead ((seq, sink) order) with its delivery row's
// size, or why it has none, in its slot of j.sizes, beside one scan of the deliveries.
func joinDeliveries(ctx context.Context, scan joinScan, dead *runs.Sorted, j *rowJoin, vr format.ValueReader) error {
	d := dead.Merge()
	var key [format.KeyLenDelivery]byte
	var n int
	if e := d.Peek(); e != nil {
		err := scan(format.CFDeliveries, format.DeliveryKey{Seq: e[0], Sink: uint16(e[1])}.Append(key[:0]), nil, func(k, v []byte) error {
			if n++; n%65536 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			size, kind, have := uint64(0), joinMissing, false
			for e := d.Peek(); e != nil; e = d.Peek() {
				c := bytes.Compare(format.DeliveryKey{Seq: e[0], Sink: uint16(e[1])}.Append(key[:0]), k)
				if c > 0 {
					return nil
				}
				if c < 0 {
					j.sizes.Put(j.slot(e[2]), joinMissing, 0)
				} else {
					if !have {
						have = true
						if dv, err := vr.DecodeDelivery(v); err != nil {
							kind = joinUndecodable
						} else {
							size, kind = dv.Size, joinSize
						}
					}
					j.sizes.Put(j.slot(e[2]), kind, size)
				}
				d.Next()
			}
			return rocks.Stop
		})
		if err != nil {
			return err
		}
	}
	for e := d.Peek(); e != nil; e = d.Peek() {
		j.sizes.Put(j.slot(e[2]), joinMissing, 0)
		d.Next()
	}
	if err := d.Err(); err != nil {
		return err
	}
	return j.sizes.Finish()
}

// elemBatch collects elements for runs and sorts each batch by radix on its first two words
// (its first alone when bySeq: the hooks' join's rows, whose second is 0), stably: the
// batch's own order settles the third (the rows' order). lock, when set, is held while a sorted batch is packed: runs several batches share.
type elemBatch struct {
	b, tmp []runs.Elem
	bySeq  bool
	lock   sync.Locker
}

func newElemBatch(n int) *elemBatch { return &elemBatch{b: make([]runs.Elem, 0, n)} }

func (b *elemBatch) add(to *runs.Sorted, e runs.Elem) {
	if b.b = append(b.b, e); len(b.b) == cap(b.b) {
		b.flush(to)
	}
}

func (b *elemBatch) flush(to *runs.Sorted) {
	if !b.bySeq {
		b.tmp = radix.Sort(b.b, b.tmp, func(e *runs.Elem) uint64 { return e[1] })
	}
	b.tmp = radix.Sort(b.b, b.tmp, func(e *runs.Elem) uint64 { return e[0] })
	if b.lock != nil {
		b.lock.Lock()
		defer b.lock.Unlock()
	}
	to.Pack(len(b.b), func(i int) runs.Elem { return b.b[i] })
	b.b = b.b[:0]
}

// fetch fills in what fetch would for a step, from the joins: the steps' rows come in the
// order the joins numbered them. It reads the rows' answers first and warms the names they
// name (hookNames.warmOf) before it looks each up: at 10^6 tenants the names' offsets are
// megabytes, and each lookup waited for its own miss there (86% of fetch's samples, 3.1%
// of a 10^7-row run's over 10^6 tenants).
func (j *rowJoin) fetch(stp *step) error {
	whos, at := j.whos[:0], j.at[:0]
	for i := range stp.rows {
		r := &stp.rows[i]
		if r.phase != j.phase {
			j.phase, j.n = r.phase, 0
		}
		row := rowID(r.phase, j.n)
		j.n++
		if r.stray {
			whos, at = append(whos, 0), append(at, 0)
			continue
		}
		who, _, ok, err := j.hr.Get(j.slot(row))
		if err != nil {
			return err
		}
		if !ok {
			return j.noAnswer(row)
		}
		whos, at = append(whos, who), append(at, row)
	}
	j.whos, j.at = whos, at
	j.names.warmOf(whos)
	seqs := make(map[uint64]int32, len(stp.rows))
	for i := range stp.rows {
		r := &stp.rows[i]
		if r.stray {
			continue
		}
		idx, ok := seqs[r.seq]
		if !ok {
			idx = int32(len(stp.tenants))
			seqs[r.seq] = idx
			tenant, reason, name := j.names.of(whos[i])
			stp.tenants = append(stp.tenants, hookTenant{seq: r.seq, tenant: tenant, reason: reason, name: name})
		}
		r.hook = idx
		if err := decodeValue(r, j.vr); err != nil {
			return err
		}
		if r.phase == PhaseDead {
			row := at[i]
			kind, size, ok, err := j.sr.Get(j.slot(row))
			if err != nil {
				return err
			}
			switch {
			case !ok:
				return j.noAnswer(row)
			case kind == joinSize:
				// Sizes above 2^63 wrap, as the counters' 64-bit arithmetic does.
				r.size = int64(size)
			case kind == joinUndecodable:
				r.sizeBad = deliveryUndecodable
			case kind == joinMissing:
				r.sizeBad = deliveryMissing
			}
		}
	}
	return nil
}

// noAnswer is a row the joins did not answer: the index the fetch reads is not the one the
// key pass read.
func (j *rowJoin) noAnswer(row uint64) error {
	return fmt.Errorf("migration: the bulk method's join has no answer for row %d (a bug: the index changed between its reads?)", j.slot(row))
}

// free drops the join's answers, their files and the names' offsets and table (the tenants
// handed out stay valid). RunBulk calls it as the read stage ends, so that none of it is
// held through the write stage, and again on its way out; a second call does nothing.
func (j *rowJoin) free() {
	if j != nil {
		j.hr, j.sr = nil, nil
		if j.hooks != nil {
			j.hooks.Close()
		}
		if j.sizes != nil {
			j.sizes.Close()
		}
		j.names.free()
	}
}

// held is the memory the join holds for the fetch: its answers (the chunks not in their
// files, the readers' arrays) and the names' offsets and table (not their arena: the
// tenants handed out point into it).
func (j *rowJoin) held() int {
	n := j.names.off.Bytes() + j.names.slots.Bytes()
	for _, t := range []*slots.Table{j.hooks, j.sizes} {
		if t != nil {
			n += t.Held()
		}
	}
	for _, r := range []*slots.Reader{j.hr, j.sr} {
		if r != nil {
			n += r.Held()
		}
	}
	return n
}
