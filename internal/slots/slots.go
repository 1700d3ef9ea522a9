package slots

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/ankusa/ankusa-store/internal/scratch"
)

// Limits bound what a Table holds in memory; the zero Limits is DefaultLimits. The tests
// make them small, so that a few records spill and fill several buckets.
type Limits struct {
	// BucketBits: a bucket holds the numbers of one 2^BucketBits span.
	BucketBits int
	// BufTotal is the bytes of all the buckets' write buffers together, BufLeast the least
	// one has (at 10^8 numbers some 400 buckets share 8 MiB), BufMost the most (a small
	// table's few buckets).
	BufTotal, BufLeast, BufMost int
	// SpillAfter is the bytes of full buffers kept in memory before they go to the file:
	// a small store's answers never touch the disk.
	SpillAfter int
}

// DefaultLimits: buckets of 2^18 numbers (a Reader's arrays 1 MiB, 3 MiB wide), 8 MiB of
// buffers, 4 to 64 KiB each, 4 MiB kept before the file.
func DefaultLimits() Limits {
	return Limits{BucketBits: 18, BufTotal: 8 << 20, BufLeast: 4 << 10, BufMost: 64 << 10, SpillAfter: 4 << 20}
}

// Table is the records of numbers 0 to n-1, each at most once: a uint32 and, in a wide
// table, a uint64.
type Table struct {
	lim   Limits
	wide  bool
	rec   int // bytes a record: its number within its bucket, a, and b when wide
	bufSz int
	bkts  []bucket
	label string
	// file is where full buffers go past lim.SpillAfter, until its first failure: the
	// buffers after it stay in memory.
	file *scratch.SpillFile
	held int // bytes of full buffers kept in memory
	done bool
}

type bucket struct {
	buf    []byte
	chunks []chunk
}

// chunk is a full buffer: in memory (b), or in the file at off, size bytes.
type chunk struct {
	b         []byte
	off, size int64
}

// New makes a table of the numbers 0 to n-1, label naming its file in errors; wide records
// carry a uint64 beside their uint32.
func New(label string, n uint64, wide bool, lim Limits) *Table {
	if lim == (Limits{}) {
		lim = DefaultLimits()
	}
	t := &Table{lim: lim, wide: wide, rec: 8, label: label, file: scratch.NewSpillFile(label)}
	if wide {
		t.rec = 16
	}
	nb := int((n + 1<<lim.BucketBits - 1) >> lim.BucketBits)
	t.bkts = make([]bucket, nb)
	t.bufSz = max(min(lim.BufTotal/max(nb, 1), lim.BufMost), lim.BufLeast, t.rec)
	t.bufSz -= t.bufSz % t.rec
	return t
}

// Put records a (and b, when wide) for number i, below the table's n. A number put twice is
// the Reader's error, not Put's.
func (t *Table) Put(i uint64, a uint32, b uint64) {
	bk := &t.bkts[i>>t.lim.BucketBits]
	if bk.buf == nil {
		bk.buf = make([]byte, 0, t.bufSz)
	}
	bk.buf = binary.LittleEndian.AppendUint32(bk.buf, uint32(i&(1<<t.lim.BucketBits-1)))
	bk.buf = binary.LittleEndian.AppendUint32(bk.buf, a)
	if t.wide {
		bk.buf = binary.LittleEndian.AppendUint64(bk.buf, b)
	}
	if len(bk.buf)+t.rec > cap(bk.buf) {
		t.flush(bk)
	}
}

// flush moves a bucket's buffer to its chunks: kept in memory within lim.SpillAfter, else
// written to the file (kept in memory when that fails: err says why).
func (t *Table) flush(bk *bucket) {
	if len(bk.buf) == 0 {
		return
	}
	if t.held+len(bk.buf) > t.lim.SpillAfter {
		if off, ok := t.file.Append(bk.buf); ok {
			bk.chunks = append(bk.chunks, chunk{off: off, size: int64(len(bk.buf))})
			bk.buf = bk.buf[:0]
			return
		}
	}
	bk.chunks = append(bk.chunks, chunk{b: bk.buf})
	t.held += len(bk.buf)
	bk.buf = nil
}

// Finish ends the puts: every buffer goes to its chunks, and their file's error, if a write
// failed, is returned (the records after it stayed in memory).
func (t *Table) Finish() error {
	if !t.done {
		t.done = true
		for i := range t.bkts {
			t.flush(&t.bkts[i])
			t.bkts[i].buf = nil
		}
	}
	return t.file.Err()
}

// Spilled is the bytes written to the table's file (in the temporary directory) so far.
func (t *Table) Spilled() int64 { return t.file.Size() }

// Held is the bytes the table holds in memory: its buffers and its chunks not in the file.
func (t *Table) Held() int {
	n := t.held
	for i := range t.bkts {
		n += cap(t.bkts[i].buf)
	}
	return n
}

// Close removes the file (it has no name: closing frees its blocks) and drops the records.
func (t *Table) Close() {
	t.file.Close()
	t.bkts, t.held = nil, 0
}

// Reader answers Get for increasing numbers, one bucket loaded at a time (its chunks
// dropped once loaded).
type Reader struct {
	t   *Table
	cur int // the bucket loaded, -1 for none
	a   []uint32
	b   []uint64
	set []uint64 // a bit a number the bucket holds
	rd  []byte
}

// Reader reads the table once Finish has returned.
func (t *Table) Reader() *Reader {
	return &Reader{t: t, cur: -1}
}

// Get is number i's record; ok is false when none was put. Numbers must be asked in
// increasing order (a bucket once left is gone).
func (r *Reader) Get(i uint64) (a uint32, b uint64, ok bool, err error) {
	bi := int(i >> r.t.lim.BucketBits)
	if bi >= len(r.t.bkts) {
		return 0, 0, false, nil
	}
	if bi != r.cur {
		if bi < r.cur {
			return 0, 0, false, fmt.Errorf("slots: %s: number %d asked after bucket %d was read (a bug)", r.t.label, i, r.cur)
		}
		if err := r.load(bi); err != nil {
			return 0, 0, false, err
		}
	}
	o := i & (1<<r.t.lim.BucketBits - 1)
	if r.set[o>>6]&(1<<(o&63)) == 0 {
		return 0, 0, false, nil
	}
	if r.t.wide {
		b = r.b[o]
	}
	return r.a[o], b, true, nil
}

// errTwice is a number put twice: a join answered a row twice.
var errTwice = errors.New("a number was put twice")

// load places bucket bi's records into the arrays.
func (r *Reader) load(bi int) error {
	size := 1 << r.t.lim.BucketBits
	if r.a == nil {
		r.a = make([]uint32, size)
		r.set = make([]uint64, (size+63)/64)
		if r.t.wide {
			r.b = make([]uint64, size)
		}
	} else {
		clear(r.set)
	}
	r.cur = bi
	bk := &r.t.bkts[bi]
	for _, c := range bk.chunks {
		data := c.b
		if data == nil {
			if cap(r.rd) < int(c.size) {
				r.rd = make([]byte, c.size)
			}
			data = r.rd[:c.size]
			if _, err := r.t.file.ReadAt(data, c.off); err != nil {
				return fmt.Errorf("slots: %s: %w", r.t.label, err)
			}
		}
		for p := 0; p+r.t.rec <= len(data); p += r.t.rec {
			o := binary.LittleEndian.Uint32(data[p:])
			if int(o) >= size {
				return fmt.Errorf("slots: %s: a record of number %d in a bucket of %d (a bug)", r.t.label, o, size)
			}
			if r.set[o>>6]&(1<<(o&63)) != 0 {
				return fmt.Errorf("slots: %s: number %d: %w (a bug)", r.t.label, uint64(bi)<<r.t.lim.BucketBits|uint64(o), errTwice)
			}
			r.set[o>>6] |= 1 << (o & 63)
			r.a[o] = binary.LittleEndian.Uint32(data[p+4:])
			if r.t.wide {
				r.b[o] = binary.LittleEndian.Uint64(data[p+8:])
			}
		}
	}
	r.t.held -= chunksHeld(bk.chunks)
	bk.chunks = nil
	return nil
}

func chunksHeld(cs []chunk) int {
	n := 0
	for _, c := range cs {
		n += len(c.b)
	}
	return n
}

// Held is the bytes the reader's arrays and read buffer hold.
func (r *Reader) Held() int {
	return 4*cap(r.a) + 8*cap(r.b) + 8*cap(r.set) + cap(r.rd)
}
