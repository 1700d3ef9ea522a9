package inspect

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// buildDeadHooksStore writes dead dead rows over 1000 tenants as
// buildDeadStore does, each with its hook (headers and a body of 256 to 767
// bytes, as bench/migrategen writes them): what dlq export reads, which the
// other views' stores leave out. Kept as "dead-hooks-N" beside them
// (ANKUSA_VIEWS_BENCH_DIR), where bench/dlq_export_bench.sh times the commands.
func buildDeadHooksStore(tb testing.TB, dir string, dead int) {
	s := newBulkStore(tb, dir)
	const tenants = 1000
	names := make([]string, tenants)
	ords := make([]uint32, tenants)
	for i := range names {
		names[i] = fmt.Sprintf("tenant-%05d", i)
		ords[i] = s.tenant(names[i])
	}
	r := rand.New(rand.NewPCG(5, 6))
	body := make([]byte, 768)
	for i := range body {
		body[i] = byte('a' + r.IntN(26))
	}
	base := uint64(storetest.QueueNow.Add(-30 * 24 * 3600 * 1e9).UnixMilli())
	for i := 0; i < dead; i++ {
		ti := r.IntN(tenants)
		seq := uint64(i + 1)
		env := format.Envelope{
			ID: fmt.Appendf(nil, "hk_%016x", seq), SourceID: []byte("src-1"), TenantID: []byte(names[ti]),
			ReceivedAt: int64(base) + int64(i)*2 - int64(r.IntN(3_600_000)),
			Headers:    [][2][]byte{{[]byte("content-type"), []byte("application/json")}, {[]byte("x-request-id"), fmt.Appendf(nil, "%x", r.Uint64())}},
			Body:       body[:256+r.IntN(512)],
		}
		s.B.Put(format.CFHooks, format.HookKey{Seq: seq}.Encode(), format.EncodeEnvelope(env, false))
		s.dead(ords[ti], base+uint64(i)*2, seq, uint64(len(env.Body)+200))
	}
	s.close()
}

// BenchmarkExportDLQ exports every dead letter (hooks included) of stores of
// 10^3 and 10^6 dead rows, the library call without the JSON: per row it
// should cost the same at both sizes (a page is one walk and three
// multi-gets), and bench/dlq_export_bench.sh holds the command's memory flat.
func BenchmarkExportDLQ(b *testing.B) {
	for _, dead := range []int{1_000, 1_000_000} {
		b.Run(fmt.Sprintf("dead=%d", dead), func(b *testing.B) {
			dir := benchStoreDir(b, fmt.Sprintf("dead-hooks-%d", dead), func(dir string) { buildDeadHooksStore(b, dir, dead) })
			st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			ctx := context.Background()
			b.ResetTimer()
			for b.Loop() {
				var n, body int64
				sum, err := ExportDLQ(ctx, st, DLQExportOptions{}, func(r *DLQExportRow) error {
					n++
					body += int64(r.Hook.BodyBytes)
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
				if n != int64(dead) || sum.Exported != n || body == 0 {
					b.Fatalf("exported %d of %d dead letters (%d body bytes)", n, dead, body)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(dead), "ns/row")
		})
	}
}
