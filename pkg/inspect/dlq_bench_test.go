package inspect

import (
	"context"
	"fmt"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// BenchmarkScanDLQScoped reads one page of 50 of one tenant's dead letters
// from stores of 10^3 and 10^6 dead rows. The target (bench/views_bench.sh
// checks it): the two within 2x of each other, because a scoped page is one
// range of X and two multi-gets, whatever the length of the queue.
func BenchmarkScanDLQScoped(b *testing.B) {
	for _, dead := range []int{1_000, 1_000_000} {
		b.Run(fmt.Sprintf("dead=%d", dead), func(b *testing.B) {
			dir := benchStoreDir(b, fmt.Sprintf("dead-%d", dead), func(dir string) { buildDeadStore(b, dir, dead) })
			st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			ctx := context.Background()
			scope := scopeOf(b, st, benchTarget)
			b.ResetTimer()
			for b.Loop() {
				p, err := ScanDLQ(ctx, st, DLQOptions{Tenant: scope, Limit: 50})
				if err != nil {
					b.Fatal(err)
				}
				if len(p.Rows) != 50 || p.NextCursor == "" {
					b.Fatalf("page of %d rows", len(p.Rows))
				}
			}
		})
	}
}

// BenchmarkScanDLQUnscoped is the unscoped page for comparison: newest first
// across tenants, also independent of the queue's length.
func BenchmarkScanDLQUnscoped(b *testing.B) {
	for _, dead := range []int{1_000, 1_000_000} {
		b.Run(fmt.Sprintf("dead=%d", dead), func(b *testing.B) {
			dir := benchStoreDir(b, fmt.Sprintf("dead-%d", dead), func(dir string) { buildDeadStore(b, dir, dead) })
			st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			ctx := context.Background()
			for b.Loop() {
				if _, err := ScanDLQ(ctx, st, DLQOptions{Limit: 50}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
