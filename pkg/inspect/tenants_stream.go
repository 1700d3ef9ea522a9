package inspect

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
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

// tenantsStreamBySeek makes StreamTenants seek for every oldest due row, for
// the tests of that way.
var tenantsStreamBySeek = false

// TenantsStreamable reports whether StreamTenants can list with opt: a format
// 3 store, every tenant (no --prefix, no --top), in ordinal order. Any other
// listing sorts or selects, and ListTenants builds it.
func TenantsStreamable(st *rocks.Store, opt TenantsOptions) bool {
	return st.Format == format.Format3 && opt.Prefix == "" && opt.Top == 0 &&
		(opt.Sort == "" || opt.Sort == SortByOrd)
}

// StreamTenants lists what ListTenants lists for a streamable opt, in the same
// order, with the same numbers: begin gets the list's head (Format, Now, Sort,
// Matched) before the first row, each gets every row in turn (the row is
// reused after each returns), and the list returned holds the rest
// (Aggregate, Notes) with no Tenants.
//
// Matched must be known before the first row (it comes first in the JSON), so
// the tenant-by-ordinal family is read twice: once to count the rows shown
// (tenantsCount), once joined with the counters. Each family of the join is
// read on a goroutine of its own (famCursor). The oldest due row of each tenant comes from
// the due family, led by the ordinal too: a walk beside the join when the
// node's due rows are few per tenant, else one seek per tenant with due rows,
// as ListTenants chooses between its walk and the active index.
func StreamTenants(ctx context.Context, st *rocks.Store, opt TenantsOptions, begin func(head *TenantList) error, each func(r *TenantRow) error) (*TenantList, error) {
	if err := refuseMidMigration(st); err != nil {
		return nil, err
	}
	if opt.Sort == "" {
		opt.Sort = SortByOrd
	}
	if !TenantsStreamable(st, opt) {
		return nil, errNotStreamable
	}
	if opt.Now.IsZero() {
		opt.Now = time.Now()
	}
	opt.Now = opt.Now.UTC().Truncate(time.Millisecond)
	db := st.DB
	matched, err := tenantsCount(ctx, db, opt.All)
	if err != nil {
		return nil, err
	}
	var notes viewNotes
	j := &tenantJoin{ctx: ctx, db: db, notes: &notes}
	var due *famCursor
	defer func() {
		if due != nil {
			due.close()
		}
	}()
	begun := func() error {
		dueRows := j.agg.Pending + j.agg.Scheduled
		if len(j.aggErrs) > 0 {
			dueRows = -1
		}
		if dueRows >= 0 && dueRows <= int64(matched)*tenantRowsPerSeek+tenantWalkFloor && !tenantsStreamBySeek {
			due = pullFamily(ctx, db, format.FamDue)
		}
		return begin(&TenantList{Format: st.Format, Now: opt.Now, Sort: opt.Sort, Matched: matched})
	}
	shown := 0
	// One row for every tenant, which each may not keep (its fields it may).
	var row TenantRow
	err = j.run(begun, func(r TenantRow) error {
		if r.Erased && !opt.All {
			return nil
		}
		if !r.Erased {
			var at uint64
			var found bool
			if due != nil {
				at, found = firstDueByWalk(due, r.ord)
				if due.err != nil {
					return due.err
				}
			} else if r.mayBeDue() {
				var err error
				if at, found, err = tenantFirstDue(db, r.ord, 0, format.MaxAtSeq+1); err != nil {
					return err
				}
			}
			if found {
				r.setOldestDueIn(at, opt.Now, j.slab.at(), j.slab.age())
			}
		}
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
	if len(j.aggErrs) > 0 {
		notes.warn("the node aggregate (ordinal 0) could not be read in full: %s", strings.Join(j.aggErrs, "; "))
	}
	if notes == nil {
		notes = viewNotes{}
	}
	return &TenantList{Format: st.Format, Now: opt.Now, Sort: opt.Sort, Matched: matched,
		Tenants: []TenantRow{}, Aggregate: &j.agg, AggregateErrors: j.aggErrs, Notes: notes}, nil
}

// firstDueByWalk moves the due cursor past every row of ordinals below ord
// and returns the `at` of ord's first row, if it has one: its oldest.
func firstDueByWalk(due *famCursor, ord uint32) (at uint64, found bool) {
	for e := due.peek(); e != nil; e = due.peek() {
		k, err := format.DecodeDueKey(e.K)
		switch {
		case err != nil || k.Ord < ord:
			due.advance()
			continue
		case k.Ord == ord:
			return k.At, true
		}
		return 0, false
	}
	return 0, false
}
