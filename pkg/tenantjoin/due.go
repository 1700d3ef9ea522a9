package tenantjoin

import (
	"context"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/walk"
)

// The oldest due row of a format 3 tenant is first_due(ord): the first key of
// its due range. It is found one of two ways, whichever reads less:
//
// For a few tenants (--top, --prefix), from the active index, as the design
// record's oldest_due_age gauge does: markers are in (bucket, ord) order, so
// the first marker of a tenant names the second of its oldest due row, and one
// look into that second of the tenant's due range verifies it. A marker with
// no due row in its second is stale (allowed: the dispatcher removes it on its
// next tick) and the walk goes on to the tenant's next marker; after
// MaxStale stale markers the tenant's due range is read from there on,
// once. The walk stops as soon as every shown tenant whose counters say it has
// due rows is resolved, and tenantMarkerCap bounds it; what is left is read
// straight from the due family.
//
// For many tenants, one look per tenant costs more than reading the due family
// once: every look is a new RocksDB iterator (tens of microseconds), a row of
// a walk is a tenth of a microsecond. When the node's due rows (its pending
// and scheduled counters) are fewer than tenantRowsPerSeek per tenant shown,
// one walk of the due family takes the first row of each ordinal instead.
// Both give the same exact answer, first_due(ord).

const (
	// MaxStale is the stale markers of a tenant skipped before its due range
	// is read from there on (the design record's rule; status reports the
	// node's oldest marker's second unverified after as many).
	MaxStale        = 32
	tenantMarkerCap = 1 << 20
	// tenantRowsPerSeek is what one iterator costs in walked rows, measured
	// (BenchmarkListTenants); tenantWalkFloor is a walk always worth taking.
	tenantRowsPerSeek = 64
	tenantWalkFloor   = 1 << 18
)

// Want is a tenant whose oldest due row is looked for: its ordinal, and
// whether its counters promise due rows (or could not be read, and so
// promise nothing: its due rows are looked for all the same).
type Want struct {
	Ord      uint32
	MayBeDue bool
}

// OldestDue finds the oldest due row of each of wants (erased tenants left
// out by the caller; each ordinal once) the cheaper way, given the node's due
// rows (-1: unknown), and calls found with each one's index in wants and the
// row's `at`.
func OldestDue(ctx context.Context, db *rocks.DB, wants []Want, dueRows int64, found func(i int, at uint64)) error {
	need := int64(0)
	for _, w := range wants {
		if w.MayBeDue {
			need++
		}
	}
	if need == 0 {
		return nil
	}
	if dueRows >= 0 && dueRows <= need*tenantRowsPerSeek+tenantWalkFloor {
		return OldestDueByWalk(ctx, db, wants, found)
	}
	return OldestDueByIndex(ctx, db, wants, found)
}

// OldestDueByWalk reads the due family once, the first row of each tenant
// only (the rest of a tenant's rows are skipped by a seek:
// walk.Range.FirstOfEachPrefix), and takes each wanted tenant's.
func OldestDueByWalk(ctx context.Context, db *rocks.DB, wants []Want, found func(i int, at uint64)) error {
	byOrd := make(map[uint32]int, len(wants))
	for i, w := range wants {
		byOrd[w.Ord] = i
	}
	last, seen := uint32(0), false
	return walk.HoldFirstOfEachTenant(db, format.FamDue, func(chunk []walk.Entry) (bool, error) {
		if err := ctx.Err(); err != nil {
			return true, err
		}
		for _, e := range chunk {
			k, err := format.DecodeDueKey(e.K)
			if err != nil || (seen && k.Ord == last) {
				continue
			}
			last, seen = k.Ord, true
			if i, ok := byOrd[k.Ord]; ok {
				found(i, k.At)
			}
		}
		return false, nil
	})
}

// OldestDueByIndex finds the oldest due row of wants (any order) from the
// active index.
func OldestDueByIndex(ctx context.Context, db *rocks.DB, wants []Want, found func(i int, at uint64)) error {
	if len(wants) == 0 {
		return nil
	}
	byOrd := make(map[uint32]int, len(wants))
	need := 0
	for i, w := range wants {
		byOrd[w.Ord] = i
		if w.MayBeDue {
			need++
		}
	}
	done := make(map[uint32]bool)
	stale := make(map[uint32]int)
	resolve := func(i int, at uint64, ok bool) {
		done[wants[i].Ord] = true
		if ok {
			found(i, at)
		}
		if wants[i].MayBeDue {
			need--
		}
	}
	walked := 0
	err := walk.Family(db, format.FamActive, nil, false, walk.FirstChunk, func(chunk []walk.Entry) (bool, error) {
		if err := ctx.Err(); err != nil {
			return true, err
		}
		for _, e := range chunk {
			k, err := format.DecodeActiveKey(e.K)
			if err != nil {
				continue // a stray marker: counters verify reports it
			}
			i, ok := byOrd[k.Ord]
			if !ok || done[k.Ord] {
				continue
			}
			from := k.Bucket * format.BucketMillis
			at, ok, err := FirstDue(db, k.Ord, from, from+format.BucketMillis)
			if err != nil {
				return true, err
			}
			if ok {
				resolve(i, at, true)
				continue
			}
			if stale[k.Ord]++; stale[k.Ord] >= MaxStale {
				at, ok, err := FirstDue(db, k.Ord, from+format.BucketMillis, format.MaxAtSeq+1)
				if err != nil {
					return true, err
				}
				resolve(i, at, ok)
			}
		}
		walked += len(chunk)
		return need <= 0 || walked >= tenantMarkerCap, nil
	})
	if err != nil {
		return err
	}
	// Tenants whose counters promise due rows the walk did not reach.
	for i, w := range wants {
		if done[w.Ord] || !w.MayBeDue {
			continue
		}
		at, ok, err := FirstDue(db, w.Ord, 0, format.MaxAtSeq+1)
		if err != nil {
			return err
		}
		resolve(i, at, ok)
	}
	return nil
}

// FirstDue is the `at` of ord's first due row with from <= at < to:
// one seek. The window is what keeps it cheap: the scan copies out what lies
// in the window, and a marker's window is one second.
func FirstDue(db *rocks.DB, ord uint32, from, to uint64) (at uint64, found bool, err error) {
	lo := format.DueKey{Ord: ord, At: from}.Encode()[:1+4+8]
	var hi []byte
	if to > format.MaxAtSeq {
		_, hi = format.FamDue.TenantSpan(ord)
	} else {
		hi = format.DueKey{Ord: ord, At: to}.Encode()[:1+4+8]
	}
	err = db.Scan(format.CFIndex, lo, hi, rocks.ReadOpts{}, func(k, _ []byte) error {
		if dk, derr := format.DecodeDueKey(k); derr == nil {
			at, found = dk.At, true
			return rocks.Stop
		}
		return nil
	})
	return at, found, err
}

// dueCursor walks the due family beside the join in ordinal order, a row a
// tenant (the first; a seek skips the rest).
type dueCursor struct{ c *walk.Cursor }

func newDueCursor(ctx context.Context, db *rocks.DB) *dueCursor {
	return &dueCursor{c: walk.PullFirstOfEachTenant(ctx, db, format.FamDue)}
}

func (d *dueCursor) close() { d.c.Close() }

// first moves past every row of ordinals below ord and returns the `at` of
// ord's first row, if it has one: its oldest. ords must ascend.
func (d *dueCursor) first(ord uint32) (at uint64, found bool, err error) {
	for e := d.c.Peek(); e != nil; e = d.c.Peek() {
		k, err := format.DecodeDueKey(e.K)
		switch {
		case err != nil || k.Ord < ord:
			d.c.Advance()
			continue
		case k.Ord == ord:
			return k.At, true, nil
		}
		return 0, false, nil
	}
	return 0, false, d.c.Err()
}

// toEnd reads the rows past the last tenant's (a missing sentinel fails as a
// fold does).
func (d *dueCursor) toEnd() error { return d.c.ToEnd() }
