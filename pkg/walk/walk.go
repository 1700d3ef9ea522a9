package walk

import (
	"bytes"
	"errors"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// The views read in chunks: a scan copies a few hundred to a few thousand
// entries out, then the view does its point reads (names, delivery rows)
// outside the scan. A scan callback must not read the store itself (it holds
// the store's read lock), and batching the point reads into one multi-get
// per chunk is what keeps a page cheap.

// Entry is one key and value copied out of a scan. Err is set instead of V
// for a key whose read failed on its own (a counter whose merge failed); the
// walk goes on past it, so one bad key does not hide the rest. K and V live in
// a buffer the next chunk reuses: a callback that keeps one must copy it.
type Entry struct {
	K, V []byte
	Err  error
}

const (
	FirstChunk = 256
	MaxChunk   = 4096
)

// DefaultChunkBytes ends a chunk early once its keys and values reach it
// (Range.ChunkBytes left 0): 4,096 hooks of 100 KB were a chunk of 400 MB.
const DefaultChunkBytes = 4 << 20

// Range describes one walk over [Lo, Hi) of a column family; nil is open.
type Range struct {
	CF      string
	Lo, Hi  []byte
	Reverse bool
	// First is the size of the first chunk (then doubling up to MaxChunk):
	// a page of 50 should not copy 4096 rows out before it can stop.
	First int
	// Held keeps one iterator for the whole walk and hands fn each chunk from
	// inside the scan, for a walk that reads a family to its end: a new scan
	// per chunk seeks again and copies up to a fill of entries past the chunk
	// that it throws away, which doubled the cost of reading a whole family
	// (tenants ls, BenchmarkStreamTenants). fn then runs under the store's
	// read lock, so it must not read the store, unless it is the consumer of
	// a pulled walk that knows no writer can wait (Cursor).
	Held bool
	// FirstOfEachPrefix, forward, walks only the first key of each run sharing that many
	// leading bytes (rocks.ReadOpts.FirstOfEachPrefix); a walk resumed after a chunk or a
	// failed key may hand on a second key of a run, which the reader skips.
	FirstOfEachPrefix int
	// ChunkBytes ends a chunk early once its keys and values reach it (0:
	// DefaultChunkBytes); a test makes it small, to end every chunk after its first
	// entry.
	ChunkBytes int
}

// Chunks hands fn successive chunks of the range, in scan order. fn
// returns stop to end the walk early. ended reports that the range was
// exhausted (as opposed to stopped by fn).
func Chunks(db *rocks.DB, w Range, fn func(chunk []Entry) (stop bool, err error)) (ended bool, err error) {
	lo, hi := w.Lo, w.Hi
	size := w.First
	if size <= 0 {
		size = FirstChunk
	}
	maxBytes := w.ChunkBytes
	if maxBytes <= 0 {
		maxBytes = DefaultChunkBytes
	}
	var chunk []Entry
	var arena []byte
	chunkBytes := 0 // in chunk, across the arenas it took
	nextBuf := func() { chunk, arena, chunkBytes = chunk[:0], arena[:0], 0 }
	// fnErr is fn's own error from inside a held scan, kept apart from the
	// scan's errors (a *rocks.KeyError of fn's must not be taken for a key
	// to resume past).
	var fnErr error
	stopped := false
	for first := true; ; first = false {
		if !first {
			nextBuf()
		}
		full := false
		collect := func(k, v []byte) error {
			// One buffer per chunk, not two allocations per entry: a walk of
			// a million keys is mostly this copy.
			if cap(arena)-len(arena) < len(k)+len(v) {
				arena = make([]byte, 0, max(2*cap(arena), 64<<10, len(k)+len(v)))
			}
			n := len(arena)
			arena = append(append(arena, k...), v...)
			kv := arena[n:len(arena):len(arena)]
			chunk = append(chunk, Entry{K: kv[:len(k):len(k)], V: kv[len(k):]})
			chunkBytes += len(kv)
			if len(chunk) >= size || chunkBytes >= maxBytes {
				if !w.Held {
					full = true
					return rocks.Stop
				}
				stop, err := fn(chunk)
				if err != nil || stop {
					fnErr, stopped = err, true
					return rocks.Stop
				}
				nextBuf()
				if size < MaxChunk {
					size *= 2
				}
			}
			return nil
		}
		var serr error
		if w.Reverse {
			serr = db.ScanReverse(w.CF, lo, hi, rocks.ReadOpts{}, collect)
		} else {
			serr = db.Scan(w.CF, lo, hi, rocks.ReadOpts{FirstOfEachPrefix: w.FirstOfEachPrefix}, collect)
		}
		if stopped {
			return false, fnErr
		}
		// A key whose own read failed (a merge) is shown in place and the walk
		// resumes past it; an iterator that failed after a key cannot be
		// resumed safely, so that is an error.
		var resumeAt []byte
		if serr != nil {
			var ke *rocks.KeyError
			if !errors.As(serr, &ke) || ke.After || ke.Key == nil {
				return false, serr
			}
			chunk = append(chunk, Entry{K: bytes.Clone(ke.Key), Err: serr})
			resumeAt = ke.Key
		}
		if len(chunk) > 0 {
			stop, err := fn(chunk)
			if err != nil || stop {
				return false, err
			}
		}
		if !full && resumeAt == nil {
			return true, nil
		}
		last := chunk[len(chunk)-1].K // copied: the arena is reused
		if w.Reverse {
			hi = bytes.Clone(last)
		} else {
			lo = format.Successor(last)
		}
		if size < MaxChunk {
			size *= 2
		}
	}
}

// Family walks the rows of a folded family between its sentinels, which
// are checked as a fold checks them: the binding reports corruption as a clean
// end of iteration, so a walk that runs out before the far sentinel was cut
// short and fails naming the family (rocks.CutShortError, ErrCorrupt).
//
// Forward, from is an inclusive start key (nil: the lo sentinel, which must be
// there); in reverse it is an exclusive upper bound (nil: from the hi
// sentinel, which must be there). Sentinels are not handed to fn. fn may stop
// the walk; stopping proves nothing about the rest of the family and needs no
// proof.
func Family(db *rocks.DB, f format.Family, from []byte, reverse bool, first int,
	fn func(chunk []Entry) (stop bool, err error)) error {
	return FamilyWith(db, f, from, Range{Reverse: reverse, First: first}, fn)
}

// HoldFamily walks all of f forward with one iterator (Range.Held), for
// a reader of the whole family whose fn does not read the store.
func HoldFamily(db *rocks.DB, f format.Family, fn func(chunk []Entry) (stop bool, err error)) error {
	return FamilyWith(db, f, nil, Range{First: MaxChunk, Held: true}, fn)
}

// HoldFirstOfEachTenant is HoldFamily over the first row of each tenant of an ordinal-first
// family only: the rest of a tenant's rows are skipped by a seek (Range.FirstOfEachPrefix).
func HoldFirstOfEachTenant(db *rocks.DB, f format.Family, fn func(chunk []Entry) (stop bool, err error)) error {
	w := Range{First: MaxChunk, Held: true, FirstOfEachPrefix: f.TenantPrefixLen()}
	return FamilyWith(db, f, nil, w, fn)
}

// FamilyWith is Family with w's Reverse, First, Held, FirstOfEachPrefix and ChunkBytes
// (its CF, Lo and Hi are f's).
func FamilyWith(db *rocks.DB, f format.Family, from []byte, w Range,
	fn func(chunk []Entry) (stop bool, err error)) error {
	reverse := w.Reverse
	w.CF, w.Lo, w.Hi = f.CF, f.Lo, format.Successor(f.Hi)
	start, end := f.Lo, f.Hi
	if reverse {
		start, end = f.Hi, f.Lo
		if from != nil {
			w.Hi = from
		}
	} else if from != nil {
		w.Lo = from
	}
	checkStart := from == nil
	reachedEnd := false
	var lastKey []byte
	ended, err := Chunks(db, w, func(chunk []Entry) (bool, error) {
		if checkStart {
			checkStart = false
			if !bytes.Equal(chunk[0].K, start) {
				return true, &rocks.CutShortError{Family: f.Name, CF: f.CF, Missing: sentinelName(reverse, true)}
			}
			chunk = chunk[1:]
		}
		// The rows are the chunk up to the end sentinel, not a copy.
		rows := chunk
		for i := range chunk {
			if bytes.Equal(chunk[i].K, end) {
				reachedEnd = true
				rows = chunk[:i]
				break
			}
		}
		if len(chunk) > 0 {
			lastKey = bytes.Clone(chunk[len(chunk)-1].K)
		}
		if len(rows) > 0 {
			if stop, err := fn(rows); err != nil || stop {
				return true, err
			}
		}
		return reachedEnd, nil
	})
	if err != nil {
		return err
	}
	if checkStart {
		// Not even the start sentinel: the range was empty.
		return &rocks.CutShortError{Family: f.Name, CF: f.CF, Missing: sentinelName(reverse, true)}
	}
	if ended && !reachedEnd {
		return &rocks.CutShortError{Family: f.Name, CF: f.CF, Missing: sentinelName(reverse, false), LastKey: lastKey}
	}
	return nil
}

// sentinelName names the sentinel a walk starts (start) or ends at.
func sentinelName(reverse, start bool) string {
	if reverse == start {
		return format.SentinelHi
	}
	return format.SentinelLo
}
