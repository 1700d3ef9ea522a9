package inspect

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/tenantjoin"
	"github.com/ankusa/ankusa-store/pkg/walk"
)

// listTenants3 lists a format 3 store's tenants from the tenants and counters
// families, which are both in ordinal order, so one pass over each is joined
// without a map.
func listTenants3(ctx context.Context, db *rocks.DB, opt TenantsOptions) (*TenantList, error) {
	l := &TenantList{}
	var notes viewNotes
	var rows []TenantRow
	var aggErrs []string
	var err error
	if opt.Prefix != "" {
		rows, err = tenantsByPrefix(ctx, db, opt.Prefix, &notes)
		if err == nil {
			l.Aggregate, aggErrs, err = tenantCountersByGet(db, rows)
		}
	} else {
		rows, l.Aggregate, aggErrs, err = tenantsJoined(ctx, db, &notes)
	}
	if err != nil {
		return nil, err
	}
	l.AggregateErrors = aggErrs
	dueRows := l.Aggregate.Pending + l.Aggregate.Scheduled
	if len(aggErrs) > 0 {
		notes.warn("the node aggregate (ordinal 0) could not be read in full: %s", strings.Join(aggErrs, "; "))
		dueRows = -1 // unknown
	}
	kept := rows[:0]
	for _, r := range rows {
		if r.Erased && !opt.All {
			continue
		}
		kept = append(kept, r)
	}
	rows = kept

	// The oldest due row costs a look into the active index and the due
	// family per tenant shown, so it is found after --top, unless it is what
	// the rows are sorted by.
	if opt.Sort == SortByOldestDue {
		if err := oldestDue3Auto(ctx, db, rows, opt.Now, dueRows); err != nil {
			return nil, err
		}
		rows, l.Matched = tenantSelect(rows, opt)
	} else {
		rows, l.Matched = tenantSelect(rows, opt)
		if err := oldestDue3Auto(ctx, db, rows, opt.Now, dueRows); err != nil {
			return nil, err
		}
	}
	l.Tenants = rows
	l.Notes = notes
	return l, nil
}

// tenantsJoined reads every `t` row, tombstones included (their counters
// must not look like orphans while joining), with its counters, and the
// aggregate (ordinal 0, shards summed).
func tenantsJoined(ctx context.Context, db *rocks.DB, notes *viewNotes) ([]TenantRow, *TenantCounters, []string, error) {
	var rows []TenantRow
	// m:next_ord - 1 ordinals were handed out: size the rows once.
	if v, ok, err := db.Get(format.CFDefault, []byte(format.KeyNextOrd)); err == nil && ok {
		if next, err := format.DecodeU32(v); err == nil && next > 0 {
			rows = make([]TenantRow, 0, min(next-1, 1<<22))
		}
	}
	j := &tenantJoin{ctx: ctx, db: db, notes: notes}
	err := j.run(func() error { return nil }, func(r TenantRow) error {
		rows = append(rows, r)
		return nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return rows, &j.agg, j.aggErrs, nil
}

func tenantRow3(ord uint32, name []byte) TenantRow { return tenantRow3In(new(uint32), ord, name) }

// tenantRow3In is tenantRow3 with its ordinal field provided (rowSlab).
func tenantRow3In(o *uint32, ord uint32, name []byte) TenantRow {
	*o = ord
	return TenantRow{Ord: o, ord: ord, Tenant: string(name), Erased: len(name) == 0}
}

// tenantsByPrefix reads the rows of the tenants whose id starts with prefix
// (tenantjoin.ByPrefix), in ordinal order.
func tenantsByPrefix(ctx context.Context, db *rocks.DB, prefix string, notes *viewNotes) ([]TenantRow, error) {
	var rows []TenantRow
	bad, err := tenantjoin.ByPrefix(ctx, db, prefix, func(ord uint32, id string) {
		rows = append(rows, tenantRow3(ord, []byte(id)))
	})
	if err != nil {
		return nil, err
	}
	if bad > 0 {
		notes.warn("%d %s in the ordinal-by-tenant family did not decode and %s skipped (run counters verify)",
			bad, words.Plural(bad, "row", "rows"), words.Plural(bad, "was", "were"))
	}
	tenantSortByOrd(rows)
	return rows, nil
}

func tenantSortByOrd(rows []TenantRow) {
	slices.SortFunc(rows, func(a, b TenantRow) int {
		switch {
		case a.ord < b.ord:
			return -1
		case a.ord > b.ord:
			return 1
		}
		return strings.Compare(a.Tenant, b.Tenant)
	})
}

// tenantAddCounter adds one counters row to dst; a value that cannot be read
// becomes an error on the tenant instead of a wrong number.
func tenantAddCounter(dst *TenantCounters, errs *[]string, k format.CounterKey, e walk.Entry) {
	err := e.Err
	if err == nil {
		var v int64
		if v, err = format.DecodeCounterValue(e.V); err == nil {
			dst.add(k.Field, v)
			return
		}
		// A counter's value is an integer by the contract: one that is not is
		// damage, as a failed checksum is.
		err = fmt.Errorf("%w: %w", rocks.ErrCorrupt, err)
	}
	*errs = append(*errs, k.Field.String()+": "+err.Error())
	dst.markUnreadable(k.Field, err)
}

// tenantCountersByGet reads the six counters of each row, and of the
// aggregate with its shards, with batched multi-gets (tenantjoin.CountersByGet).
func tenantCountersByGet(db *rocks.DB, rows []TenantRow) (*TenantCounters, []string, error) {
	agg := &TenantCounters{}
	var aggErrs []string
	ords := make([]uint32, len(rows))
	for i := range rows {
		ords[i] = rows[i].ord
	}
	tenantjoin.CountersByGet(db, ords, func(i int, k format.CounterKey, e walk.Entry) {
		if i < 0 {
			tenantAddCounter(agg, &aggErrs, k, e)
		} else {
			tenantAddCounter(&rows[i].TenantCounters, &rows[i].Errors, k, e)
		}
	})
	return agg, aggErrs, nil
}
