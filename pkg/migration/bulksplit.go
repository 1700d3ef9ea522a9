package migration

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"slices"
	"sort"
)

// The write stage's merge and its table writers are cut in two at a key of the index
// family, each half on goroutines of its own, beside the other: a family's writer (the
// SstFileWriter's puts, one core's worth) was the stage's longest chain, and the stage kept
// one and a half of the two cores busy. The halves' files do not overlap (the first half's
// keys are all below the split key, the second's all at it or above), so each family's
// files still follow one another in key order, as one ingest into the last level requires.
//
// The split key is the median of a sample of the index family's keys (keySample), so that
// the halves hold about as many of its writes; a run's second half is found from the
// restart points its spill records (a key written whole every runRestartBytes), read from
// the last one below the split key.

// runRestartBytes is how far apart a spilled run's restart points are: the most of a run
// the split reads to find where its second half begins.
const runRestartBytes = 64 << 10

// keySampleMost is how many index keys keySample keeps.
const keySampleMost = 1024

// runRestart is a restart point of a spilled run: the write at off in its file, its key
// written whole.
type runRestart struct {
	off int64
	cf  uint8
	key []byte
}

// keySample keeps every stride-th key added, at most keySampleMost of them: past that it
// keeps every other one and samples half as often, so that the keys kept are spread over
// all those added.
type keySample struct {
	stride, n uint64
	keys      [][]byte
}

func (s *keySample) add(key []byte) {
	if s.stride == 0 {
		s.stride = 1
	}
	if s.n++; s.n%s.stride != 0 {
		return
	}
	if len(s.keys) == keySampleMost {
		// keys[i] was the (i+1)*stride-th: those at even multiples stay.
		for i := range keySampleMost / 2 {
			s.keys[i] = s.keys[2*i+1]
		}
		clear(s.keys[keySampleMost/2:])
		s.keys, s.stride = s.keys[:keySampleMost/2], 2*s.stride
		if s.n%s.stride != 0 {
			return
		}
	}
	s.keys = append(s.keys, slices.Clone(key))
}

// median is the sample's median key, nil when it holds none.
func (s *keySample) median() []byte {
	if len(s.keys) == 0 {
		return nil
	}
	keys := slices.Clone(s.keys)
	slices.SortFunc(keys, bytes.Compare)
	return keys[len(keys)/2]
}

// runHalf is one half of the write stage's merge: of each spilled run the section that
// holds its writes in the half, and of the run in memory its writes from to end; the index
// family's kept keys in [keptLo, keptHi) (nil: open).
type runHalf struct {
	sections       []runSection
	from, to       int
	keptLo, keptHi []byte
	suffix         string // the half's table files' names end in it
}

// runSection is the part of a spilled run's file at off, size bytes; prev is the key of the
// write before it, which the first write's key may share its head with.
type runSection struct {
	f         *os.File
	off, size int64
	prev      []byte
}

// halves cuts the runs in two at the split key (split, when a test sets it, else the
// sample's median): one half when there is no index key to split at. The runs must be
// settled and sorted.
func (r *bulkRuns) halves() ([]runHalf, error) {
	at := r.split
	if at == nil {
		at = r.keys.median()
	}
	if at == nil {
		return []runHalf{r.whole()}, nil
	}
	below := func(cf uint8, key []byte) bool {
		return cf < cfIndex || cf == cfIndex && bytes.Compare(key, at) < 0
	}
	lo, hi := runHalf{keptHi: at}, runHalf{keptLo: at, suffix: "-b"}
	for _, sr := range r.spills {
		off, prev, err := sr.split(below)
		if err != nil {
			return nil, err
		}
		lo.sections = append(lo.sections, runSection{f: sr.f, size: off})
		hi.sections = append(hi.sections, runSection{f: sr.f, off: off, size: sr.size - off, prev: prev})
	}
	m := sort.Search(len(r.ops), func(i int) bool {
		op := r.ops[i]
		return !below(op.cf, r.arena[op.k:op.v])
	})
	lo.from, lo.to, hi.from, hi.to = 0, m, m, len(r.ops)
	return []runHalf{lo, hi}, nil
}

// whole is every run as one half.
func (r *bulkRuns) whole() runHalf {
	h := runHalf{from: 0, to: len(r.ops)}
	for _, sr := range r.spills {
		h.sections = append(h.sections, runSection{f: sr.f, size: sr.size})
	}
	return h
}

// split finds where the run's writes stop being below: the offset of its first write that
// is not, and the key of the write before it.
func (sr spilledRun) split(below func(cf uint8, key []byte) bool) (off int64, prev []byte, err error) {
	rs := sr.restarts
	j := sort.Search(len(rs), func(j int) bool { return !below(rs[j].cf, rs[j].key) })
	if j == 0 {
		return 0, nil, nil
	}
	start := rs[j-1].off
	src := &runSource{rd: bufio.NewReaderSize(io.NewSectionReader(sr.f, start, sr.size-start), runReadLeast)}
	for {
		ok, err := src.next()
		if err != nil {
			return 0, nil, err
		}
		if !ok {
			return sr.size, prev, nil
		}
		if !below(src.cur.cf, src.cur.key) {
			return start + src.pos, prev, nil
		}
		prev = append(prev[:0], src.cur.key...)
	}
}

// halfSources are a half's runs, each at its first write, each read through readSize
// bytes.
func (r *bulkRuns) halfSources(h runHalf, readSize int) (*runMerge, error) {
	m := &runMerge{srcs: make([]*runSource, 0, len(h.sections)+1)}
	for i, sec := range h.sections {
		if sec.size == 0 {
			continue
		}
		src := &runSource{order: i, rd: bufio.NewReaderSize(io.NewSectionReader(sec.f, sec.off, sec.size), readSize), key: slices.Clone(sec.prev)}
		ok, err := src.next()
		if err != nil {
			return nil, err
		}
		if ok {
			m.srcs = append(m.srcs, src)
		}
	}
	mem := &runSource{order: len(h.sections), mem: r, at: h.from, end: h.to}
	if ok, _ := mem.next(); ok {
		m.srcs = append(m.srcs, mem)
	}
	m.done, m.tree.Keys = make([]bool, len(m.srcs)), make([][2]uint64, len(m.srcs))
	for i := range m.srcs {
		m.set(int32(i), true)
	}
	m.tie = m.tieOf
	m.tree.Build(m.tie)
	return m, nil
}
