package sortjoin

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"

	"github.com/ankusa/ankusa-store/internal/scratch"
)

// The join writes each value it gathers, in key order, to the bucket of its
// position in the walk, and reads the buckets back in position order: a
// bucket's values are read whole (one family's window) when they fit in
// Sizes.WindowMax, and otherwise split into smaller buckets
// first, down to one position if need be. Every bucket's records go to one
// unnamed file in segments; a record is
//
//	pos::64 | found::8 | klen::8 | key | vlen (uvarint) | value

// spillRecordOverhead is a record's bytes beside its value, at most (a
// delivery row's key of 10 bytes, a length of up to 5).
const spillRecordOverhead = 8 + 1 + 1 + 10 + 5

// spillFile is the join's one unnamed file; its blocks go back to the file
// system when it is closed, or when the process ends, however it ends.
type spillFile struct {
	f   *os.File
	end int64
}

func newSpillFile(label string) (*spillFile, error) {
	f, err := scratch.UnnamedFile(os.TempDir(), label)
	if err != nil {
		return nil, &SpillError{err}
	}
	return &spillFile{f: f}, nil
}

func (s *spillFile) close() {
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
}

// write appends b and says where it lies.
func (s *spillFile) write(b []byte) (segment, error) {
	off := s.end
	if _, err := s.f.WriteAt(b, off); err != nil {
		return segment{}, &SpillError{err}
	}
	s.end += int64(len(b))
	return segment{off: off, n: len(b)}, nil
}

type segment struct {
	off int64
	n   int
}

// posSpill is the values of positions [base, base+n), bucketed by position.
type posSpill struct {
	sz   *Sizes
	file *spillFile
	base uint64
	n    uint64
	per  uint64      // positions a bucket
	pend [][]byte    // a bucket's records not yet written
	segs [][]segment // a bucket's segments in the file
}

// newPosSpill buckets n positions from base, per a bucket.
func newPosSpill(sz *Sizes, file *spillFile, base, n, per uint64) *posSpill {
	per = max(per, 1)
	buckets := (n + per - 1) / per
	return &posSpill{sz: sz, file: file, base: base, n: n, per: per,
		pend: make([][]byte, buckets), segs: make([][]segment, buckets)}
}

// size is the bytes of bucket b's records written to the file.
func (p *posSpill) size(b int) int {
	n := 0
	for _, s := range p.segs[b] {
		n += s.n
	}
	return n
}

func (p *posSpill) buckets() int { return len(p.segs) }

// span is bucket b's positions.
func (p *posSpill) span(b int) (lo, hi uint64) {
	lo = p.base + uint64(b)*p.per
	return lo, min(lo+p.per, p.base+p.n)
}

func (p *posSpill) add(pos uint64, key []byte, found bool, val []byte) error {
	if pos < p.base || pos >= p.base+p.n {
		return fmt.Errorf("sortjoin: position %d outside [%d, %d)", pos, p.base, p.base+p.n)
	}
	b := int((pos - p.base) / p.per)
	r := binary.BigEndian.AppendUint64(p.pend[b], pos)
	f := byte(0)
	if found {
		f = 1
	}
	r = append(r, f, byte(len(key)))
	r = append(r, key...)
	r = binary.AppendUvarint(r, uint64(len(val)))
	r = append(r, val...)
	p.pend[b] = r
	if len(r) >= p.sz.Segment {
		return p.write(b)
	}
	return nil
}

func (p *posSpill) write(b int) error {
	if len(p.pend[b]) == 0 {
		return nil
	}
	seg, err := p.file.write(p.pend[b])
	if err != nil {
		return err
	}
	p.segs[b] = append(p.segs[b], seg)
	// A buffer a large value grew is let go: kept, 2,048 buckets of hooks of
	// 100 KB held 2,048 buffers of 116 KB.
	if cap(p.pend[b]) > 2*p.sz.Segment {
		p.pend[b] = nil
	} else {
		p.pend[b] = p.pend[b][:0]
	}
	return nil
}

// flush writes every bucket's pending records and lets their buffers go.
func (p *posSpill) flush() error {
	for b := range p.pend {
		if err := p.write(b); err != nil {
			return err
		}
		p.pend[b] = nil
	}
	return nil
}

// records reads bucket b's records in the order they were written, all into
// one buffer, which the records' keys and values are slices of.
func (p *posSpill) records(b int, fn func(r spillRecord) error) error {
	buf := make([]byte, p.size(b))
	at := 0
	for _, s := range p.segs[b] {
		if err := p.read(buf[at:at+s.n], s); err != nil {
			return err
		}
		at += s.n
	}
	return eachSpillRecord(buf, fn)
}

// stream reads bucket b's records a segment at a time, into one buffer that
// the next segment reuses: for a split, which copies each record on, of a
// bucket too large to hold.
func (p *posSpill) stream(b int, fn func(r spillRecord) error) error {
	var buf []byte
	for _, s := range p.segs[b] {
		if cap(buf) < s.n {
			buf = make([]byte, s.n)
		}
		if err := p.read(buf[:s.n], s); err != nil {
			return err
		}
		if err := eachSpillRecord(buf[:s.n], fn); err != nil {
			return err
		}
	}
	return nil
}

func (p *posSpill) read(dst []byte, s segment) error {
	if _, err := p.file.f.ReadAt(dst, s.off); err != nil {
		return fmt.Errorf("sortjoin: reading %s: %w", p.file.f.Name(), err)
	}
	return nil
}

// eachSpillRecord hands on the whole records of b (a segment holds whole ones).
func eachSpillRecord(b []byte, fn func(r spillRecord) error) error {
	for len(b) > 0 {
		r, n, err := decodeSpillRecord(b)
		if err != nil {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

type spillRecord struct {
	pos   uint64
	found bool
	key   []byte
	val   []byte
}

// errSpillRecord: a record of the join's file does not decode.
var errSpillRecord = errors.New("sortjoin: a record in the join's file does not decode")

func decodeSpillRecord(b []byte) (spillRecord, int, error) {
	if len(b) < 10 {
		return spillRecord{}, 0, errSpillRecord
	}
	r := spillRecord{pos: binary.BigEndian.Uint64(b), found: b[8] == 1}
	kl := int(b[9])
	n := 10
	if len(b) < n+kl {
		return spillRecord{}, 0, errSpillRecord
	}
	r.key = b[n : n+kl : n+kl]
	n += kl
	vl, m := binary.Uvarint(b[n:])
	if m <= 0 || uint64(len(b)-n-m) < vl {
		return spillRecord{}, 0, errSpillRecord
	}
	n += m
	r.val = b[n : n+int(vl) : n+int(vl)]
	return r, n + int(vl), nil
}

// joinReader hands on one family's records in position order: a stack of
// spills, the top one a bucket split from the one below it.
type joinReader struct {
	sz     *Sizes
	levels []*posLevel
	win    *posWindow
	next   uint64 // the next position asked for
}

type posLevel struct {
	spill *posSpill
	b     int // the next bucket to read
}

// posWindow is the records of positions [lo, hi), by position.
type posWindow struct {
	lo, hi uint64
	recs   []spillRecord
}

// at is the record of position pos, which must be at or past the last one
// asked for.
func (r *joinReader) at(pos uint64) (spillRecord, error) {
	for r.win == nil || pos >= r.win.hi {
		w, err := r.window()
		if err != nil {
			return spillRecord{}, err
		}
		if w == nil {
			// More lookups than the plan recorded.
			return spillRecord{}, errMoved
		}
		r.win = w
	}
	if pos < r.win.lo {
		return spillRecord{}, fmt.Errorf("sortjoin: position %d asked for after %d", pos, r.win.lo)
	}
	return r.win.recs[pos-r.win.lo], nil
}

// window reads the next bucket whose records fit in Sizes.WindowMax,
// splitting those that do not; nil when every bucket is read.
func (r *joinReader) window() (*posWindow, error) {
	for len(r.levels) > 0 {
		top := r.levels[len(r.levels)-1]
		if top.b == top.spill.buckets() {
			r.levels = r.levels[:len(r.levels)-1]
			continue
		}
		b := top.b
		top.b++
		sp := top.spill
		lo, hi := sp.span(b)
		if sp.size(b) > r.sz.WindowMax && hi-lo > 1 {
			sub, err := sp.split(b)
			if err != nil {
				return nil, err
			}
			r.levels = append(r.levels, &posLevel{spill: sub})
			continue
		}
		// A record read has its key (never empty): a slot without one has
		// had no record.
		w := &posWindow{lo: lo, hi: hi, recs: make([]spillRecord, hi-lo)}
		err := sp.records(b, func(rec spillRecord) error {
			if rec.pos < lo || rec.pos >= hi || w.recs[rec.pos-lo].key != nil {
				return fmt.Errorf("sortjoin: position %d twice or out of its bucket", rec.pos)
			}
			w.recs[rec.pos-lo] = rec
			return nil
		})
		if err != nil {
			return nil, err
		}
		for i, rec := range w.recs {
			if rec.key == nil {
				return nil, fmt.Errorf("sortjoin: no value for position %d", lo+uint64(i))
			}
		}
		return w, nil
	}
	return nil, nil
}

// split writes bucket b's records to smaller buckets, each about a quarter
// of Sizes.WindowMax if their values are alike.
func (p *posSpill) split(b int) (*posSpill, error) {
	lo, hi := p.span(b)
	// At least two, so that every split narrows the bucket (down to one
	// position, which is read whatever its size).
	parts := max(2, uint64(p.size(b)/max(1, p.sz.WindowMax/4))+1)
	sub := newPosSpill(p.sz, p.file, lo, hi-lo, (hi-lo+parts-1)/parts)
	err := p.stream(b, func(r spillRecord) error { return sub.add(r.pos, r.key, r.found, r.val) })
	if err == nil {
		err = sub.flush()
	}
	return sub, err
}
