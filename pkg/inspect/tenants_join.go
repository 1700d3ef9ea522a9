package inspect

import (
	"context"
	"iter"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// famCursor pulls a folded family chunk by chunk, so that several families
// in the same order (the t rows, the counters, the due rows: all led by the
// ordinal) are merged side by side with one chunk of each in memory, instead
// of one family being held whole while the next is read.
type famCursor struct {
	next  func() ([]walkEntry, bool)
	stop  func()
	chunk []walkEntry
	i     int
	err   error
}

// pullFamily starts a cursor over f's rows between its sentinels, which are
// checked as walkFamily checks them. Close it with close.
//
// The walk is held (one iterator for the family, walkRange.Held), so between
// two chunks the cursor's scan keeps the store's read lock while its consumer
// goes on, and the consumer reads the store meanwhile (the other cursors, a
// tenant's first due row). Readers nest: a Go RWMutex blocks a new reader only
// while a writer waits, and the store's writers (Close, CreateFamily) never
// run during a view: the command closes the store after the view returns, and
// the view closes its cursors before it returns.
func pullFamily(ctx context.Context, db *rocks.DB, f format.Family) *famCursor {
	c := &famCursor{}
	seq := func(yield func([]walkEntry) bool) {
		c.err = holdFamily(db, f, func(chunk []walkEntry) (bool, error) {
			if err := ctx.Err(); err != nil {
				return true, err
			}
			return !yield(chunk), nil
		})
	}
	c.next, c.stop = iter.Pull(seq)
	return c
}

// peek returns the cursor's current entry, valid until the next peek after
// an advance; nil at the end of the family or on an error (see err).
func (c *famCursor) peek() *walkEntry {
	for c.i >= len(c.chunk) {
		if c.next == nil {
			return nil
		}
		chunk, ok := c.next()
		if !ok {
			c.next = nil
			c.chunk = nil
			return nil
		}
		c.chunk, c.i = chunk, 0
	}
	return &c.chunk[c.i]
}

func (c *famCursor) advance() { c.i++ }

func (c *famCursor) close() { c.stop() }

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
		r := tenantRow3(k.Ord, e.V)
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
			bad, viewPlural(bad, "key", "keys"), viewPlural(bad, "was", "were"))
	}
	if bad := j.badCounters; bad > 0 {
		j.notes.warn("%d counters %s did not decode and %s skipped (run counters verify)", bad,
			viewPlural(bad, "key", "keys"), viewPlural(bad, "was", "were"))
	}
	if j.orphans > 0 {
		j.notes.warn("%d %s belong to no tenant-by-ordinal row (run counters verify)", j.orphans,
			viewPlural(j.orphans, "counter", "counters"))
	}
}
