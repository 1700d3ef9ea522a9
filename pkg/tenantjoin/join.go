package tenantjoin

import (
	"context"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/walk"
)

// Rows is the caller's side of the join: it builds rows of its own from what
// the join reads, in this order: Aggregate for each of ordinal 0's counters,
// Begin once, then for every t row Tenant, Counter for each of its counters,
// Due when its oldest due row is asked for and found, and Done. An entry is
// valid only during the call.
type Rows interface {
	// Aggregate adds one counter of ordinal 0 (any shard).
	Aggregate(k format.CounterKey, e walk.Entry)
	// Begin is called once the aggregate is read, before the first tenant.
	Begin() error
	// Tenant starts the row of the t row of ord; name is empty for a
	// tombstone, and valid only during the call.
	Tenant(ord uint32, name []byte)
	// Counter adds one of the tenant's counters.
	Counter(k format.CounterKey, e walk.Entry)
	// MayBeDue says whether the tenant's counters promise due rows (or could
	// not be read, and so promise nothing): DueBySeek seeks only for those.
	MayBeDue() bool
	// Due is the `at` of the tenant's oldest due row.
	Due(at uint64)
	// Done ends the tenant's row: its counters are all read.
	Done() error
}

// Skipped is what the join passed over: keys of either family that did not
// decode, and counters of an ordinal no t row names.
type Skipped struct {
	BadT, BadCounters, Orphans int64
}

// Due is how Run finds the oldest due row of each tenant that is not erased.
type Due int

const (
	// NoDue looks for none.
	NoDue Due = iota
	// DueByWalk walks the due family beside the join (dueCursor): every
	// tenant needs its oldest due row then, and a seek on the walk's one
	// iterator costs less than the lookup a tenant would, however many due
	// rows a tenant has.
	DueByWalk
	// DueBySeek seeks each tenant's (FirstDue: a new iterator each), for the
	// tests of that way.
	DueBySeek
)

// Run reads the tenant-by-ordinal rows and the counters side by side, both in
// ordinal order, and hands each t row, tombstones included, with its counters
// (and its oldest due row, as due says) to rows: memory is a chunk of each
// family, whatever the number of tenants. Ordinal 0's counters, which come
// first, make the aggregate before the first tenant. held is what Count read
// of the t rows (nil: none), which the join reads from it rather than from
// the store again.
func Run(ctx context.Context, db *rocks.DB, held *Held, due Due, rows Rows) (Skipped, error) {
	var sk Skipped
	var ts *walk.Cursor
	if held != nil {
		ts = pullHeld(ctx, db, held)
	} else {
		ts = walk.PullFamily(ctx, db, format.FamTenantByOrd)
	}
	defer ts.Close()
	cs := walk.PullFamily(ctx, db, format.FamCounters)
	defer cs.Close()

	// counters hands on the counters of ordinals up to ord (all, for the
	// last call) to the tenant (when tenant), the aggregate, or the orphans.
	counters := func(ord uint32, last, tenant bool) {
		for e := cs.Peek(); e != nil; e = cs.Peek() {
			k, err := format.DecodeCounterKey(e.K)
			if err != nil {
				sk.BadCounters++
				cs.Advance()
				continue
			}
			if !last && k.Ord > ord {
				return
			}
			switch {
			case k.Ord == format.AggregateOrd:
				rows.Aggregate(k, *e)
			case tenant && k.Ord == ord:
				rows.Counter(k, *e)
			default:
				sk.Orphans++
			}
			cs.Advance()
		}
	}
	counters(format.AggregateOrd, false, false)
	if cs.Err() != nil {
		return sk, cs.Err()
	}
	var dc *dueCursor
	if due == DueByWalk {
		dc = newDueCursor(ctx, db)
		defer dc.close()
	}
	if err := rows.Begin(); err != nil {
		return sk, err
	}
	for e := ts.Peek(); e != nil; e = ts.Peek() {
		k, err := format.DecodeTenantByOrdKey(e.K)
		if err != nil || e.Err != nil {
			sk.BadT++
			ts.Advance()
			continue
		}
		live := len(e.V) > 0
		rows.Tenant(k.Ord, e.V)
		ts.Advance()
		counters(k.Ord, false, true)
		if cs.Err() != nil {
			return sk, cs.Err()
		}
		if live && due != NoDue {
			var at uint64
			var found bool
			var err error
			if dc != nil {
				at, found, err = dc.first(k.Ord)
			} else if rows.MayBeDue() {
				at, found, err = FirstDue(db, k.Ord, 0, format.MaxAtSeq+1)
			}
			if err != nil {
				return sk, err
			}
			if found {
				rows.Due(at)
			}
		}
		if err := rows.Done(); err != nil {
			return sk, err
		}
	}
	if ts.Err() != nil {
		return sk, ts.Err()
	}
	counters(0, true, false)
	if cs.Err() != nil || dc == nil {
		return sk, cs.Err()
	}
	// Past the last tenant's row: the rows left belong to no tenant.
	return sk, dc.toEnd()
}
