package inspect

import (
	"context"
	"time"

	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/tenantjoin"
	"github.com/ankusa/ankusa-store/pkg/walk"
)

// tenantJoin builds tenants ls's rows from the join of the tenant-by-ordinal
// rows and the counters (tenantjoin.Run) and hands each on: memory is a chunk
// of each family, whatever the number of tenants.
type tenantJoin struct {
	ctx   context.Context
	db    *rocks.DB
	notes *viewNotes

	// held is the t rows tenantjoin.Count read, if it ran: the join reads
	// them from it rather than from the store again.
	held *tenantjoin.Held
	// due is how each row's oldest due row is found, its age at now.
	due tenantjoin.Due
	now time.Time

	agg     TenantCounters
	aggErrs []string
	slab    rowSlab

	row   TenantRow
	begin func() error
	fn    func(r TenantRow) error
}

// run calls begin once the aggregate is read, then fn with every t row in
// ordinal order, tombstones included (fn may keep the row: it is its own).
func (j *tenantJoin) run(begin func() error, fn func(r TenantRow) error) error {
	j.begin, j.fn = begin, fn
	sk, err := tenantjoin.Run(j.ctx, j.db, j.held, j.due, j)
	if err != nil {
		return err
	}
	// What the join skipped, warned of as the views do.
	if bad := sk.BadT; bad > 0 {
		j.notes.warn("%d %s in the tenant-by-ordinal family did not decode and %s skipped (run counters verify)",
			bad, words.Plural(bad, "key", "keys"), words.Plural(bad, "was", "were"))
	}
	if bad := sk.BadCounters; bad > 0 {
		j.notes.warn("%d counters %s did not decode and %s skipped (run counters verify)", bad,
			words.Plural(bad, "key", "keys"), words.Plural(bad, "was", "were"))
	}
	if sk.Orphans > 0 {
		j.notes.warn("%d %s belong to no tenant-by-ordinal row (run counters verify)", sk.Orphans,
			words.Plural(sk.Orphans, "counter", "counters"))
	}
	return nil
}

// The join's rows (tenantjoin.Rows).

func (j *tenantJoin) Aggregate(k format.CounterKey, e walk.Entry) {
	tenantAddCounter(&j.agg, &j.aggErrs, k, e)
}
func (j *tenantJoin) Begin() error                   { return j.begin() }
func (j *tenantJoin) Tenant(ord uint32, name []byte) { j.row = tenantRow3In(j.slab.ord(), ord, name) }
func (j *tenantJoin) Counter(k format.CounterKey, e walk.Entry) {
	tenantAddCounter(&j.row.TenantCounters, &j.row.Errors, k, e)
}
func (j *tenantJoin) MayBeDue() bool { return j.row.mayBeDue() }
func (j *tenantJoin) Due(at uint64)  { j.row.setOldestDueIn(at, j.now, j.slab.at(), j.slab.age()) }
func (j *tenantJoin) Done() error    { return j.fn(j.row) }
