package inspect

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
)

// Paging through any listing with its cursor yields exactly the model's rows:
// the dead rows of the case that pass the filters, newest first by (at, seq,
// sink), each once. The cases share one store per format, each with its own
// tenants and its own stretch of time, so the other cases' rows are around.
func TestScanDLQPagesAreTheModel(t *testing.T) {
	for _, f := range []uint32{format.Format3, format.Format2} {
		t.Run(fmt.Sprintf("format%d", f), func(t *testing.T) {
			s := storetest.NewQueue(t, f)
			st := s.OpenLive()
			n := 0
			rapid.Check(t, func(rt *rapid.T) {
				n++
				prefix := fmt.Sprintf("c%d-", n)
				// Each case lives in its own day, so that an unscoped
				// window sees only its rows.
				day := storetest.QueueMS(time.Duration(n) * 24 * time.Hour)
				tenant := rapid.SampledFrom([]string{"a", "b", "c"})
				type row struct {
					k      format.DeadKey
					tenant string
				}
				var rows []row
				for i, m := 0, rapid.IntRange(0, 30).Draw(rt, "rows"); i < m; i++ {
					r := row{k: format.DeadKey{
						At:   day + rapid.Uint64Range(0, 20).Draw(rt, "at"), // collisions on purpose
						Seq:  s.NextSeq(),
						Sink: uint16(rapid.IntRange(1, 3).Draw(rt, "sink")),
					}, tenant: prefix + tenant.Draw(rt, "tenant")}
					s.Dead(r.tenant, r.k.At, r.k.Seq, r.k.Sink, 1, "e")
					rows = append(rows, r)
				}
				s.Commit()

				opt := DLQOptions{Limit: rapid.IntRange(0, 7).Draw(rt, "limit")}
				if rapid.Bool().Draw(rt, "scoped") {
					opt.Tenant = scopeOf(rt, st, prefix+tenant.Draw(rt, "scope"))
				}
				// Unscoped listings are held to the case's day.
				since := day + rapid.Uint64Range(0, 10).Draw(rt, "since")
				until := day + rapid.Uint64Range(11, 25).Draw(rt, "until")
				if opt.Tenant.IsZero() || rapid.Bool().Draw(rt, "window") {
					opt.Since, opt.Until = viewTime(since), viewTime(until)
				} else {
					since, until = 0, 1<<62
				}
				if rapid.Bool().Draw(rt, "bySink") {
					sink := uint16(rapid.IntRange(1, 3).Draw(rt, "sinkFilter"))
					opt.Sink = &sink
				}

				var want []format.DeadKey
				for _, r := range rows {
					if (opt.Tenant.IsZero() || r.tenant == opt.Tenant.ID) && r.k.At >= since && r.k.At < until &&
						(opt.Sink == nil || r.k.Sink == *opt.Sink) {
						want = append(want, r.k)
					}
				}
				slices.SortFunc(want, func(a, b format.DeadKey) int { return -slices.Compare(a.Encode(), b.Encode()) })
				got := dlqKeys(dlqAll(t, st, opt))
				if !slices.Equal(got, want) {
					rt.Fatalf("options %+v:\n got %v\nwant %v", opt, got, want)
				}
			})
		})
	}
}
