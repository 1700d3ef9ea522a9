package inspect

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/sortjoin"
	"github.com/ankusa/ankusa-store/pkg/store"
	"github.com/ankusa/ankusa-store/pkg/walk"
)

// DLQOptions select one page of dead letters, newest first.
type DLQOptions struct {
	// Tenant scopes the listing to one tenant, resolved (tenant.Resolve); the zero
	// Tenant lists every tenant.
	Tenant format.Tenant
	// Since (inclusive) and Until (exclusive) bound the dead-at time; the zero
	// time leaves that side open.
	Since, Until time.Time
	// Sink, if set, keeps only that sink's deliveries.
	Sink *uint16
	// Limit is the page size; 0 is everything.
	Limit int
	// After continues below the last row of a previous page.
	After *DLQCursor
	// Join is how a streamed listing (StreamDLQ) reads its rows' delivery
	// rows and tenant names; a page ScanDLQ builds reads them by key.
	Join ExportJoin
	// Lookups, when set, is the store as opened, which a streamed listing
	// that reads by key after all opens again with its tables' indexes on the
	// heap (as DLQExportOptions.Lookups).
	Lookups *store.Handle
	// Values reads the dead values and delivery rows (the zero value, the
	// tool's own, reads them in place; a test chooses the whole decode to
	// compare the two).
	Values format.ValueReader

	// sizes, for tests, are a streamed listing's pages and its join's sizes
	// (the zero value: the tool's own).
	sizes dlqSizes
	// hear, for tests, hears whether a streamed listing read through a
	// sorted join.
	hear dlqListeners
}

// dlqSizes are what a test sets of a streamed listing or an export: its
// pages, its bounds in bytes and its join's sizes. Unexported, so that no
// caller tunes a view, and in the options rather than package variables, so
// that tests running side by side do not set them for each other; each zero
// field is the tool's own.
type dlqSizes struct {
	// page is how many rows a page reads (0: dlqStreamPage for a streamed
	// listing, dlqExportPage for an export).
	page int
	// readBytes and partBytes bound an export's groups of hooks and parts of
	// rows (0: dlqExportReadBytes and dlqExportPartBytes).
	readBytes, partBytes int
	// chunkBytes bounds the bytes of a chunk of the page walk
	// (walk.Range.ChunkBytes; 0: walk's default).
	chunkBytes int
	// join is the sorted join's sizes (the zero value, sortjoin's own).
	join sortjoin.Sizes
}

// orOwn is n, or own when a test left n zero.
func orOwn(n, own int) int {
	if n > 0 {
		return n
	}
	return own
}

// DLQPage is the result of ScanDLQ; its JSON is the stable output of
// `dlq scan -o json`.
type DLQPage struct {
	Format uint32   `json:"format"`
	Tenant *string  `json:"tenant"`        // the --tenant scope, null when unscoped
	Ord    *uint32  `json:"ord,omitempty"` // its ordinal (format 3)
	Rows   []DLQRow `json:"rows"`
	// NextCursor continues the listing with --after; "" when this page is
	// the last.
	NextCursor string `json:"next_cursor"`
	// Scanned is how many index keys the page read: a scoped page on format
	// 3 reads about Limit of them whatever the size of the dead-letter queue.
	Scanned int64      `json:"scanned"`
	Notes   []ViewNote `json:"notes"`
}

// ScanDLQ reads one page of dead letters, newest first.
//
// Scoped to a tenant on format 3, it reads one reverse range of the
// dead-by-tenant family `X` under the tenant's ordinal, joined to the `x`
// values by (at, seq, sink) with one multi-get: no hook is read. Unscoped, it walks
// `x` from its newest key. Either way the delivery rows of the page are read
// with one multi-get, for size and last error.
//
// On format 2, `x` values carry no ordinal, so the tenant of each row is read
// from its hook; a --tenant listing then reads the hook of every row it passes
// over (a pass over the dead-letter queue, noted).
func ScanDLQ(ctx context.Context, st *rocks.Store, opt DLQOptions) (*DLQPage, error) {
	s, err := scanDLQ(ctx, st, opt, nil, nil)
	if err != nil {
		return nil, err
	}
	s.hookNotes(int64(len(s.rows)))
	s.finish()
	return s.page, nil
}

// scanDLQ reads one page as ScanDLQ does, up to its joins: the page's rows,
// not yet cut to Limit, and without the notes that sum the page up (finish,
// hookNotes), which a reader of many pages (ExportDLQ) sums up itself.
// hooks, when not nil, is the hook-tenant cache of a format 2 walk, shared
// with the pages before.
func scanDLQ(ctx context.Context, st *rocks.Store, opt DLQOptions, hooks *hookTenants, reads rowReads) (*dlqScan, error) {
	if err := refuseMidMigration(st); err != nil {
		return nil, err
	}
	if opt.Limit < 0 {
		return nil, fmt.Errorf("limit must be >= 0, got %d", opt.Limit)
	}
	if opt.After != nil {
		if err := opt.After.checkScope(opt.Tenant.ID); err != nil {
			return nil, err
		}
	}
	if reads == nil {
		reads = sortjoin.StoreReads{DB: st.DB}
	}
	s := &dlqScan{db: st.DB, opt: opt, page: &DLQPage{Format: st.Format, Rows: []DLQRow{}}, hooks: hooks, reads: reads}
	if !opt.Tenant.IsZero() {
		t := opt.Tenant.ID
		s.page.Tenant = &t
	}
	var err error
	switch {
	case st.Format != format.Format2 && st.Format != format.Format3:
		return nil, fmt.Errorf("%s: dlq scan reads formats 2 and 3, not %d", st.Dir, st.Format)
	case !opt.Tenant.IsZero() && st.Format == format.Format3:
		err = s.scoped3(ctx)
	default:
		err = s.unscoped(ctx, st.Format)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// dlqScan is one ScanDLQ call in progress.
type dlqScan struct {
	db    *rocks.DB
	opt   DLQOptions
	page  *DLQPage
	notes viewNotes
	keys  []format.DeadKey // the page's keys, newest first, up to Limit+1
	// per key, filled as the join proceeds
	rows   []DLQRow
	strays int64
	// shownScanned and shownStrays are Scanned and strays as they stood when
	// the page's last row was taken: what a page continued by the next one
	// (StreamDLQ) read, without the keys up to the one past it, which the
	// next page reads again.
	shownScanned, shownStrays int64
	// hooks names the tenants of a format 2 walk from their hooks.
	hooks *hookTenants
	// reads reads the rows' delivery rows and tenant names (sortjoin.StoreReads, or an
	// export's sorted join).
	reads rowReads
}

// full reports whether one more key than the page holds has been seen, which
// is how the page knows that a next one exists.
func (s *dlqScan) full() bool { return s.opt.Limit > 0 && len(s.keys) > s.opt.Limit }

// took records a key just taken into the page (see shownScanned).
func (s *dlqScan) took(scanned, strays int64) {
	if !s.full() {
		s.shownScanned, s.shownStrays = scanned, strays
	}
}

// keep reports whether a key passes the filters that do not need a read;
// done is set when the walk has passed below --since.
func (s *dlqScan) keep(k format.DeadKey) (keep, done bool) {
	if !s.opt.Since.IsZero() && k.At < uint64(s.opt.Since.UnixMilli()) {
		return false, true
	}
	if s.opt.Sink != nil && k.Sink != *s.opt.Sink {
		return false, false
	}
	return true, false
}

// upper is the exclusive upper bound of the walk: none (nil: from the newest key),
// or --until, or the cursor, whichever is lower. prefix is what leads the
// family's keys before `at` ("x", or "X" and the ordinal).
func (s *dlqScan) upper(prefix []byte) []byte {
	var hi []byte
	if !s.opt.Until.IsZero() {
		hi = binary.BigEndian.AppendUint64(bytes.Clone(prefix), uint64(s.opt.Until.UnixMilli()))
	}
	if c := s.opt.After; c != nil {
		k := binary.BigEndian.AppendUint64(bytes.Clone(prefix), c.At)
		k = binary.BigEndian.AppendUint64(k, c.Seq)
		k = binary.BigEndian.AppendUint16(k, c.Sink)
		if hi == nil || bytes.Compare(k, hi) < 0 {
			hi = k
		}
	}
	return hi
}

// firstChunk sizes the walk's first chunk to the page: a page of 50 should
// not copy thousands of keys out of the store before it can stop.
func (s *dlqScan) firstChunk() int {
	if s.opt.Limit > 0 && s.opt.Sink == nil {
		return s.opt.Limit + 2
	}
	return walk.FirstChunk
}

// finish cuts the page to Limit, sets its cursor and sums up its problems.
func (s *dlqScan) finish() {
	if s.full() {
		s.rows = s.rows[:s.opt.Limit]
		last := s.keys[s.opt.Limit-1]
		s.page.NextCursor = dlqCursorFor(last, s.opt.Tenant.ID).String()
	}
	s.page.Rows = append(s.page.Rows, s.rows...)
	var problems int64
	for _, r := range s.page.Rows {
		if len(r.Problems) > 0 {
			problems++
		}
	}
	if problems > 0 {
		s.notes.warn("%d %s on this page %s problems (see the problems field; run counters verify)", problems,
			words.Plural(problems, "row", "rows"), words.Plural(problems, "has", "have"))
	}
	if s.strays > 0 {
		s.notes.warn("%d dead-letter index %s did not decode and %s skipped", s.strays,
			words.Plural(s.strays, "key", "keys"), words.Plural(s.strays, "was", "were"))
	}
	s.page.Notes = append([]ViewNote{}, s.notes...)
}

// dlqNewRow starts the row of a key; the joins fill in the rest.
func dlqNewRow(k format.DeadKey) DLQRow {
	return DLQRow{DeadAt: viewTime(k.At), AtMS: k.At, At: k.At, Seq: k.Seq, Sink: k.Sink, Ref: dlqRefOf(k.Seq, k.Sink)}
}

// joinDeliveries fills size, attempts and last error from the delivery rows,
// one multi-get for the page.
func (s *dlqScan) joinDeliveries() error {
	n := min(len(s.rows), s.pageLen())
	if n == 0 {
		return nil
	}
	keys := make([][]byte, n)
	for i := 0; i < n; i++ {
		keys[i] = format.DeliveryKey{Seq: s.rows[i].Seq, Sink: s.rows[i].Sink}.Encode()
	}
	vals, found, err := s.reads.Get(format.CFDeliveries, keys)
	if err != nil || s.reads.Plans() {
		return err
	}
	for i := 0; i < n; i++ {
		r := &s.rows[i]
		if !found[i] {
			r.Problems = append(r.Problems, "no delivery row (size and last error unknown)")
			continue
		}
		d, err := s.opt.Values.DecodeDelivery(vals[i])
		if err != nil {
			r.Problems = append(r.Problems, "delivery row does not decode: "+err.Error())
			continue
		}
		r.Size, r.Attempts = d.Size, d.Attempts
		if !d.LastErrorNil {
			e := string(d.LastError)
			r.LastError = &e
		}
		if d.Status != "" && d.Status != format.StatusDead {
			r.Problems = append(r.Problems, fmt.Sprintf("delivery row status is %s, not dead", d.Status))
		}
	}
	return nil
}

// pageLen is how many of the collected rows the page shows.
func (s *dlqScan) pageLen() int {
	if s.opt.Limit > 0 {
		return min(len(s.rows), s.opt.Limit)
	}
	return len(s.rows)
}
