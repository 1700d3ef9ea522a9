package main

import (
	"fmt"

	"github.com/ankusa/ankusa-store/internal/radix"
	"github.com/ankusa/ankusa-store/internal/runs"
)

// sortedKeys gathers the index keys the stream draws out of their key order (due and dead
// rows, ordered by time first) and gives them back in it, within bounded memory: up to
// runElems at a time radix-sorted and packed as a run (internal/runs, which spills runs to
// an unnamed file in $TMPDIR past its limits), then all the runs merged. At 10^8 rows the
// due keys are some 55 million, 1.3 GiB as elements: in runs they take a few MiB of memory
// and about 10 bytes each on disk.
//
// An element is the key's time, its seq and sink as one word (seq<<16 | sink, which orders
// as (seq, sink) while seq < 2^48) and the word the row's value is made from (the due row's
// size, the dead row's event number). Keys are unique, so the value word never orders two.
type sortedKeys struct {
	buf, tmp []runs.Elem
	runs     runs.Sorted
	// nruns and spilled count the runs made and those written to the file (a run that
	// spilled leaves the bytes held in memory as they were): the test checks its keys
	// went through the file.
	nruns, spilled int
}

// seqLimit bounds the seqs an element holds beside the sink.
const seqLimit = 1 << 48

func newSortedKeys(label string, o options) *sortedKeys {
	s := &sortedKeys{buf: make([]runs.Elem, 0, o.runElems)}
	s.runs.Init(3, label, o.runLimits)
	return s
}

func (s *sortedKeys) add(at, seq uint64, sink uint16, val uint64) error {
	if seq >= seqLimit {
		return fmt.Errorf("seq %d past the sorted keys' %d", seq, uint64(seqLimit))
	}
	s.buf = append(s.buf, runs.Elem{at, seq<<16 | uint64(sink), val})
	if len(s.buf) == cap(s.buf) {
		return s.pack()
	}
	return nil
}

// pack sorts the buffered keys into a run: by the second word, then stably by the first.
func (s *sortedKeys) pack() error {
	if len(s.buf) == 0 {
		return nil
	}
	s.tmp = radix.Sort(s.buf, s.tmp, func(e *runs.Elem) uint64 { return e[1] })
	s.tmp = radix.Sort(s.buf, s.tmp, func(e *runs.Elem) uint64 { return e[0] })
	held := s.runs.Size()
	s.runs.Pack(len(s.buf), func(i int) runs.Elem { return s.buf[i] })
	s.nruns++
	if s.runs.Size() == held {
		s.spilled++
	}
	s.buf = s.buf[:0]
	// A run the file refused stays in memory, and the next ones would too: memory is what
	// the runs are there to bound, so the generator stops instead.
	if err := s.runs.SpillErr(); err != nil {
		return fmt.Errorf("spilling sorted keys: %w", err)
	}
	return nil
}

// each hands every key, in key order, to fn, then frees the runs.
func (s *sortedKeys) each(fn func(at, seq uint64, sink uint16, val uint64) error) error {
	if err := s.pack(); err != nil {
		return err
	}
	s.buf, s.tmp = nil, nil
	m := s.runs.Merge()
	for e := m.Peek(); e != nil; e = m.Peek() {
		if err := fn(e[0], e[1]>>16, uint16(e[1]), e[2]); err != nil {
			return err
		}
		m.Next()
	}
	return m.Err()
}

func (s *sortedKeys) close() { s.runs.Close() }
