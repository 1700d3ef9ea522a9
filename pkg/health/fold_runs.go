package health

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"slices"

	"github.com/ankusa/ankusa-store/internal/scratch"
)

// The merge joins that must re-sort one side (the markers the due rows ask
// for, into the active index's order; the dead rows waiting for their
// delivery row's size, into the deliveries' order) collect it in a batch of
// at most a budget of elements, sort the batch and pack it into a run: each
// element as uvarint deltas from the one before, a few bytes where the batch
// holds 16. The join then scans the other side once, beside all the runs
// merged. Only runs that outgrow their byte budget (runBudgetBatches full
// batches' worth) make a join pass before the scan is done, so memory stays
// bounded whatever the store's size, while a store of 10^7 rows joins in one
// scan rather than one per million elements: each extra pass reread the
// deliveries or the active index, two fifths of verify's time at 10^7 rows.

// Past spillAfter bytes, runs go to an unnamed file in the system's
// temporary directory (runFile) instead: the page cache holds them, not the
// process, and they need no budget, so a store of 10^8 rows still joins in
// one scan with its memory flat. Where that file cannot be made or written
// (no unnamed files, no space), runs stay in memory under the budget below.

// runBudgetBatches is how many full batches' bytes a join's runs may hold
// in memory before a pass must empty them: at the default budgets 32 MiB of markers
// and 32 MiB of dead rows, some ten million elements each. (0 is a pass per
// batch, as verify did before runs.)
var runBudgetBatches = 2

// runElem is one element of a run: up to three words, compared in order.
type runElem [3]uint64

func (a *runElem) cmp(b *runElem) int {
	for i := range a {
		switch {
		case a[i] < b[i]:
			return -1
		case a[i] > b[i]:
			return 1
		}
	}
	return 0
}

// spillAfter is the bytes of runs a join keeps in memory before it writes
// them to its runFile: a small store's runs never touch the disk.
var spillAfter = 4 << 20

// runReadBuf is the bytes of a spilled run a merge holds at a time.
var runReadBuf = 64 << 10

// sortedRuns holds the packed runs of one join.
type sortedRuns struct {
	words int // the words an element uses; the others are 0
	runs  []packedRun
	size  int // bytes held in memory
	// spill is where runs go past spillAfter bytes; label names it in errors.
	spill *runFile
	label string
	buf   []byte // pack's buffer, for a run that is written out
}

// packedRun is a run in memory (b) or in the runFile (at off, size bytes).
type packedRun struct {
	b         []byte
	off, size int64
	n         int
}

// runFile is the unnamed file a join's runs spill to. err is set once a
// write fails (or the file could not be made): the runs after stay in
// memory.
type runFile struct {
	f   *os.File
	end int64
	err error
}

// write appends b to the file and returns where it lies.
func (r *runFile) write(b []byte) (int64, bool) {
	if r.err != nil {
		return 0, false
	}
	off := r.end
	if _, err := r.f.WriteAt(b, off); err != nil {
		r.err = err
		return 0, false
	}
	r.end += int64(len(b))
	return off, true
}

// spilling reports whether a run of n bytes should go to the file, making
// the file if need be.
func (r *sortedRuns) spilling(n int) bool {
	if r.size+n <= spillAfter {
		return false
	}
	if r.spill == nil {
		r.spill = &runFile{}
		r.spill.f, r.spill.err = scratch.UnnamedFile(os.TempDir(), r.label)
	}
	return r.spill.err == nil
}

// close removes the runs' file (it has no name: closing frees its blocks).
func (r *sortedRuns) close() {
	if r.spill != nil && r.spill.f != nil {
		r.spill.f.Close()
	}
	r.spill = nil
	r.reset()
}

// pack adds a run of n elements, sorted, at(i) being the i-th. A word is
// stored as its difference from the previous element's when the words before
// it are equal, else whole; so an unsorted run still decodes as written, only
// bigger.
func (r *sortedRuns) pack(n int, at func(i int) runElem) {
	if n == 0 {
		return
	}
	b := r.buf[:0]
	var prev runElem
	for i := 0; i < n; i++ {
		e := at(i)
		same := true
		for w := 0; w < r.words; w++ {
			if same {
				b = binary.AppendUvarint(b, e[w]-prev[w])
				same = e[w] == prev[w]
			} else {
				b = binary.AppendUvarint(b, e[w])
			}
		}
		prev = e
	}
	if r.spilling(len(b)) {
		if off, ok := r.spill.write(b); ok {
			r.runs = append(r.runs, packedRun{off: off, size: int64(len(b)), n: n})
			r.buf = b[:0]
			return
		}
	}
	r.buf = nil
	// The run is kept for the join: no spare capacity.
	b = slices.Clip(b)
	r.runs = append(r.runs, packedRun{b: b, n: n})
	r.size += len(b)
}

func (r *sortedRuns) empty() bool { return len(r.runs) == 0 }

func (r *sortedRuns) reset() {
	clear(r.runs)
	r.runs = r.runs[:0]
	r.size = 0
	if r.spill != nil && r.spill.err == nil && r.spill.end > 0 {
		// Its blocks back to the file system; a failure only keeps them.
		if err := r.spill.f.Truncate(0); err == nil {
			r.spill.end = 0
		}
	}
}

// runMerge reads a sortedRuns' runs as one sorted sequence. The heads are a
// binary min-heap by their element: at 10^8 rows the dead rows' join merges
// 26 runs and the markers' 45, where finding the least head by a scan of all
// cost as many compares an element.
type runMerge struct {
	words int
	heads []runHead // a min-heap: heads[0] holds the least element
	// err is a spilled run's failed read: the merge ends there, and the
	// join must fail rather than report what it did not read.
	err error
}

type runHead struct {
	b    []byte
	left int // elements after cur
	cur  runElem
	// A spilled run: the bytes not yet in b, read into buf as b runs low.
	src *io.SectionReader
	buf []byte
}

// maxElemBytes is the most bytes an element takes packed.
const maxElemBytes = len(runElem{}) * binary.MaxVarintLen64

// merge starts reading the runs; they must not change until it is done.
func (r *sortedRuns) merge() *runMerge {
	m := &runMerge{words: r.words}
	for _, run := range r.runs {
		h := runHead{b: run.b, left: run.n}
		if run.b == nil {
			h.src = io.NewSectionReader(r.spill.f, run.off, run.size)
			h.buf = make([]byte, max(runReadBuf, 2*maxElemBytes))
		}
		if !m.decode(&h) {
			break
		}
		m.heads = append(m.heads, h)
	}
	if m.err != nil {
		m.heads = nil
	}
	for i := len(m.heads)/2 - 1; i >= 0; i-- {
		m.down(i)
	}
	return m
}

// fill tops b up from the run's file once it may hold less than an element.
func (m *runMerge) fill(h *runHead) bool {
	if h.src == nil || len(h.b) >= maxElemBytes {
		return true
	}
	n := copy(h.buf, h.b)
	k, err := io.ReadFull(h.src, h.buf[n:])
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		h.src = nil
	case err != nil:
		m.err = err
		return false
	}
	h.b = h.buf[:n+k]
	return true
}

// decode moves h to its next element; false if a spilled run failed to
// read (m.err).
func (m *runMerge) decode(h *runHead) bool {
	if !m.fill(h) {
		return false
	}
	same := true
	for w := 0; w < m.words; w++ {
		d, n := binary.Uvarint(h.b)
		h.b = h.b[n:]
		if same {
			same = d == 0
			h.cur[w] += d
		} else {
			h.cur[w] = d
		}
	}
	h.left--
	return true
}

// down moves head i down the heap to where its element belongs.
func (m *runMerge) down(i int) {
	h := m.heads
	for {
		least := i
		if l := 2*i + 1; l < len(h) && h[l].cur.cmp(&h[least].cur) < 0 {
			least = l
		}
		if r := 2*i + 2; r < len(h) && h[r].cur.cmp(&h[least].cur) < 0 {
			least = r
		}
		if least == i {
			return
		}
		h[i], h[least] = h[least], h[i]
		i = least
	}
}

// peek returns the least element not yet read (nil when all are read).
func (m *runMerge) peek() *runElem {
	if len(m.heads) == 0 {
		return nil
	}
	return &m.heads[0].cur
}

// next moves past the element peek returns.
func (m *runMerge) next() {
	h := &m.heads[0]
	switch {
	case h.left == 0:
		last := len(m.heads) - 1
		m.heads[0] = m.heads[last]
		m.heads[last] = runHead{}
		m.heads = m.heads[:last]
	case !m.decode(h):
		m.heads = nil
		return
	}
	m.down(0)
}
