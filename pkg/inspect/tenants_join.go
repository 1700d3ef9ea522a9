package inspect

import (
	"context"

	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// famCursor pulls a folded family chunk by chunk, so that several families
// in the same order (the t rows, the counters, the due rows: all led by the
// ordinal) are merged side by side with a few chunks of each in memory,
// instead of one family being held whole while the next is read.
//
// Each cursor reads on its own goroutine, famCursorAhead chunks ahead of its
// consumer: at 10^6 tenants most of a listing is RocksDB stepping through
// three families, and those steps then run beside each other and beside the
// join and the JSON, on as many cores as the machine gives. The chunks are
// handed over in the walk's own buffers (walkRange.Keep), not copied.
type famCursor struct {
	full  chan []walkEntry // read, in order; closed at the end (then see err)
	quit  chan struct{}    // close stops the reader
	done  chan struct{}    // closed once the reader's scan has returned
	chunk []walkEntry
	i     int
	err   error // the walk's error, once peek has met the end
	// werr is set by the reader before it closes full; peek hands it to err,
	// so that the consumer never reads what the reader may still write.
	werr error
}

// famCursorAhead is how many chunks a cursor reads ahead: enough that the
// reader seldom waits for a consumer that is about as fast, few enough that
// memory stays under a MiB a family.
const famCursorAhead = 2

// famCursorKeep is how long the consumer holds a chunk, in chunks the reader
// has handed on since: the famCursorAhead waiting in full, and the one it
// is reading, may not be refilled.
const famCursorKeep = famCursorAhead + 1

// pullFamily starts a cursor over f's rows between its sentinels, which are
// checked as walkFamily checks them. Close it with close.
//
// The walk is held (one iterator for the family, walkRange.Held), so the
// reader keeps the store's read lock until its scan ends while the consumer
// reads the store too (the other cursors, a tenant's first due row). Readers
// nest: a Go RWMutex blocks a new reader only while a writer waits, and the
// store's writers (Close, CreateFamily) never run during a view: the command
// closes the store after the view returns, and the view closes its cursors,
// which waits for their scans to end, before it returns.
func pullFamily(ctx context.Context, db *rocks.DB, f format.Family) *famCursor {
	return pullWalk(ctx, func(fn func([]walkEntry) (bool, error)) error {
		return holdFamily(db, f, famCursorKeep, fn)
	})
}

// pullFirstOfEachTenant is pullFamily over the first row of each tenant of an ordinal-first
// family only: the rest of a tenant's rows are skipped by a seek (walkRange.FirstOfEachPrefix).
func pullFirstOfEachTenant(ctx context.Context, db *rocks.DB, f format.Family) *famCursor {
	return pullWalk(ctx, func(fn func([]walkEntry) (bool, error)) error {
		return holdFirstOfEachTenant(db, f, famCursorKeep, fn)
	})
}

// pullWalk starts a cursor over what walk hands its fn: a held walk whose
// chunks may be kept for famCursorKeep more (walkRange.Keep), as
// pullFamily's is.
func pullWalk(ctx context.Context, walk func(fn func([]walkEntry) (bool, error)) error) *famCursor {
	c := &famCursor{
		full: make(chan []walkEntry, famCursorAhead),
		quit: make(chan struct{}),
		done: make(chan struct{}),
	}
	go func() {
		defer close(c.done)
		defer close(c.full)
		c.werr = walk(func(chunk []walkEntry) (bool, error) {
			if err := ctx.Err(); err != nil {
				return true, err
			}
			select {
			case c.full <- chunk:
				return false, nil
			case <-c.quit:
				return true, nil
			}
		})
	}()
	return c
}

// peek returns the cursor's current entry, valid until the next peek after
// an advance; nil at the end of the family or on an error (see err). Taking
// the next chunk lets the reader refill the one before.
func (c *famCursor) peek() *walkEntry {
	for c.i >= len(c.chunk) {
		if c.full == nil {
			return nil
		}
		chunk, ok := <-c.full
		if !ok {
			c.full, c.chunk, c.err = nil, nil, c.werr
			return nil
		}
		c.chunk, c.i = chunk, 0
	}
	return &c.chunk[c.i]
}

func (c *famCursor) advance() { c.i++ }

// close stops the reader and waits for its scan to end.
func (c *famCursor) close() {
	close(c.quit)
	<-c.done
}

// tenantJoin reads the tenant-by-ordinal rows and the counters side by side,
// both in ordinal order, and hands each t row with its counters on: memory is
// a chunk of each family, whatever the number of tenants. Ordinal 0's
// counters, which come first, make the aggregate before the first row.
type tenantJoin struct {
	ctx   context.Context
	db    *rocks.DB
	notes *viewNotes

	agg     TenantCounters
	aggErrs []string
	slab    rowSlab

	badT, badCounters, orphans int64
}

// run calls begin once the aggregate is read, then fn with every t row in
// ordinal order, tombstones included (fn may keep the row: it is its own).
func (j *tenantJoin) run(begin func() error, fn func(r TenantRow) error) error {
	ts := pullFamily(j.ctx, j.db, format.FamTenantByOrd)
	defer ts.close()
	cs := pullFamily(j.ctx, j.db, format.FamCounters)
	defer cs.close()

	// counters adds the counters of ordinals up to ord (all, for the last
	// call) to row, the aggregate, or the orphans.
	counters := func(ord uint32, last bool, row *TenantRow) {
		for e := cs.peek(); e != nil; e = cs.peek() {
			k, err := format.DecodeCounterKey(e.K)
			if err != nil {
				j.badCounters++
				cs.advance()
				continue
			}
			if !last && k.Ord > ord {
				return
			}
			switch {
			case k.Ord == format.AggregateOrd:
				tenantAddCounter(&j.agg, &j.aggErrs, k, *e)
			case row != nil && k.Ord == ord:
				tenantAddCounter(&row.TenantCounters, &row.Errors, k, *e)
			default:
				j.orphans++
			}
			cs.advance()
		}
	}
	counters(format.AggregateOrd, false, nil)
	if cs.err != nil {
		return cs.err
	}
	if err := begin(); err != nil {
		return err
	}
	for e := ts.peek(); e != nil; e = ts.peek() {
		k, err := format.DecodeTenantByOrdKey(e.K)
		if err != nil || e.Err != nil {
			j.badT++
			ts.advance()
			continue
		}
		r := tenantRow3In(j.slab.ord(), k.Ord, e.V)
		ts.advance()
		counters(k.Ord, false, &r)
		if cs.err != nil {
			return cs.err
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	if ts.err != nil {
		return ts.err
	}
	counters(0, true, nil)
	if cs.err != nil {
		return cs.err
	}
	j.note()
	return nil
}

// note warns of what the join skipped, as the views do.
func (j *tenantJoin) note() {
	if bad := j.badT; bad > 0 {
		j.notes.warn("%d %s in the tenant-by-ordinal family did not decode and %s skipped (run counters verify)",
			bad, words.Plural(bad, "key", "keys"), words.Plural(bad, "was", "were"))
	}
	if bad := j.badCounters; bad > 0 {
		j.notes.warn("%d counters %s did not decode and %s skipped (run counters verify)", bad,
			words.Plural(bad, "key", "keys"), words.Plural(bad, "was", "were"))
	}
	if j.orphans > 0 {
		j.notes.warn("%d %s belong to no tenant-by-ordinal row (run counters verify)", j.orphans,
			words.Plural(j.orphans, "counter", "counters"))
	}
}
