package inspect

import (
	"bytes"
	"context"
	"errors"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// famCursor pulls a range chunk by chunk, so that several families in the
// same order (the t rows, the counters, the due rows: all led by the
// ordinal; a column of two stores in diff) are merged side by side with a
// few chunks of each in memory, instead of one family being held whole while
// the next is read.
//
// Each cursor reads on its own goroutine, famCursorAhead chunks ahead of its
// consumer: at 10^6 tenants most of a listing is RocksDB stepping through
// three families, and those steps then run beside each other and beside the
// join and the JSON, on as many cores as the machine gives. A chunk is a fill
// of the batched iterator in the buffer RocksDB's entries were copied into
// (rocks.Fill): the reader copies nothing more, and the consumer decodes an
// entry only as it reaches it.
type famCursor struct {
	full chan pulled // read, in order; closed at the end (then see err)
	quit chan struct{}
	done chan struct{} // closed once the reader's scan has returned
	cur  pulled        // the chunk being read
	e    walkEntry     // the current entry, once decoded
	have bool          // e is cur's next entry
	next int           // offset of the entry after e in cur.fill
	err  error         // the reader's error, once peek has met the end
	// werr is set by the reader before it closes full; peek hands it to err,
	// so that the consumer never reads what the reader may still write.
	werr error
}

// pulled is a chunk: entries of a fill, or one key whose own read failed.
type pulled struct {
	fill *rocks.Fill // nil for a failed key
	off  int         // offset of the next entry
	n    int         // entries left
	bad  walkEntry   // the failed key (Err set), when fill is nil
}

// famCursorAhead is how many chunks a cursor reads ahead: enough that the
// reader seldom waits for a consumer that is about as fast, few enough that
// memory stays near a MiB a cursor (a fill is 256 KiB, or one larger entry).
const famCursorAhead = 2

// pullRange is what a cursor reads: [lo, hi) of cf, every key, or only the
// first of each run sharing firstOfEachPrefix leading bytes
// (rocks.ReadOpts.FirstOfEachPrefix); with fam, the rows between its
// sentinels, which are checked as walkFamily checks them and not handed on.
type pullRange struct {
	cf                string
	lo, hi            []byte
	firstOfEachPrefix int
	fam               *format.Family
}

// pullFamily starts a cursor over f's rows between its sentinels. Close it
// with close.
//
// The reader keeps the store's read lock until its scan ends while the
// consumer reads the store too (the other cursors, a tenant's first due
// row). Readers nest: a Go RWMutex blocks a new reader only while a writer
// waits, and the store's writers (Close, CreateFamily) never run during a
// view: the command closes the store after the view returns, and the view
// closes its cursors, which waits for their scans to end, before it returns.
func pullFamily(ctx context.Context, db *rocks.DB, f format.Family) *famCursor {
	return pull(ctx, db, pullRange{cf: f.CF, lo: f.Lo, hi: format.Successor(f.Hi), fam: &f})
}

// pullFirstOfEachTenant is pullFamily over the first row of each tenant of an
// ordinal-first family only: the rest of a tenant's rows are skipped by a
// seek. A read resumed past a failed key may hand on a second row of a
// tenant, which the consumer skips.
func pullFirstOfEachTenant(ctx context.Context, db *rocks.DB, f format.Family) *famCursor {
	return pull(ctx, db, pullRange{cf: f.CF, lo: f.Lo, hi: format.Successor(f.Hi), firstOfEachPrefix: f.TenantPrefixLen(), fam: &f})
}

// pullColumn starts a cursor over every key of a column family, sentinels
// and strays included (diff: a missing sentinel is a difference like any
// other key).
func pullColumn(ctx context.Context, db *rocks.DB, cf string) *famCursor {
	return pull(ctx, db, pullRange{cf: cf})
}

func pull(ctx context.Context, db *rocks.DB, r pullRange) *famCursor {
	return pullWith(func(send func(pulled) bool) error { return readPulled(ctx, db, r, send) })
}

// pullWith starts a cursor whose reader is read: it hands each chunk to send
// until send reports that the consumer has gone (then it returns nil).
func pullWith(read func(send func(pulled) bool) error) *famCursor {
	c := &famCursor{
		full: make(chan pulled, famCursorAhead),
		quit: make(chan struct{}),
		done: make(chan struct{}),
	}
	go func() {
		defer close(c.done)
		defer close(c.full)
		c.werr = read(func(p pulled) bool {
			select {
			case c.full <- p:
				return true
			case <-c.quit:
				if p.fill != nil {
					p.fill.Release()
				}
				return false
			}
		})
	}()
	return c
}

// readPulled reads r and hands send each chunk until send reports that the
// consumer has gone. A key whose own read failed (a counter whose merge
// failed) is handed on as a chunk of its own and the read resumes past it;
// an iterator that failed after a key cannot be resumed safely, so that is
// the error.
func readPulled(ctx context.Context, db *rocks.DB, r pullRange, send func(pulled) bool) error {
	var start, end []byte
	if r.fam != nil {
		start, end = r.fam.Lo, r.fam.Hi
	}
	checkStart, reachedEnd := start != nil, false
	var lastKey []byte
	gone := false
	for lo := r.lo; ; {
		err := db.ScanFills(r.cf, lo, r.hi, rocks.ReadOpts{FirstOfEachPrefix: r.firstOfEachPrefix}, func(f *rocks.Fill) error {
			if err := ctx.Err(); err != nil {
				f.Release()
				return err
			}
			p := pulled{fill: f, n: f.Len()}
			if checkStart {
				checkStart = false
				k, _, next := f.Entry(0)
				if !bytes.Equal(k, start) {
					f.Release()
					return &rocks.CutShortError{Family: r.fam.Name, CF: r.fam.CF, Missing: format.SentinelLo}
				}
				p.off, p.n = next, p.n-1
			}
			last, _ := f.Last()
			lastKey = append(lastKey[:0], last...)
			// The end sentinel is the range's last key: the last of a fill.
			if end != nil && p.n > 0 && bytes.Equal(last, end) {
				reachedEnd = true
				p.n--
			}
			if p.n == 0 {
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
			if !send(pulled{n: 1, bad: walkEntry{K: key, Err: err}}) {
				return nil
			}
			lastKey = append(lastKey[:0], key...)
			lo = format.Successor(key)
			continue
		}
		break
	}
	switch {
	case r.fam == nil:
	case checkStart:
		// Not even the start sentinel: the range was empty.
		return &rocks.CutShortError{Family: r.fam.Name, CF: r.fam.CF, Missing: format.SentinelLo}
	case !reachedEnd:
		return &rocks.CutShortError{Family: r.fam.Name, CF: r.fam.CF, Missing: format.SentinelHi, LastKey: lastKey}
	}
	return nil
}

// peek returns the cursor's current entry, valid until the next peek after
// an advance; nil at the end of the range or on an error (see err).
func (c *famCursor) peek() *walkEntry {
	if c.have {
		return &c.e
	}
	for c.cur.n == 0 {
		if c.cur.fill != nil {
			c.cur.fill.Release()
			c.cur.fill = nil
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
	if c.cur.fill == nil {
		c.e = c.cur.bad
	} else {
		c.e.K, c.e.V, c.next = c.cur.fill.Entry(c.cur.off)
		c.e.Err = nil
	}
	c.have = true
	return &c.e
}

// advance moves past the entry peek returned.
func (c *famCursor) advance() {
	if !c.have && c.peek() == nil {
		return
	}
	c.have = false
	c.cur.off = c.next
	c.cur.n--
}

// toEnd reads the cursor past every entry left and returns its error: a
// consumer that stops at its last wanted entry has not proved the range
// whole (a family's hi sentinel, a failed read), which only its end does.
func (c *famCursor) toEnd() error {
	for c.peek() != nil {
		c.advance()
	}
	return c.err
}

// close stops the reader and waits for its scan to end.
func (c *famCursor) close() {
	close(c.quit)
	<-c.done
}
