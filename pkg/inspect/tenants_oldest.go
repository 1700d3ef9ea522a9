package inspect

import (
	"context"
	"time"

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
// tenantMaxStale stale markers the tenant's due range is read from there on,
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
	tenantMaxStale  = 32
	tenantMarkerCap = 1 << 20
	// tenantRowsPerSeek is what one iterator costs in walked rows, measured
	// (BenchmarkListTenants); tenantWalkFloor is a walk always worth taking.
	tenantRowsPerSeek = 64
	tenantWalkFloor   = 1 << 18
)

// oldestDue3Auto picks the cheaper way for rows, given the node's due rows.
func oldestDue3Auto(ctx context.Context, db *rocks.DB, rows []TenantRow, now time.Time, dueRows int64) error {
	need := int64(0)
	for i := range rows {
		if !rows[i].Erased && rows[i].mayBeDue() {
			need++
		}
	}
	if need == 0 {
		return nil
	}
	if dueRows >= 0 && dueRows <= need*tenantRowsPerSeek+tenantWalkFloor {
		return oldestDueByWalk(ctx, db, rows, now)
	}
	return oldestDue3(ctx, db, rows, now)
}

// oldestDueByWalk reads the due family once, the first row of each tenant only (the rest
// of a tenant's rows are skipped by a seek: walk.Range.FirstOfEachPrefix), and takes each
// shown tenant's.
func oldestDueByWalk(ctx context.Context, db *rocks.DB, rows []TenantRow, now time.Time) error {
	byOrd := make(map[uint32]*TenantRow, len(rows))
	for i := range rows {
		if !rows[i].Erased {
			byOrd[rows[i].ord] = &rows[i]
		}
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
			if r := byOrd[k.Ord]; r != nil {
				r.setOldestDue(k.At, now)
			}
		}
		return false, nil
	})
}

// oldestDue3 sets OldestDueAt on rows (any order) from the active index.
func oldestDue3(ctx context.Context, db *rocks.DB, rows []TenantRow, now time.Time) error {
	if len(rows) == 0 {
		return nil
	}
	byOrd := make(map[uint32]*TenantRow, len(rows))
	need := 0
	for i := range rows {
		r := &rows[i]
		if r.Erased {
			continue
		}
		byOrd[r.ord] = r
		if r.mayBeDue() {
			need++
		}
	}
	if len(byOrd) == 0 {
		return nil
	}
	done := make(map[uint32]bool)
	stale := make(map[uint32]int)
	resolve := func(r *TenantRow, at uint64, found bool) {
		done[r.ord] = true
		if found {
			r.setOldestDue(at, now)
		}
		if r.mayBeDue() {
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
			r := byOrd[k.Ord]
			if r == nil || done[k.Ord] {
				continue
			}
			from := k.Bucket * format.BucketMillis
			at, found, err := tenantFirstDue(db, k.Ord, from, from+format.BucketMillis)
			if err != nil {
				return true, err
			}
			if found {
				resolve(r, at, true)
				continue
			}
			if stale[k.Ord]++; stale[k.Ord] >= tenantMaxStale {
				at, found, err := tenantFirstDue(db, k.Ord, from+format.BucketMillis, format.MaxAtSeq+1)
				if err != nil {
					return true, err
				}
				resolve(r, at, found)
			}
		}
		walked += len(chunk)
		return need <= 0 || walked >= tenantMarkerCap, nil
	})
	if err != nil {
		return err
	}
	// Tenants whose counters promise due rows the walk did not reach.
	for _, r := range byOrd {
		if done[r.ord] || !r.mayBeDue() {
			continue
		}
		at, found, err := tenantFirstDue(db, r.ord, 0, format.MaxAtSeq+1)
		if err != nil {
			return err
		}
		resolve(r, at, found)
	}
	return nil
}

// tenantFirstDue is the `at` of ord's first due row with from <= at < to:
// one seek. The window is what keeps it cheap: the scan copies out what lies
// in the window, and a marker's window is one second.
func tenantFirstDue(db *rocks.DB, ord uint32, from, to uint64) (at uint64, found bool, err error) {
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

// mayBeDue says whether the tenant's counters promise due rows, or could not be read and so
// promise nothing: then its due rows are looked for all the same.
func (r *TenantRow) mayBeDue() bool {
	return r.Pending+r.Scheduled > 0 || r.Unreadable(format.FieldPending) || r.Unreadable(format.FieldScheduled)
}
