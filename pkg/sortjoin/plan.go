package sortjoin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/ankusa/ankusa-store/internal/radix"
	"github.com/ankusa/ankusa-store/internal/runs"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// The plan and the gather, the first two passes (doc.go). The plan's file is
// as large as the values the walk reads; before the gather the temporary
// directory's file system must have room for the estimate (bytesNeeded).

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

// A walk whose dead rows lie in their hooks' order (a queue whose letters
// die in the order they came) reads its hooks by key as fast as a join
// would, each page's multi-get in a few blocks of its own. So an automatic
// join looks at its first pages (Sizes.LocalPages): when reading them by key
// sweeps the hooks' seqs they span less than twice (the seqs each page
// spans, summed, against those of all of them), the rows are read by key. A
// queue of 10^7 rows whose letters die at random against their seqs sweeps
// them once a page. Four pages of dlq export's 4,096: the first 16,384 rows.

// errLocal stops the plan of a walk that reads as well by key.
var errLocal = errors.New("sortjoin: the walk's rows lie in their hooks' order")

// plan records, family by family, the keys a walk asks for and their
// positions: the first pass. Its Get finds nothing.
type plan struct {
	sz   *Sizes
	fams map[string]*planFamily
	// The pages seen, the seqs of each page's hooks spanned, summed, and
	// the least and greatest seq of all (sweep).
	pages         int
	spans, lo, hi uint64
}

// sweep adds a page's hooks to the spans.
func (p *plan) sweep(seqs []uint64) {
	if len(seqs) == 0 {
		return
	}
	lo, hi := seqs[0], seqs[0]
	for _, s := range seqs[1:] {
		lo, hi = min(lo, s), max(hi, s)
	}
	if p.pages == 0 {
		p.lo, p.hi = lo, hi
	}
	p.pages++
	p.spans += hi - lo + 1
	p.lo, p.hi = min(p.lo, lo), max(p.hi, hi)
}

// local reports whether the pages so far sweep their seqs less than twice.
func (p *plan) local() bool { return p.spans < 2*(p.hi-p.lo+1) }

type planFamily struct {
	fam   joinFamily
	sz    *Sizes
	runs  *runs.Sorted
	batch []runs.Elem
	tmp   *[]runs.Elem // the radix sort's scratch, the plan's (one family sorts at a time)
	n     uint64       // positions recorded
}

func newPlan(sz *Sizes) *plan {
	p := &plan{sz: sz, fams: map[string]*planFamily{}}
	tmp := new([]runs.Elem)
	for _, f := range joinFamilies {
		p.fams[f.cf] = &planFamily{fam: f, sz: sz, runs: runs.New(f.words, "sorted join keys", sz.Runs), tmp: tmp}
	}
	return p
}

func (p *plan) Close() {
	for _, f := range p.fams {
		f.runs.Close()
	}
}

// Plans is true: a plan records the keys, it does not read them.
func (*plan) Plans() bool { return true }

// Get records keys with their positions and finds none of them.
func (p *plan) Get(cf string, keys [][]byte) ([][]byte, []bool, error) {
	f := p.fams[cf]
	if f == nil {
		return nil, nil, fmt.Errorf("sortjoin: the join has no %s", cf)
	}
	for _, k := range keys {
		e, err := f.fam.elem(k, f.n)
		if err != nil {
			return nil, nil, err
		}
		f.n++
		if f.batch = append(f.batch, e); len(f.batch) == f.sz.PlanBatch {
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
		return &SpillError{err}
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

func (p *plan) Finish() error {
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
func (p *plan) most() int {
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
// the rest of the walk reads by key (Join.Get).
func (p *plan) BytesNeeded(db *rocks.DB) (int64, error) {
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
func (p *plan) Gather(ctx context.Context, db *rocks.DB) (*Join, error) {
	file, err := newSpillFile("sorted join values")
	if err != nil {
		return nil, err
	}
	j := &Join{file: file, readers: map[string]*joinReader{}, db: db}
	for _, f := range p.fams {
		if f.n == 0 {
			continue // not read by this join's rows (a scan's hooks)
		}
		spill, err := f.gather(ctx, db, file)
		if err != nil {
			file.close()
			return nil, err
		}
		j.readers[f.fam.cf] = &joinReader{sz: p.sz, levels: []*posLevel{{spill: spill}}}
	}
	return j, nil
}

func (f *planFamily) gather(ctx context.Context, db *rocks.DB, file *spillFile) (*posSpill, error) {
	m := f.runs.Merge()
	sz := &spillSizer{sz: f.sz, file: file, n: f.n}
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
		// within Sizes.GatherSkip keys of each other; past that, a seek.
		skipped, seek := 0, false
		err := db.Scan(f.fam.cf, wantKey, nil, rocks.ReadOpts{}, func(k, v []byte) error {
			// One scan may be a whole family (a minute at 10^8 rows): an
			// interrupt is heard within it.
			if read++; read%f.sz.GatherCheck == 0 {
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
			if skipped++; skipped > f.sz.GatherSkip {
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
	sz    *Sizes
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
	if len(s.held) == s.sz.SizeSample || s.bytes >= s.sz.WindowMax/2 {
		return s.start()
	}
	return nil
}

func (s *spillSizer) start() error {
	avg := uint64(s.bytes / max(1, len(s.held)))
	per := min(max(1, uint64(s.sz.WindowMax/2)/max(1, avg)), s.sz.BucketMax)
	per = max(per, (s.n+s.sz.BucketsMax-1)/s.sz.BucketsMax)
	s.spill = newPosSpill(s.sz, s.file, 0, s.n, per)
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
