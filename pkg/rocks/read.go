package rocks

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/linxGnu/grocksdb"
)

// ReadOpts are per-read options. The zero value reads the latest state and
// does not fill the block cache (folds over millions of rows would evict
// everything else).
type ReadOpts struct {
	Snap      *Snapshot
	FillCache bool
	// FirstOfEachPrefix, in a forward scan, hands fn only the first key of each run of keys
	// that share their first FirstOfEachPrefix bytes, and seeks past the rest: the first due
	// row of every tenant costs a seek a tenant, not a walk of every due row. A key shorter
	// than that is handed on as any other. Ignored by point reads and reverse scans.
	FirstOfEachPrefix int
	// Readahead, when > 0, is how many bytes of a table file an iterator reads at once, for a
	// scan that reads its range whole. Without it RocksDB reads a block (a few KiB) a read
	// call: its own readahead on files it reads through the page cache only asks the kernel
	// to read ahead (readahead(2)) and still reads each block by itself. A whole-family scan
	// of a 10^7-row store made over a million reads that way, and about a tenth of a bulk
	// migration's CPU went to them (issue 45). Each iterator holds a buffer of this size.
	Readahead int
}

// Snapshot is a consistent view of the store; Release it when done.
type Snapshot struct {
	db *DB
	s  *grocksdb.Snapshot
	c  unsafe.Pointer
}

// ErrNoSnapshots: a secondary instance cannot take snapshots. RocksDB hands one out, and
// every read through it then fails ("Not implemented: Snapshot not supported in secondary
// mode"), so it is refused here, before anything reads.
var ErrNoSnapshots = errors.New("rocks: a secondary instance cannot take snapshots")

// NewSnapshot takes a snapshot of the store: ErrClosed if the DB is closed, ErrNoSnapshots on
// a secondary instance.
func (d *DB) NewSnapshot() (*Snapshot, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return nil, ErrClosed
	}
	if d.mode == Secondary {
		return nil, ErrNoSnapshots
	}
	s := d.db.NewSnapshot()
	return &Snapshot{db: d, s: s, c: snapshotPtr(s)}, nil
}

// Release frees the snapshot; idempotent, and a no-op after the DB closed
// (closing the DB frees its snapshots).
func (s *Snapshot) Release() {
	if s == nil {
		return
	}
	s.db.mu.RLock()
	defer s.db.mu.RUnlock()
	if s.s == nil || s.db.closed {
		s.s = nil
		return
	}
	s.db.db.ReleaseSnapshot(s.s)
	s.s, s.c = nil, nil
}

func (s *Snapshot) cFor(d *DB) (unsafe.Pointer, error) {
	if s.db != d {
		return nil, errors.New("rocks: snapshot belongs to another store")
	}
	if s.s == nil {
		return nil, errors.New("rocks: snapshot already released")
	}
	return s.c, nil
}

func (d *DB) readOptions(ro ReadOpts) (*grocksdb.ReadOptions, error) {
	o := grocksdb.NewDefaultReadOptions()
	o.SetFillCache(ro.FillCache)
	if ro.Snap != nil {
		if _, err := ro.Snap.cFor(d); err != nil {
			o.Destroy()
			return nil, err
		}
		o.SetSnapshot(ro.Snap.s)
	}
	return o, nil
}

func (d *DB) keyError(cf string, key []byte, msg string) error {
	return &KeyError{CF: cf, Key: append([]byte(nil), key...), Corrupt: isCorruption(msg), Err: errors.New(msg)}
}

// Get reads one key. A failed merge is a *KeyError naming the key
// (errors.Is ErrCorrupt).
func (d *DB) Get(cf string, key []byte) ([]byte, bool, error) {
	return d.GetOpts(cf, key, ReadOpts{FillCache: true})
}

// GetOpts is Get with read options (a snapshot).
func (d *DB) GetOpts(cf string, key []byte, ro ReadOpts) ([]byte, bool, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	f, err := d.cf(cf)
	if err != nil {
		return nil, false, err
	}
	o, err := d.readOptions(ro)
	if err != nil {
		return nil, false, err
	}
	defer o.Destroy()
	s, err := d.db.GetCF(o, f.h, key)
	if err != nil {
		return nil, false, d.keyError(cf, key, err.Error())
	}
	defer s.Free()
	if !s.Exists() {
		return nil, false, nil
	}
	return append([]byte{}, s.Data()...), true, nil
}

// MultiGet reads many keys of one family in one batched RocksDB call. The
// first per-key error is returned (a *KeyError naming the key); vals and
// found are filled for the others.
func (d *DB) MultiGet(cf string, keys [][]byte) (vals [][]byte, found []bool, err error) {
	return d.MultiGetOpts(cf, keys, ReadOpts{FillCache: true})
}

// MultiGetOpts is MultiGet with read options (a snapshot).
func (d *DB) MultiGetOpts(cf string, keys [][]byte, ro ReadOpts) (vals [][]byte, found []bool, err error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	f, err := d.cf(cf)
	if err != nil {
		return nil, nil, err
	}
	vals, found, errs, err := multiGet(d, f, keys, ro)
	if err != nil {
		return nil, nil, err
	}
	for i, e := range errs {
		if e != "" {
			return vals, found, d.keyError(cf, keys[i], e)
		}
	}
	return vals, found, nil
}

// Iterators is how many iterators the DB has opened, one a scan or fold: a
// reader of a whole family that should hold one iterator and seeks again for
// every chunk instead reads the family about twice, and only this count shows
// it from outside (the views' command tests compare it on a small and a large
// store).
func (d *DB) Iterators() int64 { return d.iters.Load() }

// Stop, returned by a scan callback, ends the scan without error. Named as filepath.SkipAll
// is, not ErrStop: it is a signal from the callback, never a failure.
//
//lint:ignore ST1012 a control signal, as filepath.SkipAll; see above.
var Stop = errors.New("rocks: stop scan")

// Scan calls fn for every key in [lo, hi) in order; a nil lo or hi is open.
// k and v are only valid during fn. An iteration error (a failed merge, a
// corrupt block) is returned as a *KeyError (errors.Is ErrCorrupt).
func (d *DB) Scan(cf string, lo, hi []byte, ro ReadOpts, fn func(k, v []byte) error) error {
	return d.scan(cf, lo, hi, ro, false, false, fn)
}

// ScanKeys is Scan for a reader that needs only the keys: the values are not
// copied out of RocksDB, which on a family of large values (the hooks, most
// of a store's bytes) is most of what a scan costs once the blocks are read.
func (d *DB) ScanKeys(cf string, lo, hi []byte, ro ReadOpts, fn func(k []byte) error) error {
	return d.scan(cf, lo, hi, ro, false, true, func(k, _ []byte) error { return fn(k) })
}

// ScanReverse calls fn for every key in [lo, hi) from hi (exclusive) down.
func (d *DB) ScanReverse(cf string, lo, hi []byte, ro ReadOpts, fn func(k, v []byte) error) error {
	return d.scan(cf, lo, hi, ro, true, false, fn)
}

// scan runs the batched iterator.
func (d *DB) scan(cf string, lo, hi []byte, ro ReadOpts, reverse, keysOnly bool, fn func(k, v []byte) error) error {
	return d.iterate(cf, lo, hi, ro, reverse, func(it *cIter) ([]byte, error) {
		it.keysOnly = keysOnly
		return it.each(fn)
	})
}

// iterate runs read over a batched iterator of [lo, hi) under the store's
// read lock. read returns the last key it handed on (for iterError) and its
// callback's error; Stop from it ends the iteration without error.
func (d *DB) iterate(cf string, lo, hi []byte, ro ReadOpts, reverse bool, read func(it *cIter) (last []byte, err error)) error {
	d.mu.RLock()
	defer d.mu.RUnlock()
	f, err := d.cf(cf)
	if err != nil {
		return err
	}
	_, failsBefore := d.merge.failure()
	it, err := newCIter(d, f, lo, hi, ro, reverse)
	if err != nil {
		return err
	}
	defer it.close()
	last, err := read(it)
	return d.iterEnd(cf, it, last, failsBefore, err)
}

// iterEnd is how an iteration of cf over it ended, read having handed on last and returned
// err: nil at its end or at Stop, read's error, or the iterator's own (iterError).
func (d *DB) iterEnd(cf string, it *cIter, last []byte, failsBefore uint64, err error) error {
	if err != nil {
		if err == Stop {
			return nil
		}
		return err
	}
	if msg := it.errMsg(); msg != "" {
		return d.iterError(cf, last, failsBefore, msg)
	}
	return nil
}

// iterError names the key an iteration failed at: the merge operator
// remembers the key whose merge failed; otherwise the error says after which
// key iteration stopped.
func (d *DB) iterError(cf string, last []byte, failsBefore uint64, msg string) *KeyError {
	key, fails := d.merge.failure()
	if fails != failsBefore {
		return &KeyError{CF: cf, Key: key, Corrupt: true, Err: fmt.Errorf("merge failed: %s", msg)}
	}
	var k []byte
	if last != nil {
		k = append([]byte(nil), last...)
	}
	return &KeyError{CF: cf, Key: k, After: true, Corrupt: isCorruption(msg), Err: errors.New(msg)}
}
