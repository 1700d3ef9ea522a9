package inspect

import (
	"context"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// BenchmarkListTenants lists 10^5 tenants, each with due rows, so every row
// needs its counters and its oldest due row. bench/views_bench.sh holds the
// whole command (process start, open, JSON) to under a second.
func BenchmarkListTenants(b *testing.B) {
	const n = 100_000
	dir := benchStoreDir(b, "tenants-100000", func(dir string) { buildTenantsStore(b, dir, n) })
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	for b.Loop() {
		l, err := ListTenants(ctx, st, TenantsOptions{Now: viewNow})
		if err != nil {
			b.Fatal(err)
		}
		if len(l.Tenants) != n || l.Tenants[n-1].OldestDueAt == nil {
			b.Fatalf("%d tenants", len(l.Tenants))
		}
	}
}
