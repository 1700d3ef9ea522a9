package walk

import (
	"bytes"
	"context"
	"errors"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// Cursor pulls a range chunk by chunk, so that several families in the
// same order (the t rows, the counters, the due rows: all led by the
// ordinal; a column of two stores in diff) are merged side by side with a
// few chunks of each in memory, instead of one family being held whole while
// the next is read.
//
// Each cursor reads on its own goroutine, cursorAhead chunks ahead of its
// consumer: at 10^6 tenants most of a listing is RocksDB stepping through
// three families, and those steps then run beside each other and beside the
// join and the JSON, on as many cores as the machine gives. A chunk is a fill
// of the batched iterator in the buffer RocksDB's entries were copied into
// (rocks.Fill): the reader copies nothing more, and the consumer decodes an
// entry only as it reaches it.
type Cursor struct {
	full chan Pulled // read, in order; closed at the end (then see err)
	quit chan struct{}
	done chan struct{} // closed once the reader's scan has returned
	cur  Pulled        // the chunk being read
	e    Entry         // the current entry, once decoded
	have bool          // e is cur's next entry
	next int           // offset of the entry after e in cur.Fill
	err  error         // the reader's error, once peek has met the end
	// werr is set by the reader before it closes full; peek hands it to err,
	// so that the consumer never reads what the reader may still write.
	werr error
}

// Pulled is a chunk: entries of a fill, or one key whose own read failed.
type Pulled struct {
	Fill *rocks.Fill // nil for a failed key
	Off  int         // offset of the next entry
	N    int         // entries left
	bad  Entry       // the failed key (Err set), when fill is nil
}

// cursorAhead is how many chunks a cursor reads ahead: enough that the
// reader seldom waits for a consumer that is about as fast, few enough that
// memory stays near a MiB a cursor (a fill is 256 KiB, or one larger entry).
const cursorAhead = 2

// PullRange is what a cursor reads: [lo, hi) of cf, every key, or only the
// first of each run sharing firstOfEachPrefix leading bytes
// (rocks.ReadOpts.FirstOfEachPrefix); with fam, the rows between its
// sentinels, which are checked as Family checks them and not handed on.
type PullRange struct {
	CF                string
	Lo, Hi            []byte
	FirstOfEachPrefix int
	Fam               *format.Family
}

// PullFamily starts a cursor over f's rows between its sentinels. Close it
// with close.
//
// The reader keeps the store's read lock until its scan ends while the
// consumer reads the store too (the other cursors, a tenant's first due
// row). Readers nest: a Go RWMutex blocks a new reader only while a writer
// waits, and the store's writers (Close, CreateFamily) never run during a
// view: the command closes the store after the view returns, and the view
// closes its cursors, which waits for their scans to end, before it returns.
func PullFamily(ctx context.Context, db *rocks.DB, f format.Family) *Cursor {
	return pull(ctx, db, PullRange{CF: f.CF, Lo: f.Lo, Hi: format.Successor(f.Hi), Fam: &f})
}

// PullFirstOfEachTenant is PullFamily over the first row of each tenant of an
// ordinal-first family only: the rest of a tenant's rows are skipped by a
// seek. A read resumed past a failed key may hand on a second row of a
// tenant, which the consumer skips.
func PullFirstOfEachTenant(ctx context.Context, db *rocks.DB, f format.Family) *Cursor {
	return pull(ctx, db, PullRange{CF: f.CF, Lo: f.Lo, Hi: format.Successor(f.Hi), FirstOfEachPrefix: f.TenantPrefixLen(), Fam: &f})
}

// PullColumn starts a cursor over every key of a column family, sentinels
// and strays included (diff: a missing sentinel is a difference like any
// other key).
func PullColumn(ctx context.Context, db *rocks.DB, cf string) *Cursor {
	return pull(ctx, db, PullRange{CF: cf})
}

func pull(ctx context.Context, db *rocks.DB, r PullRange) *Cursor {
	return PullWith(func(send func(Pulled) bool) error { return ReadPulled(ctx, db, r, send) })
}

// PullWith starts a cursor whose reader is read: it hands each chunk to send
// until send reports that the consumer has gone (then it returns nil).
func PullWith(read func(send func(Pulled) bool) error) *Cursor {
	c := &Cursor{
		full: make(chan Pulled, cursorAhead),
		quit: make(chan struct{}),
		done: make(chan struct{}),
	}
	go func() {
		defer close(c.done)
		defer close(c.full)
		c.werr = read(func(p Pulled) bool {
			select {
			case c.full <- p:
				return true
			case <-c.quit:
				if p.Fill != nil {
					p.Fill.Release()
				}
				return false
			}
		})
	}()
	return c
}

// ReadPulled reads r and hands send each chunk until send reports that the
// consumer has gone. A key whose own read failed (a counter whose merge
// failed) is handed on as a chunk of its own and the read resumes past it;
// an iterator that failed after a key cannot be resumed safely, so that is
// the error.
func ReadPulled(ctx context.Context, db *rocks.DB, r PullRange, send func(Pulled) bool) error {
	var start, end []byte
	if r.Fam != nil {
		start, end = r.Fam.Lo, r.Fam.Hi
	}
	checkStart, reachedEnd := start != nil, false
	var lastKey []byte
	gone := false
	for lo := r.Lo; ; {
		err := db.ScanFills(r.CF, lo, r.Hi, rocks.ReadOpts{FirstOfEachPrefix: r.FirstOfEachPrefix}, func(f *rocks.Fill) error {
			if err := ctx.Err(); err != nil {
				f.Release()
				return err
			}
			p := Pulled{Fill: f, N: f.Len()}
			if checkStart {
				checkStart = false
				k, _, next := f.Entry(0)
				if !bytes.Equal(k, start) {
					f.Release()
					return &rocks.CutShortError{Family: r.Fam.Name, CF: r.Fam.CF, Missing: format.SentinelLo}
				}
				p.Off, p.N = next, p.N-1
			}
			last, _ := f.Last()
			lastKey = append(lastKey[:0], last...)
			// The end sentinel is the range's last key: the last of a fill.
			if end != nil && p.N > 0 && bytes.Equal(last, end) {
				reachedEnd = true
				p.N--
			}
			if p.N == 0 {
				f.Release()
				return nil
			}
			if !send(p) {
				gone = true
				return rocks.Stop
			}
			return nil
		})
		if gone {
			return nil
		}
		var ke *rocks.KeyError
		switch {
		case err == nil:
		case !errors.As(err, &ke) || ke.After || ke.Key == nil:
			return err
		default:
			key := bytes.Clone(ke.Key)
			if !send(Pulled{N: 1, bad: Entry{K: key, Err: err}}) {
				return nil
			}
			lastKey = append(lastKey[:0], key...)
			lo = format.Successor(key)
			continue
		}
		break
	}
	switch {
	case r.Fam == nil:
	case checkStart:
		// Not even the start sentinel: the range was empty.
		return &rocks.CutShortError{Family: r.Fam.Name, CF: r.Fam.CF, Missing: format.SentinelLo}
	case !reachedEnd:
		return &rocks.CutShortError{Family: r.Fam.Name, CF: r.Fam.CF, Missing: format.SentinelHi, LastKey: lastKey}
	}
	return nil
}

// Peek returns the cursor's current entry, valid until the next peek after
// an advance; nil at the end of the range or on an error (see err).
func (c *Cursor) Peek() *Entry {
	if c.have {
		return &c.e
	}
	for c.cur.N == 0 {
		if c.cur.Fill != nil {
			c.cur.Fill.Release()
			c.cur.Fill = nil
		}
		if c.full == nil {
			return nil
		}
		p, ok := <-c.full
		if !ok {
			c.full, c.err = nil, c.werr
			return nil
		}
		c.cur = p
	}
	if c.cur.Fill == nil {
		c.e = c.cur.bad
	} else {
		c.e.K, c.e.V, c.next = c.cur.Fill.Entry(c.cur.Off)
		c.e.Err = nil
	}
	c.have = true
	return &c.e
}

// Advance moves past the entry peek returned.
func (c *Cursor) Advance() {
	if !c.have && c.Peek() == nil {
		return
	}
	c.have = false
	c.cur.Off = c.next
	c.cur.N--
}

// ToEnd reads the cursor past every entry left and returns its error: a
// consumer that stops at its last wanted entry has not proved the range
// whole (a family's hi sentinel, a failed read), which only its end does.
func (c *Cursor) ToEnd() error {
	for c.Peek() != nil {
		c.Advance()
	}
	return c.err
}

// Err is the reader's error, once Peek has met the end (nil before): a consumer that
// stops at a nil Peek tells the range's end from a failed read by it.
func (c *Cursor) Err() error { return c.err }

// Close stops the reader and waits for its scan to end.
func (c *Cursor) Close() {
	close(c.quit)
	<-c.done
}
