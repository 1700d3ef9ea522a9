package runs

import (
	"encoding/binary"
	"errors"
	"io"

	"github.com/ankusa/ankusa-store/internal/losers"
)

// Merge reads a Sorted's runs as one sorted sequence. The heads are the
// leaves of a tree of losers (a tournament, as external sorts merge): each
// inner node keeps the head that lost the match there, the root the
// winner, so the next element costs one compare a level of the tree, the
// winner's path replayed, and no head moves. A binary heap of the heads
// cost two compares a level and a swap of two heads (88 bytes each): at
// 10^8 rows the bulk migration's join merges some 380 runs, and the heap's
// sift was a sixth of the join's CPU. (At 10^8 rows counters verify's dead
// rows' join merges 26 runs and its markers' 45; finding the least head by
// a scan of all cost as many compares an element.)
//
// The tree holds each head's first two words as its key (losers.Keyed): a
// level's compare is of the words beside the tree's, and only heads whose
// first two words are equal are told apart by a call (tie), where a call a
// level read both heads through the function value (the merge's compares
// were 11% of the join stage's samples at 10^8 rows).
type Merge struct {
	words int
	heads []head
	tree  losers.Keyed
	tie   func(a, b int32) bool // tieOf, bound once
	// err is a spilled run's failed read: the merge ends there, and the
	// join must fail rather than report what it did not read.
	err error
}

type head struct {
	b    []byte
	left int  // elements after cur
	done bool // cur read past: the head loses every match
	cur  Elem
	// A spilled run: the bytes not yet in b, read into buf as b runs low.
	src *io.SectionReader
	buf []byte
}

// maxElemBytes is the most bytes an element takes packed.
const maxElemBytes = len(Elem{}) * binary.MaxVarintLen64

// Merge starts reading the runs; they must not change until it is done.
func (r *Sorted) Merge() *Merge {
	m := &Merge{words: r.words}
	spilled := 0
	for _, run := range r.runs {
		if run.b == nil {
			spilled++
		}
	}
	bufBytes := r.lim.ReadBufFor(spilled)
	for _, run := range r.runs {
		h := head{b: run.b, left: run.n}
		if run.b == nil {
			h.src = io.NewSectionReader(r.spill, run.off, run.size)
			h.buf = make([]byte, bufBytes)
		}
		if !m.decode(&h) {
			break
		}
		m.heads = append(m.heads, h)
	}
	if m.err != nil {
		m.heads = nil
	}
	m.tree.Keys = make([][2]uint64, len(m.heads))
	for i := range m.heads {
		m.tree.Keys[i] = m.heads[i].key()
	}
	m.tie = m.tieOf
	m.tree.Build(m.tie)
	return m
}

// key is the head's key in the tree: its element's first two words.
func (h *head) key() [2]uint64 { return [2]uint64{h.cur[0], h.cur[1]} }

// tieOf says whether head a's element comes before head b's, their first two
// words equal: a head read past comes after every other, and equal elements
// in the order of their runs.
func (m *Merge) tieOf(a, b int32) bool {
	ha, hb := &m.heads[a], &m.heads[b]
	switch {
	case ha.done:
		return false
	case hb.done:
		return true
	}
	if ha.cur[2] != hb.cur[2] {
		return ha.cur[2] < hb.cur[2]
	}
	return a < b
}

// Held is the bytes the merge's buffers hold.
func (m *Merge) Held() int {
	n := 0
	for _, h := range m.heads {
		n += cap(h.buf)
	}
	return n
}

// Err is a spilled run's failed read: the merge stopped short of it, and
// the join must fail rather than report what it did not read.
func (m *Merge) Err() error { return m.err }

// fill tops b up from the run's file once it may hold less than an element.
func (m *Merge) fill(h *head) bool {
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
func (m *Merge) decode(h *head) bool {
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

// Peek returns the least element not yet read (nil when all are read).
func (m *Merge) Peek() *Elem {
	if len(m.heads) == 0 {
		return nil
	}
	h := &m.heads[m.tree.Winner()]
	if h.done {
		return nil
	}
	return &h.cur
}

// Next moves past the element Peek returns.
func (m *Merge) Next() {
	w := m.tree.Winner()
	h := &m.heads[w]
	switch {
	case h.left == 0:
		// Read past: its buffer goes (Held), and it loses every match.
		*h = head{done: true}
		m.tree.Keys[w] = losers.ReadPast
	case !m.decode(h):
		m.heads = nil
		return
	default:
		m.tree.Keys[w] = h.key()
	}
	m.tree.Replay(m.tie)
}
