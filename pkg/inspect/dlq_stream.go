package inspect

import (
	"context"

	"github.com/ankusa/ankusa-store/internal/reporting"
	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// dlq scan --limit 0 lists the whole dead-letter queue: at 10^6 dead rows a
// page built whole, and then encoded whole, was 1.7 GB. StreamDLQ reads the
// same rows page by page, as ExportDLQ does (each page continues below the
// last one's cursor, so it is the same walk and the same joins), and hands
// each row on as it is read: what it holds is one page, whatever the queue's
// length.

// dlqStreamMin is the longest listing built as one page; a longer one is
// streamed.
const dlqStreamMin = 1024

// dlqStreamPage is how many rows StreamDLQ reads at a time, as many as an
// export's pages (dlqExportPage): each page's walk is a new iterator placed
// below the last page's key, which with the tables' indexes in the block
// cache (a joined listing's) read them again each time. (The tests page by a
// few rows: DLQOptions.sizes.)
const dlqStreamPage = 4096

// DLQStreamable reports whether a listing of limit rows is worth streaming:
// one longer than dlqStreamMin, or everything.
func DLQStreamable(limit int) bool { return limit == 0 || limit > dlqStreamMin }

// StreamDLQ lists what ScanDLQ lists for opt, in the same order, with the
// same numbers and notes: begin gets the page's head (Format, Tenant, Ord)
// before the first row, each every row in turn (its own), and the page
// returned holds the rest (NextCursor, Scanned, Notes) with no Rows. On
// format 3 a long listing reads its rows' delivery rows and tenant names as
// the export does, as a sorted join (opt.Join; startJoin), where a
// page's multi-gets at random were 18x the raw read of the same families at
// 10^7 rows.
func StreamDLQ(ctx context.Context, st *rocks.Store, opt DLQOptions, begin func(head *DLQPage) error, each func(r *DLQRow) error) (*DLQPage, error) {
	var (
		notes    viewNotes
		seen     = map[string]bool{}
		read     int64
		problems int64
		strays   int64
		scanned  int64
		head     *DLQPage
	)
	page := orOwn(opt.sizes.page, dlqStreamPage)
	pr, err := openPageReads(ctx, st, opt.Join, joinForScan.with(opt.sizes.join), pagesWalk(st, opt, page, nil), reporting.Or(nil), &notes, opt.Lookups)
	if err != nil {
		return nil, err
	}
	defer pr.close()
	opt.hear.streamJoined(pr.join != nil)
	for _, n := range notes {
		seen[n.Text] = true
	}
	hooks := pr.hooks
	err = pagesWalk(pr.st, opt, page, hooks)(ctx, pr.reads, func(s *dlqScan, rows []DLQRow, last bool) error {
		if head == nil {
			head = &DLQPage{Format: s.page.Format, Tenant: s.page.Tenant, Ord: s.page.Ord, Rows: []DLQRow{}}
			if err := begin(head); err != nil {
				return err
			}
		}
		for _, n := range s.notes {
			if !seen[n.Text] {
				seen[n.Text] = true
				notes = append(notes, n)
			}
		}
		for i := range rows {
			if len(rows[i].Problems) > 0 {
				problems++
			}
			if err := each(&rows[i]); err != nil {
				return err
			}
		}
		read += int64(len(rows))
		switch {
		case !s.full():
			strays += s.strays
			scanned += s.page.Scanned
		case last:
			// The page ScanDLQ would have built ends here, with a next one.
			strays += s.strays
			scanned += s.page.Scanned
			head.NextCursor = dlqCursorFor(s.keys[len(rows)-1], opt.Tenant.ID).String()
		default:
			strays += s.shownStrays
			scanned += s.shownScanned
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	pr.noteByKey(&notes, joinForScan)
	// The notes ScanDLQ's finish and hookNotes give its one page, summed over ours.
	s := &dlqScan{opt: opt, notes: notes, hooks: hooks}
	s.hookNotes(read)
	notes = s.notes
	if problems > 0 {
		notes.warn("%d %s on this page %s problems (see the problems field; run counters verify)", problems,
			words.Plural(problems, "row", "rows"), words.Plural(problems, "has", "have"))
	}
	if strays > 0 {
		notes.warn("%d dead-letter index %s did not decode and %s skipped", strays,
			words.Plural(strays, "key", "keys"), words.Plural(strays, "was", "were"))
	}
	head.Scanned = scanned
	head.Notes = append([]ViewNote{}, notes...)
	return head, nil
}
