package runs

import (
	"encoding/binary"
	"slices"

	"github.com/ankusa/ankusa-store/internal/scratch"
)

// Elem is one element of a run: up to three words, compared in order.
type Elem [3]uint64

// Cmp orders a and b by their words in order: -1, 0 or 1.
func (a *Elem) Cmp(b *Elem) int {
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

// Limits bound what a Sorted holds. The tests make them small, so that a few
// elements spill and are read back a few bytes at a time; the zero Limits is
// DefaultLimits. They are the caller's options, not package variables, so
// that tests running side by side do not set them for each other.
type Limits struct {
	// SpillAfter is the bytes of runs a Sorted keeps in memory before it
	// writes them to its file: a small store's runs never touch the disk.
	SpillAfter int
	// ReadBuf is the bytes of a spilled run a merge holds at a time.
	ReadBuf int
	// ReadTotal, when > 0, bounds the bytes all of a merge's spilled runs hold at a time:
	// past ReadTotal/ReadBuf runs each holds its share, never less than ReadLeast (nor two
	// elements). The runs grow with the rows (a bulk migration's join of 10^8 rows merges
	// some 380), so ReadBuf alone would make a merge's memory grow with them too.
	ReadTotal int
	ReadLeast int
}

// DefaultLimits are the limits a join's runs are kept with.
func DefaultLimits() Limits {
	return Limits{SpillAfter: 4 << 20, ReadBuf: 64 << 10, ReadTotal: 8 << 20}
}

// ReadBufFor is the buffer each of n spilled runs is read through: ReadBuf, or its share of
// ReadTotal, at least ReadLeast and two elements. The bulk migration's merge of its own runs
// reads them by the same rule.
func (l Limits) ReadBufFor(n int) int {
	b := l.ReadBuf
	if l.ReadTotal > 0 && n > 0 {
		b = min(b, l.ReadTotal/n)
	}
	return max(b, l.ReadLeast, 2*maxElemBytes)
}

// Sorted holds the packed runs of one join. Its zero value holds no runs;
// Init (or New) sets its words, label and limits before the first Pack.
type Sorted struct {
	words int // the words an element uses; the others are 0
	lim   Limits
	runs  []packedRun
	n     int // elements in runs
	size  int // bytes held in memory
	// spill is where runs go past lim.SpillAfter bytes; label names it in
	// errors.
	spill *scratch.SpillFile
	label string
	buf   []byte // Pack's buffer, for a run that is written out
}

// New returns runs of elements of words words (1 to 3), kept within lim;
// label names their file in errors.
func New(words int, label string, lim Limits) *Sorted {
	r := &Sorted{}
	r.Init(words, label, lim)
	return r
}

// Init makes r hold elements of words words (1 to 3) within lim (the zero
// Limits: DefaultLimits), its file named label in errors. r must hold no
// runs.
func (r *Sorted) Init(words int, label string, lim Limits) {
	if lim == (Limits{}) {
		lim = DefaultLimits()
	}
	r.words, r.label, r.lim = words, label, lim
}

// packedRun is a run in memory (b) or in the spillFile (at off, size bytes).
type packedRun struct {
	b         []byte
	off, size int64
	n         int
}

// spilling reports whether a run of n bytes should go to the file: past the
// limit, while the file has not failed (the runs after a failure stay in
// memory).
func (r *Sorted) spilling(n int) bool {
	if r.size+n <= r.lim.SpillAfter {
		return false
	}
	if r.spill == nil {
		r.spill = scratch.NewSpillFile(r.label)
	}
	return r.spill.Err() == nil
}

// SpillErr is the error of the runs' file: it could not be made, or a write
// failed, and the runs after it stayed in memory. Nil when there is none
// (or no run has reached the file yet).
func (r *Sorted) SpillErr() error {
	if r.spill == nil {
		return nil
	}
	return r.spill.Err()
}

// Close removes the runs' file (it has no name: closing frees its blocks)
// and the runs. r may be used again after it.
func (r *Sorted) Close() {
	if r.spill != nil {
		r.spill.Close()
	}
	r.spill = nil
	r.Reset()
}

// Pack adds a run of n elements, sorted, at(i) being the i-th. A word is
// stored as its difference from the previous element's when the words before
// it are equal, else whole; so an unsorted run still decodes as written, only
// bigger.
func (r *Sorted) Pack(n int, at func(i int) Elem) {
	if n == 0 {
		return
	}
	b := r.buf[:0]
	var prev Elem
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
	r.n += n
	if r.spilling(len(b)) {
		if off, ok := r.spill.Append(b); ok {
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

// Empty reports whether r holds no runs.
func (r *Sorted) Empty() bool { return len(r.runs) == 0 }

// Len is the elements of all the runs.
func (r *Sorted) Len() int { return r.n }

// Size is the bytes of the runs held in memory: those in the file cost
// none.
func (r *Sorted) Size() int { return r.size }

// Spilled is the bytes written to the runs' file (in the temporary directory) so far.
func (r *Sorted) Spilled() int64 {
	if r.spill == nil {
		return 0
	}
	return r.spill.Size()
}

// Reset drops the runs, keeping the file (emptied) for the next ones.
func (r *Sorted) Reset() {
	clear(r.runs)
	r.runs = r.runs[:0]
	r.n = 0
	r.size = 0
	if r.spill != nil {
		r.spill.Empty()
	}
}
