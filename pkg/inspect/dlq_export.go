package inspect

import (
	"context"
	"fmt"
	"time"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// DLQExportOptions select the dead letters ExportDLQ hands on: those of
// one tenant or all, newest first, as dlq scan selects them.
type DLQExportOptions struct {
	Tenant       string
	Since, Until time.Time
	Sink         *uint16
	// Limit is the most dead letters exported; 0 is all.
	Limit int
}

// DLQExportRow is one dead letter as dlq export writes it: one line of its
// JSON Lines, the dead row with its delivery row (as dlq scan shows them)
// and the hook that carries the payload (as dlq show shows it).
type DLQExportRow struct {
	Ref      string    `json:"ref"` // SEQ:SINK, what dlq show takes
	Seq      uint64    `json:"seq"`
	Sink     uint16    `json:"sink"`
	DeadAt   time.Time `json:"dead_at"`
	At       uint64    `json:"at"` // DeadAt in milliseconds, as in the key
	Tenant   string    `json:"tenant"`
	Ord      *uint32   `json:"ord"` // null on format 2
	SourceID string    `json:"source_id"`
	HookID   string    `json:"hook_id"`
	// Size, Attempts and LastError come from the delivery row (zero, and a
	// problem, when it is missing or does not decode).
	Size      uint64  `json:"size"`
	Attempts  int64   `json:"attempts"`
	LastError *string `json:"last_error"`
	// Hook is the hook envelope: received_at, headers and body (text when it
	// is UTF-8, else hex); its error says why it is missing or unreadable.
	Hook     *HookDetail `json:"hook"`
	Problems []string    `json:"problems"`
}

// DLQExportSummary is what an export has to say after its rows.
type DLQExportSummary struct {
	Exported int64
	Notes    []ViewNote
}

// dlqExportPage is how many dead letters an export reads at a time: each page
// is one walk of the index and three multi-gets (delivery rows, tenant names,
// hooks), and what it holds is all an export holds, whatever the queue's
// length. (A variable: the tests page by a few rows.)
var dlqExportPage = 1024

// ExportDLQ hands every dead letter that opt selects to fn, newest first,
// page by page as ScanDLQ reads them (the same walks and joins, one page
// continuing below the last), with the hook of each read by one multi-get a
// page. Memory is a page's, whatever the number of dead letters. fn's row is
// its own. The notes are those of the pages, said once for the whole export.
func ExportDLQ(ctx context.Context, st *rocks.Store, opt DLQExportOptions, fn func(*DLQExportRow) error) (*DLQExportSummary, error) {
	if opt.Limit < 0 {
		return nil, fmt.Errorf("limit must be >= 0, got %d", opt.Limit)
	}
	sum := &DLQExportSummary{}
	var hooks *hookTenants
	if st.Format == format.Format2 {
		// One cache for all pages, so that the hook-read note counts them all.
		hooks = newHookTenants(st.DB)
	}
	var notes viewNotes
	seen := map[string]bool{}
	var problems, strays int64
	var after *DLQCursor
	for {
		page := dlqExportPage
		if opt.Limit > 0 {
			page = min(page, opt.Limit-int(sum.Exported))
		}
		s, err := scanDLQ(ctx, st, DLQOptions{Tenant: opt.Tenant, Since: opt.Since, Until: opt.Until, Sink: opt.Sink,
			Limit: page, After: after}, hooks)
		if err != nil {
			return nil, err
		}
		for _, n := range s.notes {
			if !seen[n.Text] {
				seen[n.Text] = true
				notes = append(notes, n)
			}
		}
		strays += s.strays
		rows := s.rows[:s.pageLen()]
		hookRows, err := dlqExportHooks(st.DB, rows)
		if err != nil {
			return nil, err
		}
		for i := range rows {
			r := dlqExportRowOf(&rows[i], hookRows[i])
			if len(r.Problems) > 0 {
				problems++
			}
			if err := fn(r); err != nil {
				return nil, err
			}
			sum.Exported++
		}
		if !s.full() || (opt.Limit > 0 && sum.Exported >= int64(opt.Limit)) {
			s.notes = notes
			s.hooks = hooks
			s.hookNotes(sum.Exported)
			notes = s.notes
			break
		}
		c := dlqCursorFor(s.keys[page-1], opt.Tenant)
		after = &c
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	if problems > 0 {
		notes.warn("%d exported dead %s %s problems (see the problems field; run counters verify)", problems,
			viewPlural(problems, "letter", "letters"), viewPlural(problems, "has", "have"))
	}
	if strays > 0 {
		notes.warn("%d dead-letter index %s did not decode and %s skipped", strays,
			viewPlural(strays, "key", "keys"), viewPlural(strays, "was", "were"))
	}
	sum.Notes = append([]ViewNote{}, notes...)
	return sum, nil
}

// dlqExportHook is one row's hook as read.
type dlqExportHook struct {
	hd       *HookDetail
	problems []string
}

// dlqExportHooks reads the hooks of a page's rows with one multi-get.
func dlqExportHooks(db *rocks.DB, rows []DLQRow) ([]dlqExportHook, error) {
	out := make([]dlqExportHook, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	keys := make([][]byte, len(rows))
	for i := range rows {
		keys[i] = format.HookKey{Seq: rows[i].Seq}.Encode()
	}
	vals, found, err := db.MultiGet(format.CFHooks, keys)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		out[i].hd, out[i].problems = hookDetailOf(keys[i], vals[i], found[i], nil, rows[i].HookID)
	}
	return out, nil
}

func dlqExportRowOf(r *DLQRow, h dlqExportHook) *DLQExportRow {
	e := &DLQExportRow{Ref: r.Ref, Seq: r.Seq, Sink: r.Sink, DeadAt: r.DeadAt, At: r.At, Tenant: r.Tenant, Ord: r.Ord,
		SourceID: r.SourceID, HookID: r.HookID, Size: r.Size, Attempts: r.Attempts, LastError: r.LastError,
		Hook: h.hd, Problems: make([]string, 0, len(r.Problems)+len(h.problems))}
	e.Problems = append(append(e.Problems, r.Problems...), h.problems...)
	return e
}
