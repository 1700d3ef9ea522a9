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

// BenchmarkStoreStatus shows that status costs O(1) in the rows of a format 3
// store: on 10^4 and 10^6 rows, "open" is a plain read-only open and close,
// "status" the same plus StoreStatus (without --exact). bench/status_bench.sh
// turns the two into ratios; the target is status/open within a small
// constant factor, the same at both sizes.
func BenchmarkStoreStatus(b *testing.B) {
	for _, rows := range []int{10_000, 1_000_000} {
		dir := benchStoreDir(b, fmt.Sprintf("status-%d", rows), func(dir string) { buildStatusStore(b, dir, rows) })
		b.Run(fmt.Sprintf("rows=%d/open", rows), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
				if err != nil {
					b.Fatal(err)
				}
				st.Close()
			}
		})
		b.Run(fmt.Sprintf("rows=%d/status", rows), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
				if err != nil {
					b.Fatal(err)
				}
				s, err := StoreStatus(context.Background(), st, StatusOptions{TenantsMax: format.DefaultTenantsMax, Now: storetest.QueueNow})
				if err != nil {
					b.Fatal(err)
				}
				if s.OldestDue == nil || s.OldestDue.StaleSkipped != 20 || !s.OldestDue.Verified || s.Aggregate.Pending+s.Aggregate.Scheduled == 0 {
					b.Fatalf("status read the wrong store: %+v %+v", s.OldestDue, s.Aggregate)
				}
				st.Close()
			}
		})
		// The reads alone, on a store opened once.
		b.Run(fmt.Sprintf("rows=%d/reads", rows), func(b *testing.B) {
			st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := StoreStatus(context.Background(), st, StatusOptions{TenantsMax: format.DefaultTenantsMax, Now: storetest.QueueNow}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// buildStatusStore writes rows rows over 1000 tenants, half due (with their
// markers) and half dead, plus 20 stale markers ahead of the oldest due row,
// which status must skip.
func buildStatusStore(tb testing.TB, dir string, rows int) {
	s := newBulkStore(tb, dir)
	const tenants = 1000
	ords := make([]uint32, tenants)
	for i := range ords {
		ords[i] = s.tenant(fmt.Sprintf("tenant-%05d", i))
	}
	r := rand.New(rand.NewPCG(5, 6))
	base := uint64(storetest.QueueNow.Add(-24 * 3600 * 1e9).UnixMilli())
	for i := 0; i < rows; i++ {
		ord := ords[r.IntN(tenants)]
		at := base + uint64(r.IntN(24*3600*1000))
		if i%2 == 0 {
			s.due(ord, at, uint64(i+1), uint32(100+r.IntN(900)), uint8(i%4/2))
		} else {
			s.dead(ord, at, uint64(i+1), uint64(100+r.IntN(900)))
		}
	}
	for i := 0; i < 20; i++ {
		s.B.Put(format.CFIndex, format.ActiveKey{Bucket: base/1000 - 100 + uint64(i), Ord: ords[i]}.Encode(), nil)
	}
	s.close()
}
