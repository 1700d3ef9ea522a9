package inspect

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/ankusa/ankusa-store/internal/reporting"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/tenantjoin"
)

// TenantSort orders the rows of ListTenants.
type TenantSort string

// Sort orders. Ordinal and name sort ascending; the counters and the oldest
// due row sort the biggest first, because the question at 3 a.m. is "who".
const (
	SortByOrd            TenantSort = "ord"
	SortByName           TenantSort = "name"
	SortByPending        TenantSort = "pending"
	SortByScheduled      TenantSort = "scheduled"
	SortByInflight       TenantSort = "inflight"
	SortByDead           TenantSort = "dead"
	SortByBytes          TenantSort = "bytes"
	SortByArchivePending TenantSort = "archive_pending"
	SortByOldestDue      TenantSort = "oldest"
)

// TenantSorts lists every sort order, for flag help and validation.
var TenantSorts = []TenantSort{SortByOrd, SortByName, SortByPending, SortByScheduled, SortByInflight,
	SortByDead, SortByBytes, SortByArchivePending, SortByOldestDue}

// ParseTenantSort checks a --sort value.
func ParseTenantSort(s string) (TenantSort, error) {
	for _, o := range TenantSorts {
		if string(o) == s {
			return o, nil
		}
	}
	names := make([]string, len(TenantSorts))
	for i, o := range TenantSorts {
		names[i] = string(o)
	}
	return "", fmt.Errorf("unknown sort %q (want one of %s)", s, strings.Join(names, ", "))
}

// TenantsOptions selects and orders the tenants ListTenants returns.
type TenantsOptions struct {
	Sort   TenantSort // "" is SortByOrd
	Top    int        // at most this many rows after sorting; 0 is all
	Prefix string     // only tenants whose id starts with it
	All    bool       // include erased tenants (tombstones)
	Now    time.Time  // ages are relative to it; format 2 splits pending from scheduled at it
	// Progress, if set, counts the rows the format 2 pass over the backlog reads.
	Progress reporting.Reporter
	// Values reads the delivery rows of a format 2 store (the zero value, the
	// tool's own, reads them in place; a test chooses the whole decode to
	// compare the two).
	Values format.ValueReader

	// sizes, for tests, are the listing's sizes and ways (the zero value: the
	// tool's own).
	sizes tenantsSizes
	// heardBuilt, for tests, hears whether ListTenants built its listing from
	// whole rows (sizes.built, or a listing that cannot be streamed) or
	// collected the stream: the way a test of one against the other took,
	// which the listing itself does not show.
	heardBuilt func(built bool)
}

// tenantsSizes are what a test sets of a listing: unexported, so that no
// caller tunes a listing, and in the options rather than package variables,
// so that tests running side by side do not set them for each other.
type tenantsSizes struct {
	// count is tenantjoin.Count's sizes (the zero value, tenantjoin's own;
	// the tests split small stores).
	count tenantjoin.Sizes
	// dueBySeek makes StreamTenants seek for every oldest due row, for the
	// tests of that way.
	dueBySeek bool
	// built makes ListTenants build every listing from whole rows
	// (listTenants3, tenantSelect), the slow path the tests hold the stash to.
	built bool
}

// TenantCounters are a tenant's six counters (format 3), or the same numbers
// folded from the backlog (format 2). A counter that could not be read (a
// damaged table, a value that is not an integer) is Unreadable: its field
// holds what was summed before the failure, which is no number anyone may
// be shown, so its JSON is null and the views print "unreadable".
type TenantCounters struct {
	Pending        int64 `json:"pending" jsondoc:"null when it could not be read"`
	Scheduled      int64 `json:"scheduled" jsondoc:"null when it could not be read"`
	Inflight       int64 `json:"inflight" jsondoc:"null when it could not be read"`
	Dead           int64 `json:"dead" jsondoc:"null when it could not be read"`
	Bytes          int64 `json:"bytes" jsondoc:"null when it could not be read"`
	ArchivePending int64 `json:"archive_pending" jsondoc:"null when it could not be read"`

	// unreadable has bit 1<<field set for each field a read failed for (fields are 1..6).
	unreadable uint8
	// err is the first failed read, named by its field: what the command's exit status
	// and error class come from; fieldErr is the first of each field.
	err      error
	fieldErr [format.NumFields + 1]error
}

// Unreadable says whether a read of field f failed, so that its number is unknown.
func (c *TenantCounters) Unreadable(f format.Field) bool { return c.unreadable&(1<<f) != 0 }

// Err is the first read that failed, nil when every counter was read.
func (c *TenantCounters) Err() error { return c.err }

// UnreadableCount is how many of the six fields could not be read.
func (c *TenantCounters) UnreadableCount() int { return bits.OnesCount8(c.unreadable) }

// markUnreadable records that field f could not be read because of err.
func (c *TenantCounters) markUnreadable(f format.Field, err error) {
	c.unreadable |= 1 << f
	if c.fieldErr[f] == nil {
		c.fieldErr[f] = err
	}
	if c.err == nil {
		c.err = fmt.Errorf("%s: %w", f, err)
	}
}

// FieldErr is the first read of field f that failed (of the aggregate's shards, the
// first), nil when f was read.
func (c *TenantCounters) FieldErr(f format.Field) error {
	if !f.Valid() {
		return nil
	}
	return c.fieldErr[f]
}

// Value is field f, nil when it could not be read: the form JSON takes.
func (c *TenantCounters) Value(f format.Field) *int64 {
	if c.Unreadable(f) {
		return nil
	}
	v := c.Get(f)
	return &v
}

// dueRows is pending + scheduled, nil when either could not be read.
func (c *TenantCounters) dueRows() *int64 {
	if c.Unreadable(format.FieldPending) || c.Unreadable(format.FieldScheduled) {
		return nil
	}
	n := c.Pending + c.Scheduled
	return &n
}

// countersJSON is TenantCounters as JSON: the six fields, null where unreadable.
type countersJSON struct {
	Pending        *int64 `json:"pending"`
	Scheduled      *int64 `json:"scheduled"`
	Inflight       *int64 `json:"inflight"`
	Dead           *int64 `json:"dead"`
	Bytes          *int64 `json:"bytes"`
	ArchivePending *int64 `json:"archive_pending"`
}

func (c *TenantCounters) asJSON() countersJSON {
	return countersJSON{c.Value(format.FieldPending), c.Value(format.FieldScheduled), c.Value(format.FieldInflight),
		c.Value(format.FieldDead), c.Value(format.FieldBytes), c.Value(format.FieldArchivePending)}
}

// MarshalJSON writes an unreadable counter as null, never as the zero it was left at.
func (c TenantCounters) MarshalJSON() ([]byte, error) { return marshalNoHTML(c.asJSON()) }

// marshalNoHTML is json.Marshal without HTML escaping, as the commands' encoders write
// (a MarshalJSON's bytes are kept as they are, so an escaped '<' would stay escaped).
func marshalNoHTML(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Get returns one counter by field.
func (c *TenantCounters) Get(f format.Field) int64 {
	switch f {
	case format.FieldPending:
		return c.Pending
	case format.FieldScheduled:
		return c.Scheduled
	case format.FieldInflight:
		return c.Inflight
	case format.FieldDead:
		return c.Dead
	case format.FieldBytes:
		return c.Bytes
	case format.FieldArchivePending:
		return c.ArchivePending
	}
	return 0
}

// add adds v to one counter with the merge operator's 64-bit wrap-around.
func (c *TenantCounters) add(f format.Field, v int64) {
	switch f {
	case format.FieldPending:
		c.Pending += v
	case format.FieldScheduled:
		c.Scheduled += v
	case format.FieldInflight:
		c.Inflight += v
	case format.FieldDead:
		c.Dead += v
	case format.FieldBytes:
		c.Bytes += v
	case format.FieldArchivePending:
		c.ArchivePending += v
	}
}

// TenantRow is one tenant of ListTenants.
type TenantRow struct {
	// Ord is null on a format 2 store, which has no ordinals.
	Ord    *uint32 `json:"ord"`
	Tenant string  `json:"tenant"`
	Erased bool    `json:"erased,omitempty"`
	TenantCounters
	// OldestDueAt is the `at` of the tenant's oldest due row, null when it has
	// none. It may lie in the future: a retry waiting out its backoff.
	OldestDueAt *time.Time `json:"oldest_due_at" jsondoc:"null when the tenant has no due row"`
	// OldestDueAgeMS is Now minus OldestDueAt (negative: not due yet).
	OldestDueAgeMS *int64 `json:"oldest_due_age_ms"`
	// Errors are reads that failed for this tenant (a counter whose merge
	// fails); the other columns are still shown.
	Errors []string `json:"errors,omitempty"`

	ord uint32
}

// MarshalJSON is the row with its counters inline, null where unreadable. (TenantRow must
// have its own: the one of the TenantCounters it embeds would otherwise stand for the row.)
func (r TenantRow) MarshalJSON() ([]byte, error) {
	c := r.TenantCounters.asJSON()
	return marshalNoHTML(struct {
		Ord            *uint32    `json:"ord"`
		Tenant         string     `json:"tenant"`
		Erased         bool       `json:"erased,omitempty"`
		Pending        *int64     `json:"pending"`
		Scheduled      *int64     `json:"scheduled"`
		Inflight       *int64     `json:"inflight"`
		Dead           *int64     `json:"dead"`
		Bytes          *int64     `json:"bytes"`
		ArchivePending *int64     `json:"archive_pending"`
		OldestDueAt    *time.Time `json:"oldest_due_at"`
		OldestDueAgeMS *int64     `json:"oldest_due_age_ms"`
		Errors         []string   `json:"errors,omitempty"`
	}{r.Ord, r.Tenant, r.Erased, c.Pending, c.Scheduled, c.Inflight, c.Dead, c.Bytes, c.ArchivePending,
		r.OldestDueAt, r.OldestDueAgeMS, r.Errors})
}

// Backlog2 says what the format 2 listing cost and met: format 2 has no
// ordinals or counters, so every row of the backlog and the hook behind it was
// read.
type Backlog2 struct {
	RowsRead  int64 `json:"rows_read"`
	HooksRead int64 `json:"hooks_read"`
	// Defaulted counts the hooks filed under "default" because they are missing,
	// do not decode or carry an invalid tenant_id, by reason.
	Defaulted map[string]int64 `json:"defaulted,omitempty"`
	// MissingDeliveries counts dead rows whose delivery row is missing or does
	// not decode; they count 0 bytes.
	MissingDeliveries int64 `json:"missing_deliveries"`
}

// TenantList is the result of ListTenants; its JSON is the stable output of
// `tenants ls -o json`.
type TenantList struct {
	Format uint32     `json:"format"`
	Now    time.Time  `json:"now"`
	Sort   TenantSort `json:"sort"`
	// Matched is the number of tenants that passed the filters, before --top.
	Matched int         `json:"matched"`
	Tenants []TenantRow `json:"tenants"`
	// Aggregate is ordinal 0, the node's counters, with its shards summed
	// (format 3 only).
	Aggregate *TenantCounters `json:"aggregate,omitempty"`
	// AggregateErrors names the aggregate counters that could not be read (null in Aggregate).
	AggregateErrors []string `json:"aggregate_errors,omitempty"`
	// Backlog is set on format 2: what the pass over the backlog read.
	Backlog *Backlog2  `json:"backlog_pass,omitempty"`
	Notes   []ViewNote `json:"notes"`
}

// ListTenants lists the tenants of a store with their counters and the age of
// their oldest due row.
//
// Format 3 reads the tenants and counters families in one ordinal-ordered pass
// each (with --prefix, a range of the ordinal-by-tenant rows and a multi-get of
// their counters instead), and takes the oldest due row from the active index.
// Format 2 has neither, so it folds the whole backlog and reads every hook
// behind it; a note says so.
func ListTenants(ctx context.Context, st *rocks.Store, opt TenantsOptions) (*TenantList, error) {
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
	if opt.Now.IsZero() {
		opt.Now = time.Now()
	}
	opt.Now = opt.Now.UTC().Truncate(time.Millisecond)
	var (
		l   *TenantList
		err error
	)
	streamed := TenantsStreamable(st, opt) && !opt.sizes.built
	if opt.heardBuilt != nil {
		opt.heardBuilt(!streamed)
	}
	switch {
	case streamed:
		l, err = collectTenants(ctx, st, opt)
	case st.Format == format.Format3:
		l, err = listTenants3(ctx, st.DB, opt)
	case st.Format == format.Format2:
		l, err = listTenants2(ctx, st.DB, opt)
	default:
		return nil, fmt.Errorf("%s: tenants ls reads formats 2 and 3, not %d", st.Dir, st.Format)
	}
	if err != nil {
		return nil, err
	}
	l.Format, l.Now, l.Sort = st.Format, opt.Now, opt.Sort
	if l.Tenants == nil {
		l.Tenants = []TenantRow{}
	}
	if l.Notes == nil {
		l.Notes = []ViewNote{}
	}
	return l, nil
}

// collectTenants is StreamTenants' listing, its rows kept.
func collectTenants(ctx context.Context, st *rocks.Store, opt TenantsOptions) (*TenantList, error) {
	var rows []TenantRow
	l, err := StreamTenants(ctx, st, opt, func(*TenantList) error { return nil }, func(r *TenantRow) error {
		rows = append(rows, *r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	l.Tenants = rows
	return l, nil
}

// tenantSelect sorts rows and cuts them to --top; it returns how many matched.
func tenantSelect(rows []TenantRow, opt TenantsOptions) ([]TenantRow, int) {
	slices.SortStableFunc(rows, func(a, b TenantRow) int { return tenantCompare(&a, &b, opt.Sort) })
	n := len(rows)
	if opt.Top > 0 && len(rows) > opt.Top {
		rows = rows[:opt.Top]
	}
	return rows, n
}

func tenantCompare(a, b *TenantRow, by TenantSort) int {
	desc := func(x, y int64) int {
		switch {
		case x > y:
			return -1
		case x < y:
			return 1
		}
		return 0
	}
	c := 0
	switch by {
	case SortByName:
		c = strings.Compare(a.Tenant, b.Tenant)
	case SortByOldestDue:
		// Oldest first; tenants with nothing due last.
		switch {
		case a.OldestDueAt == nil && b.OldestDueAt == nil:
		case a.OldestDueAt == nil:
			c = 1
		case b.OldestDueAt == nil:
			c = -1
		default:
			c = a.OldestDueAt.Compare(*b.OldestDueAt)
		}
	case SortByOrd:
	default:
		if f, ok := format.FieldByName(string(by)); ok {
			c = desc(a.Get(f), b.Get(f))
		}
	}
	if c != 0 {
		return c
	}
	// Ties (and the ord order itself): by ordinal, then by name for format 2,
	// where every ordinal is absent.
	switch {
	case a.ord < b.ord:
		return -1
	case a.ord > b.ord:
		return 1
	}
	return strings.Compare(a.Tenant, b.Tenant)
}

// setOldestDue records the tenant's oldest due `at` and its age at now.
func (r *TenantRow) setOldestDue(at uint64, now time.Time) {
	r.setOldestDueIn(at, now, new(time.Time), new(int64))
}

// setOldestDueIn is setOldestDue into fields the caller provides (rowSlab).
func (r *TenantRow) setOldestDueIn(at uint64, now time.Time, t *time.Time, age *int64) {
	*t, *age = viewTime(at), now.UnixMilli()-int64(at)
	r.OldestDueAt, r.OldestDueAgeMS = t, age
}
