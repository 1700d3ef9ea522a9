package inspect

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

func exportAll(t *testing.T, st *rocks.Store, opt DLQExportOptions) ([]*DLQExportRow, *DLQExportSummary) {
	t.Helper()
	var rows []*DLQExportRow
	sum, err := ExportDLQ(context.Background(), st, opt, func(r *DLQExportRow) error {
		rows = append(rows, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Exported != int64(len(rows)) {
		t.Fatalf("summary says %d exported, fn saw %d", sum.Exported, len(rows))
	}
	return rows, sum
}

// An export is every row dlq scan lists, in its order, whatever the page size
// (a page boundary inside one millisecond included), each with its hook.
func TestExportDLQIsTheScan(t *testing.T) {
	for _, f := range []uint32{format.Format3, format.Format2} {
		st, _, owner := dlqFixture(t, f)
		for _, tenant := range []string{"", "acme", format.DefaultTenant} {
			want := dlqAll(t, st, DLQOptions{Tenant: scopeOf(t, st, tenant)})
			for _, page := range []int{1, 2, 7, 1024} {
				for _, limit := range []int{0, 5} {
					t.Run(fmt.Sprintf("format%d/tenant=%s/page=%d/limit=%d", f, tenant, page, limit), func(t *testing.T) {
						rows, sum := exportAll(t, st, DLQExportOptions{Tenant: scopeOf(t, st, tenant), Limit: limit, sizes: dlqSizes{page: page}})
						w := want
						if limit > 0 {
							w = w[:min(limit, len(w))]
						}
						if len(rows) != len(w) {
							t.Fatalf("exported %d rows, the scan lists %d", len(rows), len(w))
						}
						for i, r := range rows {
							s := w[i]
							if r.Ref != s.Ref || r.At != s.At || r.Tenant != s.Tenant || r.SourceID != s.SourceID || r.HookID != s.HookID ||
								r.Size != s.Size || r.Attempts != s.Attempts || *r.LastError != *s.LastError || (r.Ord == nil) != (s.Ord == nil) {
								t.Fatalf("row %d: %+v, the scan's %+v", i, r, s)
							}
							if h := r.Hook; h == nil || h.Error != "" || h.ID != r.HookID || h.SourceID != "src-"+owner[format.DeadKey{At: r.At, Seq: r.Seq, Sink: r.Sink}] {
								t.Fatalf("row %d: hook %+v", i, r.Hook)
							}
							if len(r.Problems) != 0 {
								t.Errorf("row %d: problems %q", i, r.Problems)
							}
						}
						for _, n := range sum.Notes {
							if n.Warning {
								t.Errorf("warning %q", n.Text)
							}
						}
					})
				}
			}
		}
	}
}

// What a page says once is said once for the export: the hook reads of a
// format 2 --tenant export are counted over every page.
func TestExportDLQNotesOnce(t *testing.T) {
	st, _, _ := dlqFixture(t, format.Format2)
	_, sum := exportAll(t, st, DLQExportOptions{Tenant: scopeOf(t, st, "acme"), sizes: dlqSizes{page: 2}})
	var hookNotes []string
	for _, n := range sum.Notes {
		if strings.Contains(n.Text, "read the hook of every dead row") {
			hookNotes = append(hookNotes, n.Text)
		}
	}
	if len(hookNotes) != 1 || !strings.Contains(hookNotes[0], "(31 hooks read)") {
		t.Errorf("notes %q, want one note of the 31 hooks read", hookNotes)
	}
}

// A dead letter whose hook or delivery row is gone is exported with what is
// there, and says what is missing; the summary warns once.
func TestExportDLQProblems(t *testing.T) {
	s := storetest.NewQueue(t, format.Format3)
	s.Dead("acme", storetest.QueueMS(-time.Minute), 1, 1, 10, "a")
	s.Dead("acme", storetest.QueueMS(-2*time.Minute), 2, 1, 20, "b")
	s.Dead("acme", storetest.QueueMS(-3*time.Minute), 3, 1, 30, "c")
	s.B.Delete(format.CFHooks, format.HookKey{Seq: 1}.Encode())
	s.B.Delete(format.CFDeliveries, format.DeliveryKey{Seq: 2, Sink: 1}.Encode())
	rows, sum := exportAll(t, s.Open(), DLQExportOptions{})
	if len(rows) != 3 {
		t.Fatalf("%d rows", len(rows))
	}
	if r := rows[0]; r.Hook == nil || r.Hook.Error != "missing" || !slices.Contains(r.Problems, "the hook is missing") || r.Size != 10 {
		t.Errorf("row without its hook: %+v", r)
	}
	if r := rows[1]; r.Hook == nil || r.Hook.Error != "" || r.Size != 0 || len(r.Problems) != 1 || !strings.Contains(r.Problems[0], "no delivery row") {
		t.Errorf("row without its delivery row: %+v", r)
	}
	if r := rows[2]; len(r.Problems) != 0 || r.Hook.BodyBytes != 0 || r.Hook.BodyText == nil {
		t.Errorf("whole row: %+v", r)
	}
	if len(sum.Notes) != 1 || !sum.Notes[0].Warning || !strings.Contains(sum.Notes[0].Text, "2 exported dead letters have problems") {
		t.Errorf("notes %+v", sum.Notes)
	}
}

// A consumer that stops (a closed pipe) stops the reader ahead of it, and
// ExportDLQ returns only once the reader is done with the store.
func TestExportDLQConsumerStops(t *testing.T) {
	st, _, _ := dlqFixture(t, format.Format3)
	stop := errors.New("reader gone")
	n := 0
	_, err := ExportDLQ(context.Background(), st, DLQExportOptions{sizes: dlqSizes{page: 2}}, func(*DLQExportRow) error {
		if n++; n == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 3 {
		t.Fatalf("got %v after %d rows, want the consumer's error after 3", err, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ExportDLQ(ctx, st, DLQExportOptions{}, func(*DLQExportRow) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled export: %v", err)
	}
}
