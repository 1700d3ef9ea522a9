package inspect

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ankusa/ankusa-store/internal/reporting"
	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/sortjoin"
	"github.com/ankusa/ankusa-store/pkg/store"
)

// DLQExportOptions select the dead letters ExportDLQ hands on: those of
// one tenant or all, newest first, as dlq scan selects them.
type DLQExportOptions struct {
	// Tenant is one tenant, resolved (tenant.Resolve); the zero Tenant exports every one.
	Tenant       format.Tenant
	Since, Until time.Time
	Sink         *uint16
	// Limit is the most dead letters exported; 0 is all.
	Limit int
	// Join is how the rows' delivery rows and hooks are read.
	Join ExportJoin
	// Lookups, when set, is the store as opened, which an export that reads
	// its rows by key from a store opened with its tables' indexes in the
	// block cache opens again with them on the heap
	// (rocks.Options.RandomLookups); the handle's Close closes both.
	Lookups *store.Handle
	// Progress hears the phases of a sorted join (ExportJoinPlan,
	// ExportJoinGather), then ExportPhaseRows once rows are handed on; it
	// counts nothing (the caller counts the rows it writes).
	Progress reporting.Reporter
	// Values reads the dead values, delivery rows and hooks (the zero value,
	// the tool's own, reads them in place; a test chooses the whole decode to
	// compare the two).
	Values format.ValueReader

	// sizes, for tests, are the export's pages, its bounds in bytes and its
	// join's sizes (the zero value: the tool's own).
	sizes dlqSizes
	// hear, for tests, hears the export's groups of hooks and parts of rows.
	hear dlqListeners
}

// The phases an export reports (DLQExportOptions.Progress).
const (
	ExportJoinPlan   = sortjoin.PhasePlan
	ExportJoinGather = sortjoin.PhaseGather
	ExportPhaseRows  = "rows"
)

// ExportJoin is how an export reads the delivery rows and hooks of its dead
// letters: by key in the export's order, or by a sorted join
// (pkg/sortjoin). Both write the same lines.
type ExportJoin int

const (
	// ExportJoinAuto joins a large export on format 3 and reads a small one by key.
	ExportJoinAuto ExportJoin = iota
	// ExportJoinSorted joins whatever the export's size (on format 3).
	ExportJoinSorted
	// ExportJoinByKey reads every row by key.
	ExportJoinByKey
)

// DLQExportRow is one dead letter as dlq export writes it: one line of its
// JSON Lines, the dead row with its delivery row (as dlq scan shows them)
// and the hook that carries the payload (as dlq show shows it). The export is
// exact: a text field whose bytes are not UTF-8 (JSON would carry U+FFFD in
// place of each bad byte, so that two different values read the same) has a
// twin NAME_hex with its bytes in hex, and is named in problems
// (dlq_export_bytes.go); the body is body_text or body_hex, as in dlq show.
type DLQExportRow struct {
	Ref    string    `json:"ref"` // SEQ:SINK, what dlq show takes
	Seq    uint64    `json:"seq"`
	Sink   uint16    `json:"sink"`
	DeadAt time.Time `json:"dead_at"`
	AtMS   uint64    `json:"at_ms"` // DeadAt in milliseconds, as in the key
	At     uint64    `json:"at" jsondoc:"deprecated: the same as at_ms; removed in a later release"`
	Tenant string    `json:"tenant"`
	// TenantHex and the other _hex twins are there only when the text is not
	// UTF-8: its bytes, in hex.
	TenantHex   string  `json:"tenant_hex,omitempty"`
	Ord         *uint32 `json:"ord"` // null on format 2
	SourceID    string  `json:"source_id"`
	SourceIDHex string  `json:"source_id_hex,omitempty"`
	HookID      string  `json:"hook_id"`
	HookIDHex   string  `json:"hook_id_hex,omitempty"`
	// Size, Attempts and LastError come from the delivery row (zero, and a
	// problem, when it is missing or does not decode).
	Size         uint64  `json:"size"`
	Attempts     int64   `json:"attempts"`
	LastError    *string `json:"last_error"`
	LastErrorHex string  `json:"last_error_hex,omitempty"`
	// Hook is the hook envelope: received_at, headers and body (text when it
	// is UTF-8, else hex); its error says why it is missing or unreadable.
	Hook     *HookDetail `json:"hook"`
	Problems []string    `json:"problems"`
}

// DLQExportSummary is what an export has to say after its rows.
type DLQExportSummary struct {
	Exported int64
	Notes    []ViewNote
	// Joined: the rows' delivery rows and hooks were read by the sorted join.
	Joined bool
}

// dlqExportPage is how many dead letters an export reads at a time: each page
// is one walk of the index and three multi-gets (delivery rows, tenant names,
// hooks), and what it holds is all an export holds, whatever the queue's
// length. Each walk is a new iterator placed below the last page's key: at
// 1,024 a page, those placings were 6% of an export of 10^7 rows (each pass
// 2,583 of them); at 4,096 the export takes 9% less CPU and some 10 MiB more.
// (The tests page by a few rows: DLQExportOptions.sizes.)
const dlqExportPage = 4096

// A page is bounded in bytes too, for rows far larger than a node's usual
// (hooks of 100 KB, tenant ids of a MiB): its hooks are read in groups of
// about dlqExportReadBytes (sortjoin.ByteGroups), and its rows handed on in parts of
// about dlqExportPartBytes, of which the export holds three (the one being
// written, the one waiting, the one being read). Rows of a few KB fill a
// page long before either. (The tests make them a few bytes:
// DLQExportOptions.sizes.)
const (
	dlqExportReadBytes = 8 << 20
	dlqExportPartBytes = 16 << 20
)

// ExportDLQ hands every dead letter that opt selects to fn, newest first,
// page by page as ScanDLQ reads them (the same walks and joins, one page
// continuing below the last), with the hook of each read by one multi-get a
// page. Memory is a few pages', whatever the number of dead letters: the next
// page is read and decoded on its own goroutine while fn has this one, which
// on a machine with a core to spare halves the time of a large export. fn's
// row is its own. The notes are those of the pages, said once for the whole
// export.
func ExportDLQ(ctx context.Context, st *rocks.Store, opt DLQExportOptions, fn func(*DLQExportRow) error) (*DLQExportSummary, error) {
	if opt.Limit < 0 {
		return nil, fmt.Errorf("limit must be >= 0, got %d", opt.Limit)
	}
	r := &dlqExportReader{st: st, opt: opt, pages: make(chan dlqExportPageRows, 1), quit: make(chan struct{})}
	go r.run(ctx)
	defer func() {
		close(r.quit)
		for range r.pages {
			// Until the reader has stopped: the store is closed after we return.
		}
	}()
	sum := &DLQExportSummary{}
	for p := range r.pages {
		if p.err != nil {
			return nil, p.err
		}
		for i := range p.rows {
			if err := fn(&p.rows[i]); err != nil {
				return nil, err
			}
			sum.Exported++
		}
	}
	// The reader closed pages after its last writes to notes and joined.
	sum.Notes, sum.Joined = append([]ViewNote{}, r.notes...), r.joined
	return sum, nil
}

// dlqExportPageRows is one page of an export, or the error that ended it.
type dlqExportPageRows struct {
	rows []DLQExportRow
	err  error
}

// dlqExportReader reads an export's pages ahead of its consumer.
type dlqExportReader struct {
	st     *rocks.Store
	opt    DLQExportOptions
	pages  chan dlqExportPageRows // closed after the last page (or an error)
	quit   chan struct{}          // closed when the consumer stops
	notes  viewNotes              // set before pages is closed
	joined bool                   // likewise
}

func (r *dlqExportReader) run(ctx context.Context) {
	defer close(r.pages)
	send := func(p dlqExportPageRows) bool {
		select {
		case r.pages <- p:
			return true
		case <-r.quit:
			return false
		}
	}
	var notes viewNotes
	rep := reporting.Or(r.opt.Progress)
	pr, err := openPageReads(ctx, r.st, r.opt.Join, joinForExport.with(r.opt.sizes.join), r.walker(nil), rep, &notes, r.opt.Lookups)
	if err != nil {
		send(dlqExportPageRows{err: err})
		return
	}
	defer pr.close()
	r.st, r.joined = pr.st, pr.join != nil
	reads, hooks := pr.reads, pr.hooks
	rep.Phase(ExportPhaseRows)
	seen := map[string]bool{}
	for _, n := range notes {
		seen[n.Text] = true
	}
	var read, problems, strays int64
	hookGroup := sortjoin.ByteGroups{Budget: orOwn(r.opt.sizes.readBytes, dlqExportReadBytes)}
	partBytes := orOwn(r.opt.sizes.partBytes, dlqExportPartBytes)
	err = r.walker(hooks)(ctx, reads, func(s *dlqScan, rows []DLQRow, last bool) error {
		for _, n := range s.notes {
			if !seen[n.Text] {
				seen[n.Text] = true
				notes = append(notes, n)
			}
		}
		strays += s.strays
		// The page's rows are handed on in parts of about dlqExportPartBytes,
		// their hooks read in groups of about dlqExportReadBytes: a page of
		// 4,096 rows whose hooks were 100 KB each was 400 MB read and twice
		// that decoded, three pages at once.
		var out []DLQExportRow
		outBytes := 0
		for i := 0; i < len(rows); {
			n := hookGroup.Size(len(rows)-i, func(k int) uint64 { return rows[i+k].Size })
			hookRows, err := dlqExportHooks(reads, rows[i:i+n], r.opt.Values)
			if err != nil {
				return err
			}
			groupBytes := 0
			for k := range hookRows {
				e := dlqExportRowOf(&rows[i+k], hookRows[k].dlqExportHook)
				if len(e.Problems) > 0 {
					problems++
				}
				b := hookRows[k].bytes + dlqRowBytes(&rows[i+k])
				hookGroup.Saw(b)
				groupBytes += b
				if out == nil {
					out = make([]DLQExportRow, 0, min(len(rows)-i-k, max(1, partBytes/max(1, b))))
				}
				out, outBytes = append(out, e), outBytes+b
				if outBytes >= partBytes && i+k+1 < len(rows) {
					r.opt.hear.exportPart(len(out), outBytes)
					if !send(dlqExportPageRows{rows: out}) {
						return errExportQuit
					}
					out, outBytes = nil, 0
				}
			}
			r.opt.hear.exportGroup(n, groupBytes)
			i += n
		}
		r.opt.hear.exportPart(len(out), outBytes)
		read += int64(len(rows))
		if last {
			pr.noteByKey(&notes, joinForExport)
			s.notes, s.hooks = notes, hooks
			s.hookNotes(read)
			notes = s.notes
			if problems > 0 {
				notes.warn("%d exported dead %s %s problems (see the problems field; run counters verify)", problems,
					words.Plural(problems, "letter", "letters"), words.Plural(problems, "has", "have"))
			}
			if strays > 0 {
				notes.warn("%d dead-letter index %s did not decode and %s skipped", strays,
					words.Plural(strays, "key", "keys"), words.Plural(strays, "was", "were"))
			}
			r.notes = notes
		}
		if len(out) > 0 && !send(dlqExportPageRows{rows: out}) {
			return errExportQuit
		}
		return nil
	})
	if err != nil && err != errExportQuit {
		send(dlqExportPageRows{err: err})
	}
}

// errExportQuit ends an export's walk once its consumer has stopped.
var errExportQuit = errors.New("inspect: the export's consumer stopped")

// dlqExportWalk walks an export's pages, newest first, reading the rows'
// delivery rows by reads: page gets each page's scan, its rows, and whether
// it is the last.
type dlqExportWalk func(ctx context.Context, reads rowReads, page func(s *dlqScan, rows []DLQRow, last bool) error) error

// walker is the walk of r's selection, in pages of dlqExportPage (or the
// test's).
func (r *dlqExportReader) walker(hooks *hookTenants) dlqExportWalk {
	opt := r.opt
	return pagesWalk(r.st, DLQOptions{Tenant: opt.Tenant, Since: opt.Since, Until: opt.Until, Sink: opt.Sink, Limit: opt.Limit, Values: opt.Values, sizes: opt.sizes},
		orOwn(opt.sizes.page, dlqExportPage), hooks)
}

// pagesWalk is the walk of opt's selection (from opt.After, up to opt.Limit
// rows, 0 for all) page by page as ScanDLQ pages, each of size rows and
// continuing below the last: an export's, and a streamed scan's.
func pagesWalk(st *rocks.Store, opt DLQOptions, size int, hooks *hookTenants) dlqExportWalk {
	return func(ctx context.Context, reads rowReads, page func(s *dlqScan, rows []DLQRow, last bool) error) error {
		var read int64
		after := opt.After
		for {
			n := size
			if opt.Limit > 0 {
				n = min(n, opt.Limit-int(read))
			}
			o := opt
			o.Limit, o.After = n, after
			s, err := scanDLQ(ctx, st, o, hooks, reads)
			if err != nil {
				return err
			}
			rows := s.rows[:s.pageLen()]
			read += int64(len(rows))
			last := !s.full() || (opt.Limit > 0 && read >= int64(opt.Limit))
			if err := page(s, rows, last); err != nil || last {
				return err
			}
			c := dlqCursorFor(s.keys[n-1], opt.Tenant.ID)
			after = &c
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
}

// dlqExportHook is one row's hook as read.
type dlqExportHook struct {
	hd       *HookDetail
	problems []string
}

// dlqExportHookRead is a row's hook as read, with what it holds in memory
// once decoded: about twice its value (the value, then its text or hex).
type dlqExportHookRead struct {
	dlqExportHook
	bytes int
}

// dlqExportHooks reads the hooks of rows, by key as reads has them, and
// their values as vr does.
func dlqExportHooks(reads rowReads, rows []DLQRow, vr format.ValueReader) ([]dlqExportHookRead, error) {
	out := make([]dlqExportHookRead, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	keys := dlqHookKeys(rows)
	vals, found, err := reads.Get(format.CFHooks, keys)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		out[i].hd, out[i].problems = hookDetailOf(vr, keys[i], vals[i], found[i], nil, rows[i].HookID)
		out[i].bytes = 2 * len(vals[i])
	}
	return out, nil
}

// dlqHookKeys are the keys of rows' hooks, in the rows' order.
func dlqHookKeys(rows []DLQRow) [][]byte {
	keys := make([][]byte, len(rows))
	for i := range rows {
		keys[i] = format.HookKey{Seq: rows[i].Seq}.Encode()
	}
	return keys
}

func dlqExportRowOf(r *DLQRow, h dlqExportHook) DLQExportRow {
	e := DLQExportRow{Ref: r.Ref, Seq: r.Seq, Sink: r.Sink, DeadAt: r.DeadAt, AtMS: r.At, At: r.At, Tenant: r.Tenant, Ord: r.Ord,
		SourceID: r.SourceID, HookID: r.HookID, Size: r.Size, Attempts: r.Attempts, LastError: r.LastError,
		Problems: make([]string, 0, len(r.Problems)+len(h.problems))}
	e.Hook = h.hd
	e.Problems = append(append(e.Problems, r.Problems...), h.problems...)
	e.Problems = e.exactBytes(e.Problems)
	return e
}

// dlqRowBytes is about what a dead letter's row holds beside its hook: its
// text fields and the row itself.
func dlqRowBytes(r *DLQRow) int {
	n := 256 + len(r.Tenant) + len(r.SourceID) + len(r.HookID) + len(r.Ref)
	if r.LastError != nil {
		n += len(*r.LastError)
	}
	for _, p := range r.Problems {
		n += len(p)
	}
	return n
}
