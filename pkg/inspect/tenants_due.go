package inspect

import (
	"context"
	"time"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/tenantjoin"
)

// oldestDueFinder is one of tenantjoin's ways to a tenant's oldest due row.
type oldestDueFinder func(ctx context.Context, db *rocks.DB, wants []tenantjoin.Want, found func(i int, at uint64)) error

// oldestDue3Auto sets OldestDueAt on rows (any order, erased ones left
// alone) the cheaper way, given the node's due rows (tenantjoin.OldestDue).
func oldestDue3Auto(ctx context.Context, db *rocks.DB, rows []TenantRow, now time.Time, dueRows int64) error {
	return oldestDueWith(ctx, db, rows, now, func(ctx context.Context, db *rocks.DB, wants []tenantjoin.Want, found func(int, uint64)) error {
		return tenantjoin.OldestDue(ctx, db, wants, dueRows, found)
	})
}

// oldestDueWith sets OldestDueAt on rows by find.
func oldestDueWith(ctx context.Context, db *rocks.DB, rows []TenantRow, now time.Time, find oldestDueFinder) error {
	wants := make([]tenantjoin.Want, 0, len(rows))
	at := make([]*TenantRow, 0, len(rows))
	for i := range rows {
		if !rows[i].Erased {
			wants = append(wants, tenantjoin.Want{Ord: rows[i].ord, MayBeDue: rows[i].mayBeDue()})
			at = append(at, &rows[i])
		}
	}
	return find(ctx, db, wants, func(i int, due uint64) { at[i].setOldestDue(due, now) })
}

// mayBeDue says whether the tenant's counters promise due rows, or could not be read and so
// promise nothing: then its due rows are looked for all the same.
func (r *TenantRow) mayBeDue() bool {
	return r.Pending+r.Scheduled > 0 || r.Unreadable(format.FieldPending) || r.Unreadable(format.FieldScheduled)
}
