package inspect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/ankusa/ankusa-store/internal/radix"
	"github.com/ankusa/ankusa-store/internal/reporting"
	"github.com/ankusa/ankusa-store/internal/runs"
	"github.com/ankusa/ankusa-store/pkg/diskspace"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// An export lists dead letters by time, and each one's delivery row and hook
// is keyed by seq: read by key in the export's order, every lookup lands in
// another block of families far larger than the cache, and at 10^8 rows the
// lookups were ten times the cost of reading the same families through. So a
// large export on format 3 reads them as a sorted join, in three passes:
//
//  1. plan: the export's walk runs once without reading them, recording each
//     key it asks for with its position in the export (sorted runs, spilled);
//  2. gather: the keys, merged in key order, are read by walking each family
//     forward beside them (a multi-get a key cost as much as the rest of the
//     export at 10^8 rows), and each value is written with its position to
//     a file in the temporary directory, in buckets of positions;
//  3. the export's walk again, served from the buckets in its own order.
//
// The file is as large as the values the export reads; before the gather the
// temporary directory's file system must have room for the estimate, or the
// export reads by key as before (and says so). Whatever fails in the plan or
// the gather (the file cannot be made, a write fails) leaves the export to
// read by key, with nothing written yet; a failure in the third pass is the
// export's error.

// exportJoinMin is the fewest lookups (of one family) ExportJoinAuto joins:
// a smaller export reads by key in less time than the join's passes take. (A
// variable for the tests.)
var exportJoinMin = 64 << 10

// The join's sizes (variables: the tests make them small, so that a
// fixture of a few dozen rows takes every way a large export does).
var (
	// exportWindowMax is the most bytes of values a join holds for one family
	// at a time; a bucket larger than that is split.
	exportWindowMax = 16 << 20
	// exportPlanBatch is how many keys the plan sorts into one run (3 MiB a
	// family, the three held at once): at 10^8 rows some 200 runs a family,
	// whose merge reads each through a buffer of its own (runs.ReadBuf, 13
	// MiB in all). 2^19 took dlq export at 10^6 tenants from 72 to 142 MiB.
	exportPlanBatch = 1 << 17
	// exportGatherSkip is how many keys the gather reads past, between two
	// keys wanted, before it seeks to the next one instead.
	exportGatherSkip = 64
	// exportGatherCheck is how many keys the gather reads between two looks
	// at its context.
	exportGatherCheck = 1024
	// exportSizeSample is how many values the gather reads before it
	// buckets a family's positions by their size (spillSizer), or fewer,
	// once they hold half of exportWindowMax.
	exportSizeSample = 1024
	// exportBucketsMax is the most buckets of one family: each holds a
	// pending segment while the gather runs (32 MiB at the most).
	exportBucketsMax = uint64(2048)
	// exportBucketMax is the most positions in a bucket, unless that would
	// make more than exportBucketsMax buckets: read back, a bucket holds a
	// record's place per position (64 bytes).
	exportBucketMax = uint64(1 << 17)
	// exportSegment is the bytes a bucket gathers before they are written.
	exportSegment = 16 << 10
)

// errDeadMoved: the keys an export asked for are not those its plan recorded.
var errDeadMoved = errors.New("inspect: the dead letters changed while they were exported; export them again")

// joinFamily is how the join holds one family's keys as the words of a run
// element, the position last.
type joinFamily struct {
	cf    string
	words int // including the position
	elem  func(k []byte, pos uint64) (runs.Elem, error)
	key   func(e *runs.Elem) []byte
	// sortKey orders a batch's elements by their key in one word, for the
	// radix sort (a comparison sort was 4.5% of an export at 10^7 rows), when
	// fits says the element's key fits in it. Positions are recorded in
	// order, and the radix sort is stable: equal keys keep them ascending,
	// as the elements' order wants.
	sortKey func(e *runs.Elem) uint64
	fits    func(e *runs.Elem) bool
}

var joinFamilies = []joinFamily{
	{cf: format.CFDeliveries, words: 3,
		elem: func(k []byte, pos uint64) (runs.Elem, error) {
			dk, err := format.DecodeDeliveryKey(k)
			return runs.Elem{dk.Seq, uint64(dk.Sink), pos}, err
		},
		key:     func(e *runs.Elem) []byte { return format.DeliveryKey{Seq: e[0], Sink: uint16(e[1])}.Encode() },
		sortKey: func(e *runs.Elem) uint64 { return e[0]<<16 | e[1] },
		fits:    func(e *runs.Elem) bool { return e[0] < 1<<48 }},
	{cf: format.CFTenants, words: 2,
		elem: func(k []byte, pos uint64) (runs.Elem, error) {
			tk, err := format.DecodeTenantByOrdKey(k)
			return runs.Elem{uint64(tk.Ord), pos}, err
		},
		key:     func(e *runs.Elem) []byte { return format.TenantByOrdKey{Ord: uint32(e[0])}.Encode() },
		sortKey: func(e *runs.Elem) uint64 { return e[0] }},
	{cf: format.CFHooks, words: 2,
		elem: func(k []byte, pos uint64) (runs.Elem, error) {
			hk, err := format.DecodeHookKey(k)
			return runs.Elem{hk.Seq, pos}, err
		},
		key:     func(e *runs.Elem) []byte { return format.HookKey{Seq: e[0]}.Encode() },
		sortKey: func(e *runs.Elem) uint64 { return e[0] }},
}

// exportJoin serves an export's lookups from the values gathered for it.
type exportJoin struct {
	file    *spillFile
	readers map[string]*joinReader
	db      *rocks.DB
	// byKey is why the join's file could take no more (a split of a bucket
	// in the third pass, on a file system that filled up), after which every
	// lookup is read by key from db: the export's rows are already on their
	// way, and a healthy store is no reason to stop them.
	byKey error
}

func (j *exportJoin) close() { j.file.close() }

func (*exportJoin) plans() bool { return false }

// noteByKey says, once the walk is over, that the join gave way to reads by key.
func (j *exportJoin) noteByKey(notes *viewNotes, use joinUse) {
	if j != nil && j.byKey != nil {
		byKeyInstead(notes, use, j.byKey)
	}
}

func (j *exportJoin) get(cf string, keys [][]byte) ([][]byte, []bool, error) {
	if j.byKey != nil {
		return storeReads{db: j.db, once: true}.get(cf, keys)
	}
	r := j.readers[cf]
	if r == nil {
		return nil, nil, fmt.Errorf("inspect: the export's join has no %s", cf)
	}
	vals, found := make([][]byte, len(keys)), make([]bool, len(keys))
	for i, k := range keys {
		rec, err := r.at(r.next)
		var spillErr *joinSpillError
		if errors.As(err, &spillErr) {
			j.byKey = err
			return j.get(cf, keys)
		}
		if err != nil {
			return nil, nil, err
		}
		r.next++
		if string(rec.key) != string(k) {
			return nil, nil, errDeadMoved
		}
		vals[i], found[i] = rec.val, rec.found
	}
	return vals, found, nil
}

// joinUse is what a sorted join serves: an export reads each dead letter's
// hook, delivery row and tenant name; a streamed dlq scan (StreamDLQ) its
// delivery row and tenant name, at the same cost by key a row.
type joinUse struct {
	who   string // "the export": the notes' subject
	hooks bool   // the hooks are read too
	// lookedUp is the family whose tables' index placement tells whether a
	// store opened for the join must be opened again to read by key.
	lookedUp string
}

var (
	joinForExport = joinUse{who: "the export", hooks: true, lookedUp: format.CFHooks}
	joinForScan   = joinUse{who: "the scan", lookedUp: format.CFDeliveries}
)

// startExportJoin plans and gathers the sorted join of walk's lookups, or
// returns nil when the rows should be read by key: a format 2 store, a walk
// too small to gain, or no room or no file for the values (a note says which).
func startExportJoin(ctx context.Context, st *rocks.Store, how ExportJoin, use joinUse, walk dlqExportWalk, rep reporting.Reporter, notes *viewNotes) (*exportJoin, error) {
	if st.Format != format.Format3 || how == ExportJoinByKey {
		return nil, nil
	}
	rep.Phase(ExportJoinPlan)
	plan := newExportPlan()
	defer plan.close()
	err := walk(ctx, plan, func(_ *dlqScan, rows []DLQRow, _ bool) error {
		if use.hooks {
			if _, _, err := plan.get(format.CFHooks, dlqHookKeys(rows)); err != nil {
				return err
			}
		}
		plan.sweep(rows)
		if how == ExportJoinAuto && plan.pages == exportLocalPages && plan.local() {
			return errExportLocal
		}
		return nil
	})
	if err == nil {
		err = plan.finish()
	}
	var spillErr *joinSpillError
	switch {
	case errors.Is(err, errExportLocal):
		return nil, nil
	case errors.As(err, &spillErr):
		byKeyInstead(notes, use, err)
		return nil, nil
	case err != nil:
		return nil, err
	case how == ExportJoinAuto && plan.most() < exportJoinMin:
		return nil, nil
	}
	needed, err := plan.bytesNeeded(st.DB)
	if err != nil {
		return nil, err
	}
	if err := diskspace.Check(use.who+"'s sorted join", os.TempDir(), needed); err != nil {
		byKeyInstead(notes, use, err)
		return nil, nil
	}
	rep.Phase(ExportJoinGather)
	j, err := plan.gather(ctx, st.DB)
	if errors.As(err, &spillErr) {
		byKeyInstead(notes, use, err)
		return nil, nil
	}
	return j, err
}

// byKeyInstead says on stderr why a join is left for reads by key.
func byKeyInstead(notes *viewNotes, use joinUse, why error) {
	rows := "delivery row"
	if use.hooks {
		rows = "hook and delivery row"
	}
	notes.note("%v; %s reads each dead letter's %s by key instead (slower: give TMPDIR a file system with room, or --join by-key)", why, use.who, rows)
}

// joinSpillError is a file of the join that could not be made or written.
type joinSpillError struct{ err error }

func (e *joinSpillError) Error() string {
	return fmt.Sprintf("the sorted join could not use the temporary directory %s: %v", os.TempDir(), e.err)
}
func (e *joinSpillError) Unwrap() error { return e.err }

// An export whose dead rows lie in their hooks' order (a queue whose
// letters die in the order they came) reads its hooks by key as fast as a
// join would, each page's multi-get in a few blocks of its own. So auto
// looks at its first pages: when reading them by key sweeps the hooks' seqs
// they span less than twice (the seqs each page spans, summed, against those
// of all of them), the rows are read by key. A queue of 10^7 rows whose
// letters die at random against their seqs sweeps them once a page. Four
// pages of dlqExportPage: the first 16,384 rows.
var exportLocalPages = 4

// errExportLocal stops the plan of an export that reads as well by key.
var errExportLocal = errors.New("inspect: the export's rows lie in their hooks' order")

// exportPlan records, family by family, the keys an export asks for and
// their positions: the first pass. Its get finds nothing.
type exportPlan struct {
	fams map[string]*planFamily
	// The pages seen, the seqs of each page's hooks spanned, summed, and
	// the least and greatest seq of all (sweep).
	pages         int
	spans, lo, hi uint64
}

// sweep adds a page's hooks to the spans.
func (p *exportPlan) sweep(rows []DLQRow) {
	if len(rows) == 0 {
		return
	}
	lo, hi := rows[0].Seq, rows[0].Seq
	for _, r := range rows[1:] {
		lo, hi = min(lo, r.Seq), max(hi, r.Seq)
	}
	if p.pages == 0 {
		p.lo, p.hi = lo, hi
	}
	p.pages++
	p.spans += hi - lo + 1
	p.lo, p.hi = min(p.lo, lo), max(p.hi, hi)
}

// local reports whether the pages so far sweep their seqs less than twice.
func (p *exportPlan) local() bool { return p.spans < 2*(p.hi-p.lo+1) }

type planFamily struct {
	fam   joinFamily
	runs  *runs.Sorted
	batch []runs.Elem
	tmp   *[]runs.Elem // the radix sort's scratch, the plan's (one family sorts at a time)
	n     uint64       // positions recorded
}

func newExportPlan() *exportPlan {
	p := &exportPlan{fams: map[string]*planFamily{}}
	tmp := new([]runs.Elem)
	for _, f := range joinFamilies {
		p.fams[f.cf] = &planFamily{fam: f, runs: runs.New(f.words, "dlq export join keys"), tmp: tmp}
	}
	return p
}

func (p *exportPlan) close() {
	for _, f := range p.fams {
		f.runs.Close()
	}
}

func (*exportPlan) plans() bool { return true }

func (p *exportPlan) get(cf string, keys [][]byte) ([][]byte, []bool, error) {
	f := p.fams[cf]
	if f == nil {
		return nil, nil, fmt.Errorf("inspect: the export's join has no %s", cf)
	}
	for _, k := range keys {
		e, err := f.fam.elem(k, f.n)
		if err != nil {
			return nil, nil, err
		}
		f.n++
		if f.batch = append(f.batch, e); len(f.batch) == exportPlanBatch {
			if err := f.pack(); err != nil {
				return nil, nil, err
			}
		}
	}
	return make([][]byte, len(keys)), make([]bool, len(keys)), nil
}

// pack sorts the batch into a run; runs that could not go to the file fail
// the plan (in memory they would grow with the export).
func (f *planFamily) pack() error {
	f.sort()
	f.runs.Pack(len(f.batch), func(i int) runs.Elem { return f.batch[i] })
	f.batch = f.batch[:0]
	if err := f.runs.SpillErr(); err != nil {
		return &joinSpillError{err}
	}
	return nil
}

// sort orders the batch as its elements compare (runs.Elem.Cmp): by the
// radix sort on the family's sort key when every element's key fits in it.
func (f *planFamily) sort() {
	radixOK := f.fam.sortKey != nil
	for i := 0; radixOK && f.fam.fits != nil && i < len(f.batch); i++ {
		radixOK = f.fam.fits(&f.batch[i])
	}
	if radixOK {
		*f.tmp = radix.Sort(f.batch, *f.tmp, f.fam.sortKey)
		return
	}
	slices.SortFunc(f.batch, func(a, b runs.Elem) int { return a.Cmp(&b) })
}

func (p *exportPlan) finish() error {
	for _, f := range p.fams {
		if len(f.batch) > 0 {
			if err := f.pack(); err != nil {
				return err
			}
		}
		f.batch = nil
	}
	return nil
}

// most is the lookups of the family asked the most.
func (p *exportPlan) most() int {
	n := uint64(0)
	for _, f := range p.fams {
		n = max(n, f.n)
	}
	return int(n)
}

// bytesNeeded estimates the file the join writes: each value it gathers at
// its family's average size before compression (rocks.RawValues; the tables'
// size on disk, which the estimate once took, was 200 times less than what
// the join wrote of hooks that compress well), with each record's own bytes,
// and all of it twice, for the buckets the third pass splits (a split writes
// its bucket's records again). Should the file system fill up all the same,
// the rest of the export reads by key (exportJoin.get).
func (p *exportPlan) bytesNeeded(db *rocks.DB) (int64, error) {
	var need int64
	for cf, f := range p.fams {
		if f.n == 0 {
			continue
		}
		raw, err := db.RawValues(cf)
		if err != nil {
			return 0, err
		}
		need += int64(f.n) * (int64(raw.Average()) + spillRecordOverhead)
	}
	return 2 * need, nil
}

// gather reads every recorded key in key order and writes its value to the
// family's buckets: the second pass.
func (p *exportPlan) gather(ctx context.Context, db *rocks.DB) (*exportJoin, error) {
	file, err := newSpillFile("dlq export join values")
	if err != nil {
		return nil, err
	}
	j := &exportJoin{file: file, readers: map[string]*joinReader{}, db: db}
	for _, f := range p.fams {
		if f.n == 0 {
			continue // not read by this join's rows (a scan's hooks)
		}
		spill, err := f.gather(ctx, db, file)
		if err != nil {
			file.close()
			return nil, err
		}
		j.readers[f.fam.cf] = &joinReader{levels: []*posLevel{{spill: spill}}}
	}
	return j, nil
}

func (f *planFamily) gather(ctx context.Context, db *rocks.DB, file *spillFile) (*posSpill, error) {
	m := f.runs.Merge()
	sz := &spillSizer{file: file, n: f.n}
	var want *runs.Elem
	var wantKey []byte
	next := func() {
		if want != nil {
			m.Next()
		}
		if want = m.Peek(); want != nil {
			wantKey = f.fam.key(want)
		}
	}
	add := func(found bool, v []byte) error {
		err := sz.add(want[f.fam.words-1], wantKey, found, v)
		next()
		return err
	}
	next()
	read := 0
	for want != nil {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// From the key wanted, forward, as long as the keys wanted come
		// within exportGatherSkip keys of each other; past that, a seek.
		skipped, seek := 0, false
		err := db.Scan(f.fam.cf, wantKey, nil, rocks.ReadOpts{}, func(k, v []byte) error {
			// One scan may be a whole family (a minute at 10^8 rows): an
			// interrupt is heard within it.
			if read++; read%exportGatherCheck == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			for want != nil {
				c := bytes.Compare(wantKey, k)
				if c > 0 {
					break
				}
				// c < 0: the key wanted is not there (MultiGet's not found).
				if err := add(c == 0, v); err != nil {
					return err
				}
				skipped = 0
			}
			if want == nil {
				return rocks.Stop
			}
			if skipped++; skipped > exportGatherSkip {
				seek = true
				return rocks.Stop
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		for !seek && want != nil {
			// Past the family's last key.
			if err := add(false, nil); err != nil {
				return nil, err
			}
		}
	}
	if err := m.Err(); err != nil {
		return nil, err
	}
	return sz.finish()
}

// spillSizer holds a family's first values until it knows what a value
// takes, then buckets the positions so that a bucket's values fill about half
// a window: a bucket larger than the window is split, which writes its values
// a second time (at 10^8 rows, buckets of a fixed number of positions were
// three times the window: the join wrote 19 GB, not 10).
type spillSizer struct {
	file  *spillFile
	n     uint64
	held  []spillRecord
	bytes int
	spill *posSpill
}

func (s *spillSizer) add(pos uint64, key []byte, found bool, val []byte) error {
	if s.spill != nil {
		return s.spill.add(pos, key, found, val)
	}
	s.held = append(s.held, spillRecord{pos: pos, found: found, key: bytes.Clone(key), val: bytes.Clone(val)})
	s.bytes += spillRecordOverhead + len(val)
	// A sample of values of 100 KB is known by far fewer of them: a window's
	// worth is enough (1,024 of them were 100 MB held).
	if len(s.held) == exportSizeSample || s.bytes >= exportWindowMax/2 {
		return s.start()
	}
	return nil
}

func (s *spillSizer) start() error {
	avg := uint64(s.bytes / max(1, len(s.held)))
	per := min(max(1, uint64(exportWindowMax/2)/max(1, avg)), exportBucketMax)
	per = max(per, (s.n+exportBucketsMax-1)/exportBucketsMax)
	s.spill = newPosSpill(s.file, 0, s.n, per)
	for _, r := range s.held {
		if err := s.spill.add(r.pos, r.key, r.found, r.val); err != nil {
			return err
		}
	}
	s.held = nil
	return nil
}

func (s *spillSizer) finish() (*posSpill, error) {
	if s.spill == nil {
		if err := s.start(); err != nil {
			return nil, err
		}
	}
	return s.spill, s.spill.flush()
}
