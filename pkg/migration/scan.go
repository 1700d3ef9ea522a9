package migration

import (
	"bytes"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// scanner produces the steps in order. It only ever reads keys after its own
// cursor, so it can run ahead of the commits: nothing a step writes is at or
// after the key the next step starts from (moved d and f keys are at or
// before the cursor; rewritten x and a values likewise).
type scanner struct {
	st    *rocks.Store
	limit int // rows a step reads
	chunk int // steps one iterator reads before it is let go
	ro    rocks.ReadOpts
	phase Phase
	last  []byte // last key read in phase; nil before the phase's first row
	num   int
	cur   *step
}

// scanChunkSteps bounds how long one iterator lives: it pins the memtables it
// was created over, and the steps write to them, so it is recreated (seeking
// to the cursor, as a step does) every so many steps.
const scanChunkSteps = 16

func newScanner(st *rocks.Store, c format.MigrationCursor, limit, chunk int) *scanner {
	return &scanner{st: st, limit: limit, chunk: chunk, phase: Phase(c.Phase), last: c.LastKey}
}

// reading makes the scanner read with ro (the bulk method's readahead).
func (s *scanner) reading(ro rocks.ReadOpts) *scanner {
	s.ro = ro
	return s
}

// run reads the steps and hands each to emit, in order, until the finish. A
// step continues into the next phase when one is exhausted; the step that
// exhausts phase 4 is the finish. emit returns false to stop the scan.
func (s *scanner) run(emit func(*step) bool) error {
	s.cur = s.newStep()
	for s.phase < PhaseFinish {
		exhausted, err := s.scanPhase(emit)
		if err != nil {
			return err
		}
		if exhausted {
			s.phase++
			s.last = nil
		}
	}
	s.cur.cursor = format.MigrationCursor{Phase: uint8(s.phase)}
	s.cur.finish = true
	if !emit(s.cur) {
		return errStopped
	}
	return nil
}

func (s *scanner) newStep() *step {
	s.num++
	return &step{num: s.num, rows: make([]row, 0, s.limit), arena: make([]byte, 0, s.limit*32)}
}

// scanPhase reads the phase's next rows with one iterator, emitting every
// step it fills, for up to s.chunk steps, and says whether the phase reached
// its hi sentinel. It seeks to the last key read and skips it if it is still
// there (a moved key is a tombstone once committed, and may not be yet); only
// a phase that has not read a row starts at lo, and then lo must be there.
func (s *scanner) scanPhase(emit func(*step) bool) (exhausted bool, err error) {
	fam := s.phase.family()
	fresh := s.last == nil
	from := s.last
	if fresh {
		from = fam.Lo
	}
	bound := format.Successor(fam.Hi)
	first, sawHi, emitted, read := true, false, 0, 0
	err = s.st.Scan(fam.CF, from, bound, s.ro, func(k, v []byte) error {
		if first {
			first = false
			if fresh {
				if !bytes.Equal(k, fam.Lo) {
					return &rocks.CutShortError{Family: fam.Name, CF: fam.CF, Missing: "lo"}
				}
				return nil
			}
			if bytes.Equal(k, s.last) {
				return nil
			}
		}
		if bytes.Equal(k, fam.Hi) {
			sawHi = true
			return rocks.Stop
		}
		read++
		s.last = s.cur.add(s.phase, k, v)
		if len(s.cur.rows) < s.limit {
			return nil
		}
		s.cur.cursor = format.MigrationCursor{Phase: uint8(s.phase), LastKey: s.last}
		if !emit(s.cur) {
			return errStopped
		}
		s.cur = s.newStep()
		if emitted++; emitted == s.chunk {
			return rocks.Stop
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	if fresh && first {
		return false, &rocks.CutShortError{Family: fam.Name, CF: fam.CF, Missing: "lo"}
	}
	if !sawHi && emitted < s.chunk {
		return false, &rocks.CutShortError{Family: fam.Name, CF: fam.CF, Missing: "hi", LastKey: s.last}
	}
	return sawHi, nil
}
