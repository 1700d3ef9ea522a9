package health

import (
	"encoding/binary"
	"slices"
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

// runBudgetBatches is how many full batches' bytes a join's runs may hold
// before a pass must empty them: at the default budgets 32 MiB of markers
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

// sortedRuns holds the packed runs of one join.
type sortedRuns struct {
	words int // the words an element uses; the others are 0
	runs  []packedRun
	size  int // bytes held
}

type packedRun struct {
	b []byte
	n int
}

// pack adds a run of n elements, sorted, at(i) being the i-th. A word is
// stored as its difference from the previous element's when the words before
// it are equal, else whole; so an unsorted run still decodes as written, only
// bigger.
func (r *sortedRuns) pack(n int, at func(i int) runElem) {
	if n == 0 {
		return
	}
	var b []byte
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
}

// runMerge reads a sortedRuns' runs as one sorted sequence.
type runMerge struct {
	words int
	heads []runHead
	min   int // the head holding the least element; -1 when every run is read
}

type runHead struct {
	b    []byte
	left int // elements after cur
	cur  runElem
}

// merge starts reading the runs; they must not change until it is done.
func (r *sortedRuns) merge() *runMerge {
	m := &runMerge{words: r.words, min: -1}
	for _, run := range r.runs {
		h := runHead{b: run.b, left: run.n}
		m.decode(&h)
		m.heads = append(m.heads, h)
	}
	m.pick()
	return m
}

// decode moves h to its next element.
func (m *runMerge) decode(h *runHead) {
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
}

func (m *runMerge) pick() {
	m.min = -1
	for i := range m.heads {
		if m.min < 0 || m.heads[i].cur.cmp(&m.heads[m.min].cur) < 0 {
			m.min = i
		}
	}
}

// peek returns the least element not yet read (nil when all are read).
func (m *runMerge) peek() *runElem {
	if m.min < 0 {
		return nil
	}
	return &m.heads[m.min].cur
}

// next moves past the element peek returns.
func (m *runMerge) next() {
	h := &m.heads[m.min]
	if h.left == 0 {
		m.heads = slices.Delete(m.heads, m.min, m.min+1)
	} else {
		m.decode(h)
	}
	m.pick()
}
