package inspect

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// TenantShowOptions says what ShowTenant reads.
type TenantShowOptions struct {
	// Tenant is the tenant, resolved (tenant.Resolve).
	Tenant format.Tenant
	// Newest is how many dead letters and inflight rows to list.
	Newest int
	Now    time.Time
	// Values reads the hooks of its inflight rows (the zero value, the tool's
	// own, reads them in place; a test chooses the whole decode to compare
	// the two).
	Values format.ValueReader
}

// tenantMarkerWalkCap bounds the walk of the active index for one tenant's
// markers: markers are ordered by second, not by tenant.
const tenantMarkerWalkCap = 1 << 20

// TenantDetail is one tenant in full; its JSON is `tenants show -o json`.
type TenantDetail struct {
	Format uint32 `json:"format"`
	Tenant string `json:"tenant"`
	// Ord is null on format 2.
	Ord      *uint32        `json:"ord"`
	Counters TenantCounters `json:"counters"`
	// CountersFrom is "counters" (format 3: six point reads) or "fold"
	// (format 2: folded from the backlog).
	CountersFrom string    `json:"counters_from"`
	Errors       []string  `json:"errors,omitempty"`
	Due          TenantDue `json:"due"`
	// InflightRows are the first inflight rows (format 3), with their hook's id and
	// when the node received it: the store keeps no claim time, so their age is the
	// hook's.
	InflightRows []TenantInflight `json:"inflight_rows"`
	// InflightMore is how many inflight rows the list leaves out (the inflight counter
	// less the rows shown): 0 when none; null when the counter could not be read, and on
	// format 2, which lists no inflight rows.
	InflightMore *int64 `json:"inflight_more"`
	// DeadLetters are the newest dead letters, as dlq scan --tenant lists them.
	DeadLetters []DLQRow `json:"dead_letters"`
	// DeadMore says how many dead letters the list leaves out and where the rest
	// begins; null when it shows them all.
	DeadMore *TenantDeadMore `json:"dead_letters_more"`
	// Inflight and Dead are the lists above under their first names: Inflight the refs
	// alone, Dead a list named like the dead counter.
	Inflight []string `json:"inflight" jsondoc:"deprecated: the refs of inflight_rows; removed in a later release"`
	Dead     []DLQRow `json:"dead" jsondoc:"deprecated: the same list as dead_letters (counters.dead is the count); removed in a later release"`
	// ArchivePending is the archive obligations the counters (or the fold) hold; null when
	// that counter could not be read.
	ArchivePending *int64 `json:"archive_pending"`
	// Markers are the tenant's active markers (format 3).
	Markers *TenantMarkers `json:"active_markers"`
	Notes   []ViewNote     `json:"notes"`
}

// TenantInflight is one inflight row of a tenant.
type TenantInflight struct {
	Ref  string `json:"ref"` // SEQ:SINK
	Seq  uint64 `json:"seq"`
	Sink uint16 `json:"sink"`
	// HookID and ReceivedAt come from the hook; null when it is missing or does not
	// decode (Problem says which).
	HookID       *string    `json:"hook_id"`
	ReceivedAt   *time.Time `json:"received_at"`
	ReceivedAtMS *int64     `json:"received_at_ms"`
	// AgeMS is how long ago the hook was received.
	AgeMS   *int64 `json:"age_ms"`
	Problem string `json:"problem,omitempty"`
}

// TenantDeadMore is what the list of dead letters leaves out.
type TenantDeadMore struct {
	// Count is the dead counter less the rows shown; null when the counter could not be read.
	Count *int64 `json:"count"`
	// NextCursor continues the listing: dlq scan --tenant T --after NextCursor.
	NextCursor string `json:"next_cursor"`
}

// TenantDue is the tenant's due rows: their count (pending + scheduled) and
// the first and last due time, read from the two ends of its due range.
type TenantDue struct {
	// Rows is null when pending or scheduled could not be read.
	Rows        *int64     `json:"rows"`
	FirstDueAt  *time.Time `json:"first_due_at"`
	FirstAgeMS  *int64     `json:"first_due_age_ms"`
	LastDueAt   *time.Time `json:"last_due_at"`
	FirstDueKey *KeyRef    `json:"first_due_key,omitempty"`
}

// TenantMarkers counts the tenant's markers in the active index.
type TenantMarkers struct {
	Count int64 `json:"count"`
	// First and Last are the start of the first and last marked second.
	First *time.Time `json:"first"`
	Last  *time.Time `json:"last"`
	// Walked is how many markers (of every tenant) were read; Capped: the
	// walk stopped at its bound before the end of the index.
	Walked int64 `json:"walked"`
	Capped bool  `json:"capped"`
}

// ShowTenant reads one tenant in full. On format 3: its ordinal (the n row),
// six counter reads, the two ends of its due range, the first of its
// inflight range, the newest of its dead-by-tenant range, and a bounded
// walk of the active index for its markers. On format 2 the numbers are
// folded from the backlog and the hooks, as tenants ls does there. A tenant
// the store no longer has is format.ErrNoSuchTenant.
func ShowTenant(ctx context.Context, st *rocks.Store, o TenantShowOptions) (*TenantDetail, error) {
	if err := refuseMidMigration(st); err != nil {
		return nil, err
	}
	if o.Newest <= 0 {
		o.Newest = 5
	}
	d := &TenantDetail{Format: st.Format, Tenant: o.Tenant.ID, Inflight: []string{}, InflightRows: []TenantInflight{},
		Dead: []DLQRow{}, DeadLetters: []DLQRow{}, Notes: []ViewNote{}}
	var notes viewNotes
	if st.Format == format.Format2 {
		if err := showTenant2(ctx, st, o, d, &notes); err != nil {
			return nil, err
		}
	} else if err := showTenant3(ctx, st, o, d); err != nil {
		return nil, err
	}
	page, err := ScanDLQ(ctx, st, DLQOptions{Tenant: o.Tenant, Limit: o.Newest})
	if err != nil {
		return nil, err
	}
	d.Dead, d.DeadLetters = page.Rows, page.Rows
	if page.NextCursor != "" {
		d.DeadMore = &TenantDeadMore{NextCursor: page.NextCursor}
		if n := d.Counters.Value(format.FieldDead); n != nil {
			more := max(0, *n-int64(len(page.Rows)))
			d.DeadMore.Count = &more
		}
	}
	if st.Format == format.Format3 {
		if n := d.Counters.Value(format.FieldInflight); n != nil {
			more := max(0, *n-int64(len(d.InflightRows)))
			d.InflightMore = &more
		}
		if err := tenantInflightHooks(st.DB, d.InflightRows, o.Now, o.Values); err != nil {
			return nil, err
		}
	}
	notes = append(notes, page.Notes...)
	d.Notes = append(d.Notes, notes...)
	return d, nil
}

func showTenant2(ctx context.Context, st *rocks.Store, o TenantShowOptions, d *TenantDetail, notes *viewNotes) error {
	l, err := ListTenants(ctx, st, TenantsOptions{Prefix: o.Tenant.ID, Now: o.Now, All: true})
	if err != nil {
		return err
	}
	*notes = append(*notes, l.Notes...)
	for _, r := range l.Tenants {
		if r.Tenant != o.Tenant.ID {
			continue
		}
		d.CountersFrom, d.Counters, d.Errors = "fold", r.TenantCounters, r.Errors
		d.ArchivePending = d.Counters.Value(format.FieldArchivePending)
		d.Due = TenantDue{Rows: d.Counters.dueRows(), FirstDueAt: r.OldestDueAt, FirstAgeMS: r.OldestDueAgeMS}
		return nil
	}
	return fmt.Errorf("%w: no row of this format 2 store belongs to tenant %q", format.ErrNoSuchTenant, o.Tenant.ID)
}

func showTenant3(ctx context.Context, st *rocks.Store, o TenantShowOptions, d *TenantDetail) error {
	db := st.DB
	ord := o.Tenant.Ord
	d.Ord = &ord
	rows := []TenantRow{tenantRow3(ord, []byte(o.Tenant.ID))}
	if _, _, err := tenantCountersByGet(db, rows); err != nil {
		return err
	}
	d.Counters, d.Errors, d.CountersFrom = rows[0].TenantCounters, rows[0].Errors, "counters"
	d.ArchivePending = d.Counters.Value(format.FieldArchivePending)
	d.Due.Rows = d.Counters.dueRows()

	// The two ends of the due range: one seek each.
	lo, hi := format.FamDue.TenantSpan(ord)
	first := func(k, _ []byte) error {
		if dk, err := format.DecodeDueKey(k); err == nil {
			t := viewTime(dk.At)
			age := o.Now.UnixMilli() - int64(dk.At)
			ref := keyRef(format.CFIndex, k)
			d.Due.FirstDueAt, d.Due.FirstAgeMS, d.Due.FirstDueKey = &t, &age, &ref
			return rocks.Stop
		}
		return nil
	}
	if err := db.Scan(format.CFIndex, lo, hi, rocks.ReadOpts{}, first); err != nil {
		return err
	}
	if err := db.ScanReverse(format.CFIndex, lo, hi, rocks.ReadOpts{}, func(k, _ []byte) error {
		if dk, err := format.DecodeDueKey(k); err == nil {
			t := viewTime(dk.At)
			d.Due.LastDueAt = &t
			return rocks.Stop
		}
		return nil
	}); err != nil {
		return err
	}

	// The first inflight rows.
	flo, fhi := format.FamInflight.TenantSpan(ord)
	if err := db.Scan(format.CFIndex, flo, fhi, rocks.ReadOpts{}, func(k, _ []byte) error {
		if fk, err := format.DecodeInflightKey(k); err == nil {
			d.Inflight = append(d.Inflight, dlqRefOf(fk.Seq, fk.Sink))
			d.InflightRows = append(d.InflightRows, TenantInflight{Ref: dlqRefOf(fk.Seq, fk.Sink), Seq: fk.Seq, Sink: fk.Sink})
		}
		if len(d.Inflight) >= o.Newest {
			return rocks.Stop
		}
		return nil
	}); err != nil {
		return err
	}

	// Its markers, from a bounded walk of the active index.
	m := &TenantMarkers{}
	fam := format.FamActive
	err := db.Scan(fam.CF, fam.Lo, fam.Hi, rocks.ReadOpts{}, func(k, _ []byte) error {
		if fam.IsSentinel(k) {
			return nil
		}
		m.Walked++
		if m.Walked > tenantMarkerWalkCap {
			m.Capped = true
			return rocks.Stop
		}
		if len(k) != format.KeyLenActive || !bytes.Equal(k[len(k)-4:], binary.BigEndian.AppendUint32(nil, ord)) {
			return nil
		}
		ak, err := format.DecodeActiveKey(k)
		if err != nil {
			return nil
		}
		t := viewTime(ak.Bucket * format.BucketMillis)
		if m.First == nil {
			m.First = &t
		}
		m.Last = &t
		m.Count++
		if m.Count%4096 == 0 {
			return ctx.Err()
		}
		return nil
	})
	if err != nil {
		return err
	}
	d.Markers = m
	return nil
}

// tenantInflightHooks fills the inflight rows' hook id and receipt time from their hooks,
// in one multi-get (after the scan: a scan callback must not read the store).
func tenantInflightHooks(db *rocks.DB, rows []TenantInflight, now time.Time, vr format.ValueReader) error {
	if len(rows) == 0 {
		return nil
	}
	keys := make([][]byte, len(rows))
	for i, r := range rows {
		keys[i] = format.HookKey{Seq: r.Seq}.Encode()
	}
	vals, found, err := db.MultiGet(format.CFHooks, keys)
	if err != nil {
		return err
	}
	for i := range rows {
		r := &rows[i]
		if !found[i] {
			r.Problem = "no hook row"
			continue
		}
		env, err := vr.DecodeEnvelope(vals[i])
		if err != nil {
			r.Problem = "the hook does not decode: " + err.Error()
			continue
		}
		id := string(env.ID)
		ms := env.ReceivedAt
		t := time.UnixMilli(ms).UTC()
		age := now.UnixMilli() - ms
		r.HookID, r.ReceivedAt, r.ReceivedAtMS, r.AgeMS = &id, &t, &ms, &age
	}
	return nil
}
