package rocks

// #include <stdlib.h>
// #include "rockshelp.h"
import "C"

import (
	"encoding/binary"
	"sync"
	"unsafe"

	"github.com/linxGnu/grocksdb"
)

// The batched iterator: one cgo call copies up to fillMaxEntries entries into
// a Go buffer, instead of four cgo calls (Valid, Key, Value, Next) per key.
// See doc.go for the numbers.

// A fill starts at fillFirstEntries and doubles up to fillMaxEntries: a point-like read that
// stops after a row or a page (dlq scan, a tenant's first due row) copies a few entries instead
// of 4 096, while a fold reaches full batches after eight fills.
const (
	fillBufSize      = 256 << 10
	fillFirstEntries = 16
	fillMaxEntries   = 4096
)

var fillBufs = sync.Pool{New: func() any { b := make([]byte, fillBufSize); return &b }}

// cIter is a C iterator with its batch buffer.
type cIter struct {
	it       *C.ankusa_iter
	reverse  bool
	keysOnly bool // values come back empty, uncopied
	bufp     *[]byte
	buf      []byte
	off      int // next entry in buf
	end      int // bytes filled in buf
	last     int // offset of the last entry filled in buf
	n        int // entries left in buf
	batch    int // entries the next fill may copy
	done     bool
}

// newCIter creates an iterator over cf bounded to [lo, hi), positioned at its first entry (the
// last, reverse); a nil bound is open. The caller holds d.mu for reading until close.
func newCIter(d *DB, f *family, lo, hi []byte, ro ReadOpts, reverse bool) (*cIter, error) {
	it, err := openCIter(d, f, lo, hi, ro)
	if err != nil {
		return nil, err
	}
	it.reverse = reverse
	if reverse {
		C.ankusa_iter_seek_last(it.it)
	} else {
		if ro.FirstOfEachPrefix > 0 {
			C.ankusa_iter_set_skip(it.it, C.size_t(ro.FirstOfEachPrefix))
		}
		C.ankusa_iter_seek(it.it)
	}
	return it, nil
}

// openCIter creates the iterator, not yet positioned.
func openCIter(d *DB, f *family, lo, hi []byte, ro ReadOpts) (*cIter, error) {
	var snap unsafe.Pointer
	if ro.Snap != nil {
		s, err := ro.Snap.cFor(d)
		if err != nil {
			return nil, err
		}
		snap = s
	}
	d.iters.Add(1)
	bufp := fillBufs.Get().(*[]byte)
	it := C.ankusa_iter_new((*C.rocksdb_t)(d.cdb), (*C.rocksdb_column_family_handle_t)(f.c),
		(*C.rocksdb_snapshot_t)(snap), cbool(ro.FillCache), C.size_t(max(ro.Readahead, 0)),
		cbytes(lo), C.size_t(len(lo)), cbool(lo != nil),
		cbytes(hi), C.size_t(len(hi)), cbool(hi != nil))
	return &cIter{it: it, bufp: bufp, buf: *bufp, batch: fillFirstEntries}, nil
}

// next returns the next entry; k and v stay valid until the next call. ok is
// false at the end of iteration (check err()).
func (c *cIter) next() (k, v []byte, ok bool) {
	if c.n == 0 {
		if c.done || !c.fill() {
			return nil, nil, false
		}
	}
	k, v, c.off = entryAt(c.buf, c.off)
	c.n--
	return k, v, true
}

// each hands fn the entries from where the iterator stands, in order, until their end or fn's
// error; last is the last key handed on (the buffer keeps it when the iteration ends).
func (c *cIter) each(fn func(k, v []byte) error) (last []byte, err error) {
	for {
		k, v, ok := c.next()
		if !ok {
			return last, nil
		}
		last = k
		if err := fn(k, v); err != nil {
			return last, err
		}
	}
}

// rewind forgets what the last fills copied, for an iterator positioned anew
// (ankusa_iter_range).
func (c *cIter) rewind() {
	c.off, c.end, c.last, c.n, c.done = 0, 0, 0, 0, false
}

// entryAt decodes the entry ankusa_iter_fill wrote at off in buf, as
// [klen u32][vlen u32][key][value], and returns the offset of the next.
func entryAt(buf []byte, off int) (k, v []byte, next int) {
	kl := int(binary.NativeEndian.Uint32(buf[off:]))
	vl := int(binary.NativeEndian.Uint32(buf[off+4:]))
	ks := off + 8
	vs := ks + kl
	next = vs + vl
	return buf[ks:vs:vs], buf[vs:next:next], next
}

// fill refills the buffer; it grows the buffer for an entry that does not fit.
func (c *cIter) fill() bool {
	for {
		var used, last, need C.size_t
		var done C.int
		n := C.ankusa_iter_fill(c.it, cbool(c.reverse), cbool(c.keysOnly), (*C.char)(unsafe.Pointer(&c.buf[0])),
			C.size_t(len(c.buf)), C.int(c.batch), &used, &last, &need, &done)
		c.off, c.end, c.last, c.n = 0, int(used), int(last), int(n)
		c.batch = min(2*c.batch, fillMaxEntries)
		c.done = done != 0
		if n > 0 {
			return true
		}
		if need == 0 {
			return false
		}
		// One entry larger than the buffer: a private buffer big enough.
		c.buf = make([]byte, int(need)+int(need)/4)
	}
}

// take hands the entries of the last fill over whole, in the buffer they were
// filled in, and gives the iterator a new buffer for the next fill.
func (c *cIter) take() *Fill {
	b := &Fill{buf: c.buf[:c.end], n: c.n, last: c.last}
	// A private buffer grown for one large entry is not the pool's: it goes
	// with the fill and the pool's stays.
	if &(*c.bufp)[0] == &c.buf[0] {
		b.bufp = c.bufp
		c.bufp = fillBufs.Get().(*[]byte)
	}
	c.buf = *c.bufp
	c.off, c.end, c.n = 0, 0, 0
	return b
}

// errMsg returns the iterator's error message ("" at a clean end).
func (c *cIter) errMsg() string {
	e := C.ankusa_iter_error(c.it)
	if e == nil {
		return ""
	}
	defer C.free(unsafe.Pointer(e))
	return C.GoString(e)
}

func (c *cIter) close() {
	C.ankusa_iter_free(c.it)
	c.it = nil
	if c.bufp != nil {
		fillBufs.Put(c.bufp)
		c.bufp = nil
	}
	c.buf = nil
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// cbytes passes a Go byte slice to C for the duration of one call (the C side
// copies what it keeps).
func cbytes(b []byte) *C.char {
	if len(b) == 0 {
		return nil
	}
	return (*C.char)(unsafe.Pointer(&b[0]))
}

// destroyOptions frees options with rocksdb_options_destroy alone; see
// DB.freeOptions.
func destroyOptions(o *grocksdb.Options) {
	C.ankusa_options_destroy((*C.rocksdb_options_t)(optionsPtr(o)))
}

// multiGet looks keys up with one rocksdb_batched_multi_get_cf.
func multiGet(d *DB, f *family, keys [][]byte, ro ReadOpts) (vals [][]byte, found []bool, errs []string, err error) {
	n := len(keys)
	vals = make([][]byte, n)
	found = make([]bool, n)
	errs = make([]string, n)
	if n == 0 {
		return
	}
	var snap unsafe.Pointer
	if ro.Snap != nil {
		if snap, err = ro.Snap.cFor(d); err != nil {
			return
		}
	}
	total := 0
	for _, k := range keys {
		total += len(k)
	}
	// The C arrays live in C memory: Go memory handed to C may not hold
	// pointers that C writes (the pinnable slices) and keeps across calls.
	kbuf := C.malloc(C.size_t(total + 1))
	defer C.free(kbuf)
	kb := unsafe.Slice((*byte)(kbuf), total+1)
	klens := unsafe.Slice((*C.size_t)(C.malloc(C.size_t(n)*C.size_t(unsafe.Sizeof(C.size_t(0))))), n)
	defer C.free(unsafe.Pointer(&klens[0]))
	vlens := unsafe.Slice((*C.size_t)(C.malloc(C.size_t(n)*C.size_t(unsafe.Sizeof(C.size_t(0))))), n)
	defer C.free(unsafe.Pointer(&vlens[0]))
	cvals := unsafe.Slice((**C.rocksdb_pinnableslice_t)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(uintptr(0))))), n)
	defer C.free(unsafe.Pointer(&cvals[0]))
	cerrs := unsafe.Slice((**C.char)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(uintptr(0))))), n)
	defer C.free(unsafe.Pointer(&cerrs[0]))
	off := 0
	for i, k := range keys {
		copy(kb[off:], k)
		off += len(k)
		klens[i] = C.size_t(len(k))
	}
	C.ankusa_multiget((*C.rocksdb_t)(d.cdb), (*C.rocksdb_column_family_handle_t)(f.c),
		(*C.rocksdb_snapshot_t)(snap), cbool(ro.FillCache), C.size_t(n),
		(*C.char)(kbuf), &klens[0], &cvals[0], &vlens[0], &cerrs[0])
	vtotal := 0
	for i := 0; i < n; i++ {
		if cerrs[i] != nil {
			errs[i] = C.GoString(cerrs[i])
			C.free(unsafe.Pointer(cerrs[i]))
		}
		if cvals[i] != nil {
			found[i] = true
			vtotal += int(vlens[i])
		}
	}
	out := make([]byte, vtotal)
	var outp *C.char
	if vtotal > 0 {
		outp = (*C.char)(unsafe.Pointer(&out[0]))
	}
	C.ankusa_multiget_collect(C.size_t(n), &cvals[0], outp)
	off = 0
	for i := 0; i < n; i++ {
		if found[i] {
			l := int(vlens[i])
			vals[i] = out[off : off+l : off+l]
			off += l
		}
	}
	return vals, found, errs, nil
}
