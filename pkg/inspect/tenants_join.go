package inspect

import (
	"context"

	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/walk"
)

// tenantJoin reads the tenant-by-ordinal rows and the counters side by side,
// both in ordinal order, and hands each t row with its counters on: memory is
// a chunk of each family, whatever the number of tenants. Ordinal 0's
// counters, which come first, make the aggregate before the first row.
type tenantJoin struct {
	ctx   context.Context
	db    *rocks.DB
	notes *viewNotes

	// held is the t rows tenantsCount read, if it ran: the join reads them
	// from it rather than from the store again.
	held *tenantsHeld

	agg     TenantCounters
	aggErrs []string
	slab    rowSlab

	badT, badCounters, orphans int64
}

// run calls begin once the aggregate is read, then fn with every t row in
// ordinal order, tombstones included (fn may keep the row: it is its own).
func (j *tenantJoin) run(begin func() error, fn func(r TenantRow) error) error {
	var ts *walk.Cursor
	if j.held != nil {
		ts = pullHeld(j.ctx, j.db, j.held)
	} else {
		ts = walk.PullFamily(j.ctx, j.db, format.FamTenantByOrd)
	}
	defer ts.Close()
	cs := walk.PullFamily(j.ctx, j.db, format.FamCounters)
	defer cs.Close()

	// counters adds the counters of ordinals up to ord (all, for the last
	// call) to row, the aggregate, or the orphans.
	counters := func(ord uint32, last bool, row *TenantRow) {
		for e := cs.Peek(); e != nil; e = cs.Peek() {
			k, err := format.DecodeCounterKey(e.K)
			if err != nil {
				j.badCounters++
				cs.Advance()
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
			cs.Advance()
		}
	}
	counters(format.AggregateOrd, false, nil)
	if cs.Err() != nil {
		return cs.Err()
	}
	if err := begin(); err != nil {
		return err
	}
	for e := ts.Peek(); e != nil; e = ts.Peek() {
		k, err := format.DecodeTenantByOrdKey(e.K)
		if err != nil || e.Err != nil {
			j.badT++
			ts.Advance()
			continue
		}
		r := tenantRow3In(j.slab.ord(), k.Ord, e.V)
		ts.Advance()
		counters(k.Ord, false, &r)
		if cs.Err() != nil {
			return cs.Err()
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	if ts.Err() != nil {
		return ts.Err()
	}
	counters(0, true, nil)
	if cs.Err() != nil {
		return cs.Err()
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
