package inspect

import (
	"math"
	"time"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/tenantjoin"
)

// tenantStash keeps a sorted listing's rows in a tenantjoin.Stash (which
// says why). A row whose counters could not be read all is kept whole; there
// are few.
type tenantStash struct {
	tenantjoin.Stash
	whole map[uint64]*TenantRow // rows with errors, by ref
	now   time.Time
	slab  rowSlab
}

// add keeps r; key is its sort key (tenantSortKey), unused for SortByName.
func (s *tenantStash) add(r *TenantRow, key uint64) {
	sr := tenantjoin.StashRow{Ord: r.ord, Erased: r.Erased}
	for i, f := range format.Fields {
		sr.Counters[i] = r.Get(f)
	}
	if r.OldestDueAt != nil {
		sr.Due, sr.HasDue = uint64(r.OldestDueAt.UnixMilli()), true
	}
	ref := s.Add(r.Tenant, &sr, key)
	if len(r.Errors) > 0 || r.UnreadableCount() > 0 {
		if s.whole == nil {
			s.whole = map[uint64]*TenantRow{}
		}
		c := *r
		c.Errors = append([]string(nil), r.Errors...)
		s.whole[ref] = &c
	}
}

// row is the row at ref, its fields from the stash's slab (so that a row kept
// by its reader stays what it was).
func (s *tenantStash) row(ref uint64) TenantRow {
	if w := s.whole[ref]; w != nil {
		return *w
	}
	sr := s.Row(ref)
	r := tenantRow3In(s.slab.ord(), sr.Ord, s.Name(ref))
	r.Erased = sr.Erased
	for i, f := range format.Fields {
		r.add(f, sr.Counters[i])
	}
	if sr.HasDue {
		r.setOldestDueIn(sr.Due, s.now, s.slab.at(), s.slab.age())
	}
	return r
}

// tenantSortKey is r's key for by, smallest first, ties in ordinal order:
// the numeric sorts put the biggest first, oldest the oldest due row first
// and tenants with none last. Name sorts by the id itself (SortByName).
func tenantSortKey(r *TenantRow, by TenantSort) uint64 {
	switch by {
	case SortByOldestDue:
		if r.OldestDueAt == nil {
			return math.MaxUint64
		}
		// Times before 1970 stay before later ones (a signed order).
		return uint64(r.OldestDueAt.UnixMilli()) ^ 1<<63
	case SortByOrd, SortByName:
		return 0
	}
	if f, ok := format.FieldByName(string(by)); ok {
		return ^(uint64(r.Get(f)) ^ 1<<63) // descending
	}
	return 0
}

// sort orders the entries by by.
func (s *tenantStash) sort(by TenantSort) {
	switch by {
	case SortByOrd:
		// Already: rows are added in ordinal order.
	case SortByName:
		s.SortByName()
	default:
		s.SortByKey()
	}
}
