package inspect

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/tenantjoin"
)

// A node may hold 10^6 tenants (the design record's tenants.max default).
// Listing them all in ordinal order needs no sort, so StreamTenants hands the
// rows on as the families are read instead of building them: the memory of
// `tenants ls -o json` is then a chunk of each family read, whatever the
// number of tenants.

var (
	errNotStreamable = errors.New("inspect: this listing sorts or selects tenants and cannot be streamed")
	// errTenantsMoved: the store changed between the count and the listing.
	errTenantsMoved = errors.New("inspect: the tenants changed while they were listed; list them again")
)

// TenantsStreamable reports whether StreamTenants can list with opt: a format
// 3 store and every tenant (no --prefix), in any order and to any --limit.
// Any other listing is built by ListTenants.
func TenantsStreamable(st *rocks.Store, opt TenantsOptions) bool {
	return st.Format == format.Format3 && opt.Prefix == ""
}

// StreamTenants lists what ListTenants lists for a streamable opt, in the same
// order, with the same numbers: begin gets the list's head (Format, Now, Sort,
// Matched) before the first row, each gets every row in turn (the row is
// reused after each returns, its pointer fields are its own), and the list
// returned holds the rest (Aggregate, Notes) with no Tenants.
//
// In ordinal order and with no --limit, the rows are handed on as they are
// read. Matched must be known before the first row (it comes first in the
// JSON), so the tenant-by-ordinal family is counted first (tenantjoin.Count),
// which holds what it reads, up to a few MiB, for the join with
// the counters; past that the join reads the rest again. Any other order,
// or a --limit, is read once into a tenantStash, sorted, and handed on from
// it.
func StreamTenants(ctx context.Context, st *rocks.Store, opt TenantsOptions, begin func(head *TenantList) error, each func(r *TenantRow) error) (*TenantList, error) {
	if err := refuseMidMigration(st); err != nil {
		return nil, err
	}
	if opt.Sort == "" {
		opt.Sort = SortByOrd
	}
	if _, err := ParseTenantSort(string(opt.Sort)); err != nil {
		return nil, err
	}
	if opt.Top < 0 {
		return nil, fmt.Errorf("top must be >= 0, got %d", opt.Top)
	}
	if !TenantsStreamable(st, opt) {
		return nil, errNotStreamable
	}
	if opt.Now.IsZero() {
		opt.Now = time.Now()
	}
	opt.Now = opt.Now.UTC().Truncate(time.Millisecond)
	if opt.Sort != SortByOrd || opt.Top > 0 {
		return streamSortedTenants(ctx, st, opt, begin, each)
	}
	db := st.DB
	matched, held, err := tenantjoin.Count(ctx, db, opt.All, opt.sizes.count)
	if err != nil {
		return nil, err
	}
	shown := 0
	// One row for every tenant, which each may not keep (its fields it may).
	var row TenantRow
	j, notes, err := tenantsWalk(ctx, db, opt, held, true, func(*tenantJoin) error {
		return begin(&TenantList{Format: st.Format, Now: opt.Now, Sort: opt.Sort, Matched: matched})
	}, func(r TenantRow) error {
		shown++
		row = r
		return each(&row)
	})
	if err != nil {
		return nil, err
	}
	if shown != matched {
		// Read-only stores do not move; a store written meanwhile does.
		return nil, errTenantsMoved
	}
	return tenantsTail(st, opt, matched, j, notes), nil
}

// tenantsTail is a streamed listing's list after its rows.
func tenantsTail(st *rocks.Store, opt TenantsOptions, matched int, j *tenantJoin, notes viewNotes) *TenantList {
	if len(j.aggErrs) > 0 {
		notes.warn("the node aggregate (ordinal 0) could not be read in full: %s", strings.Join(j.aggErrs, "; "))
	}
	if notes == nil {
		notes = viewNotes{}
	}
	return &TenantList{Format: st.Format, Now: opt.Now, Sort: opt.Sort, Matched: matched,
		Tenants: []TenantRow{}, Aggregate: &j.agg, AggregateErrors: j.aggErrs, Notes: notes}
}

// tenantsWalk joins every t row with its counters (tenantJoin) and hands on
// those opt shows (tombstones only with All), with their oldest due row when
// withDue (from the due family walked beside the join: tenantjoin.DueByWalk).
// begin is called once the aggregate is read, before the first row.
func tenantsWalk(ctx context.Context, db *rocks.DB, opt TenantsOptions, held *tenantjoin.Held, withDue bool,
	begin func(*tenantJoin) error, each func(r TenantRow) error) (*tenantJoin, viewNotes, error) {
	var notes viewNotes
	j := &tenantJoin{ctx: ctx, db: db, notes: &notes, held: held, now: opt.Now}
	switch {
	case withDue && opt.sizes.dueBySeek:
		j.due = tenantjoin.DueBySeek
	case withDue:
		j.due = tenantjoin.DueByWalk
	}
	err := j.run(func() error { return begin(j) }, func(r TenantRow) error {
		if r.Erased && !opt.All {
			return nil
		}
		return each(r)
	})
	if err != nil {
		return nil, nil, err
	}
	return j, notes, nil
}

// tenantsTopAfter is the largest --limit whose rows' oldest due row is looked
// up after the sort (as ListTenants does) instead of for every tenant during
// the pass: a few lookups into the active index against a walk of the due
// family.
const tenantsTopAfter = 4096

// streamSortedTenants is StreamTenants of a listing that is sorted or cut:
// one pass into a tenantStash, then its rows in order.
func streamSortedTenants(ctx context.Context, st *rocks.Store, opt TenantsOptions, begin func(head *TenantList) error, each func(r *TenantRow) error) (*TenantList, error) {
	db := st.DB
	dueAfter := opt.Sort != SortByOldestDue && opt.Top > 0 && opt.Top <= tenantsTopAfter
	s := &tenantStash{now: opt.Now}
	j, notes, err := tenantsWalk(ctx, db, opt, nil, !dueAfter, func(*tenantJoin) error { return nil }, func(r TenantRow) error {
		s.add(&r, tenantSortKey(&r, opt.Sort))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.sort(opt.Sort)
	entries := s.Entries()
	matched := len(entries)
	if opt.Top > 0 && len(entries) > opt.Top {
		entries = entries[:opt.Top]
	}
	if err := begin(&TenantList{Format: st.Format, Now: opt.Now, Sort: opt.Sort, Matched: matched}); err != nil {
		return nil, err
	}
	if dueAfter {
		rows := make([]TenantRow, len(entries))
		for i := range entries {
			rows[i] = s.row(entries[i].Ref)
		}
		dueRows := j.agg.Pending + j.agg.Scheduled
		if len(j.aggErrs) > 0 {
			dueRows = -1
		}
		if err := oldestDue3Auto(ctx, db, rows, opt.Now, dueRows); err != nil {
			return nil, err
		}
		for i := range rows {
			if err := each(&rows[i]); err != nil {
				return nil, err
			}
		}
	} else {
		for i := range entries {
			if i%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			r := s.row(entries[i].Ref)
			if err := each(&r); err != nil {
				return nil, err
			}
		}
	}
	return tenantsTail(st, opt, matched, j, notes), nil
}
