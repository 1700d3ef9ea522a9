package migration

import (
	"bytes"
	"errors"
	"slices"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// The commit replaces the index family whole (rocks.IngestFileSetsReplacing): its old table
// files leave it in the record that brings the new ones in, so the new files must hold
// every key the steps leave in the family, not only those the steps write. Those are the
// family's old keys outside the two ranges the finish deletes (the old due and inflight
// rows): the dead and archive rows, whose new values the runs hold, their strays, which the
// runs hold as they were (builder.keepStrays), and whatever else the steps never touch (the
// dead and archive families' sentinels, a key of no family). keptIndex reads the last, in
// key order, for the merge to put under the runs' writes as RocksDB would read them after
// the steps: a key the runs write takes the runs' value.

// keptFills is how many fills of the old keys the reader may hold ahead of the merge.
const keptFills = 2

// errKeptStopped ends the reader's scan when the merge stops reading.
var errKeptStopped = errors.New("migration: the kept keys' reader stopped")

type keptIndex struct {
	fills chan *rocks.Fill
	stop  chan struct{}
	done  chan error // the reader's end, once
	cur   *rocks.Fill
	off   int
	left  int
	// k, v is the next kept key and its value (valid while ok: until the next call of next).
	k, v   []byte
	ok     bool
	err    error
	over   bool // the reader is done and its error taken
	closed bool
}

// skippedSpans are the index family's ranges the kept keys' reader passes over, in key
// order: the two the finish deletes whole (finishSpans), and the dead and archive families
// between their sentinels, every key of which the steps' scanner reads, so that the runs
// hold them all: a row's new value, and a stray as it was (builder.keepStrays). Read again
// here, the 3.8 million dead and archive rows of a 10^7-row store took 0.5-0.9 s of a bulk
// run's 38-44 s of CPU (two profiles), each then passed over under the runs' write of it.
var skippedSpans = func() [][2][]byte {
	spans := slices.Clone(finishSpans)
	for _, p := range []Phase{PhaseDead, PhaseArchive} {
		f := p.family()
		spans = append(spans, [2][]byte{format.Successor(f.Lo), f.Hi})
	}
	slices.SortFunc(spans, func(a, b [2][]byte) int { return bytes.Compare(a[0], b[0]) })
	return spans
}()

// keptRanges are the index family's ranges outside skippedSpans, in key order (a nil end is
// open).
func keptRanges() (ranges [][2][]byte) {
	var lo []byte
	for _, sp := range skippedSpans {
		ranges = append(ranges, [2][]byte{lo, sp[0]})
		lo = sp[1]
	}
	return append(ranges, [2][]byte{lo, nil})
}

// keptWithin is keptRanges cut to [lo, hi) (nil: open).
func keptWithin(lo, hi []byte) (ranges [][2][]byte) {
	for _, r := range keptRanges() {
		if lo != nil && (r[0] == nil || bytes.Compare(r[0], lo) < 0) {
			r[0] = lo
		}
		if hi != nil && (r[1] == nil || bytes.Compare(r[1], hi) > 0) {
			r[1] = hi
		}
		if r[1] == nil || bytes.Compare(r[0], r[1]) < 0 {
			ranges = append(ranges, r)
		}
	}
	return ranges
}

// readKept starts the reader of the index family's kept keys in [lo, hi) (nil: open), on a
// goroutine of its own, as the bulk method's scans read (bulkRead). The caller must close
// it.
func readKept(st *rocks.Store, lo, hi []byte) *keptIndex {
	ki := &keptIndex{fills: make(chan *rocks.Fill, keptFills), stop: make(chan struct{}), done: make(chan error, 1)}
	go func() {
		var err error
		for _, r := range keptWithin(lo, hi) {
			err = st.ScanFills(format.CFIndex, r[0], r[1], bulkRead, func(b *rocks.Fill) error {
				select {
				case ki.fills <- b:
					return nil
				case <-ki.stop:
					b.Release()
					return errKeptStopped
				}
			})
			if err != nil {
				break
			}
		}
		if errors.Is(err, errKeptStopped) {
			err = nil
		}
		close(ki.fills)
		ki.done <- err
	}()
	return ki
}

// next moves to the next kept key (ok false after the last, or at the reader's error).
func (ki *keptIndex) next() error {
	for ki.left == 0 {
		if ki.cur != nil {
			ki.cur.Release()
			ki.cur = nil
		}
		b, open := <-ki.fills
		if !open {
			ki.ok = false
			ki.finish()
			return ki.err
		}
		ki.cur, ki.off, ki.left = b, 0, b.Len()
	}
	ki.k, ki.v, ki.off = ki.cur.Entry(ki.off)
	ki.left--
	ki.ok = true
	return nil
}

// finish takes the reader's end, once.
func (ki *keptIndex) finish() {
	if !ki.over {
		ki.over = true
		ki.err = <-ki.done
	}
}

// upTo hands out (to put) every kept key below k, and passes over k itself, which the runs'
// write of it replaces; with k nil, every kept key left.
func (ki *keptIndex) upTo(k []byte, put func(k, v []byte) error) error {
	for ki.ok {
		c := -1
		if k != nil {
			c = bytes.Compare(ki.k, k)
		}
		if c > 0 {
			return nil
		}
		if c < 0 {
			if err := put(ki.k, ki.v); err != nil {
				return err
			}
		}
		if err := ki.next(); err != nil {
			return err
		}
	}
	return nil
}

// close stops the reader, waits for it and lets its fills go: the reader holds the store's
// read lock while it scans.
func (ki *keptIndex) close() error {
	if ki.closed {
		return ki.err
	}
	ki.closed = true
	close(ki.stop)
	for b := range ki.fills {
		b.Release()
	}
	if ki.cur != nil {
		ki.cur.Release()
		ki.cur = nil
	}
	ki.ok = false
	ki.finish()
	return ki.err
}
