package rocks

// #include "rockshelp.h"
import "C"

// Ranges reads ranges of one column family one after another on one iterator. A new
// iterator for each range seeks afresh: it opens its own readers of the table files it
// meets, reads their index blocks again when the store's options keep them in the block
// cache and the read does not fill it, and starts its readahead over. The bulk migration's
// hook workers read the hooks in some 600 ranges at 10^7 rows, 6,000 at 10^8: their new
// iterators' seeks took 1.2 s of CPU at 10^7 (issue 45).
//
// The ranges are read forward, in any order; the iterator has no bounds of its own, so a
// range's end is a stop key checked as each key is copied out (the store's comparator is
// bytewise). A Ranges holds the store's read lock from NewRanges to Close, as a scan holds it
// for its length: Close it when done, and before closing the store.
type Ranges struct {
	d           *DB
	cf          string
	it          *cIter
	failsBefore uint64
}

// NewRanges opens a Ranges over cf, read with ro (FirstOfEachPrefix is not honoured).
func (d *DB) NewRanges(cf string, ro ReadOpts) (*Ranges, error) {
	d.mu.RLock()
	f, err := d.cf(cf)
	if err != nil {
		d.mu.RUnlock()
		return nil, err
	}
	_, failsBefore := d.merge.failure()
	it, err := openCIter(d, f, nil, nil, ro)
	if err != nil {
		d.mu.RUnlock()
		return nil, err
	}
	return &Ranges{d: d, cf: cf, it: it, failsBefore: failsBefore}, nil
}

// Scan calls fn for every key in [lo, hi) in order (hi nil: to the family's end), as
// DB.Scan does; Stop from fn ends the range without error. After an error the Ranges reads
// nothing more: its iterator's error stays.
func (r *Ranges) Scan(lo, hi []byte, fn func(k, v []byte) error) error {
	if r.it == nil {
		return ErrClosed
	}
	it := r.it
	C.ankusa_iter_range(it.it, cbytes(lo), C.size_t(len(lo)), cbytes(hi), C.size_t(len(hi)), cbool(hi != nil))
	it.rewind()
	last, err := it.each(fn)
	return r.d.iterEnd(r.cf, it, last, r.failsBefore, err)
}

// Close frees the iterator and lets go of the store's read lock; a second Close does nothing.
func (r *Ranges) Close() {
	if r.it == nil {
		return
	}
	r.it.close()
	r.it = nil
	r.d.mu.RUnlock()
}
