package inspect

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
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
		l, err := ListTenants(ctx, st, TenantsOptions{Now: storetest.QueueNow})
		if err != nil {
			b.Fatal(err)
		}
		if len(l.Tenants) != n || l.Tenants[n-1].OldestDueAt == nil {
			b.Fatalf("%d tenants", len(l.Tenants))
		}
	}
}

// BenchmarkStreamTenants streams the 10^5 tenants of BenchmarkListTenants (the
// listing `tenants ls -o json` writes) and, in the same iteration, reads the
// two families a listing needs at least, tenant_by_ord and counters, with one
// plain scan each, as `ankusa-store rawread` does: x-raw and cpu-x-raw are
// the listing's wall and CPU time over the raw read's (the target at 10^6
// tenants, bench/scale_bench.sh: at most 2x the wall time). CPU is the
// process's (every thread), so the listing's readers count in full.
func BenchmarkStreamTenants(b *testing.B) {
	const n = 100_000
	dir := benchStoreDir(b, "tenants-100000", func(dir string) { buildTenantsStore(b, dir, n) })
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	var raw, stream, rawCPU, streamCPU time.Duration
	for b.Loop() {
		t0, c0 := time.Now(), processCPU(b)
		keys := 0
		for _, f := range []format.Family{format.FamTenantByOrd, format.FamCounters} {
			err := st.DB.Scan(f.CF, f.Lo, append(append([]byte(nil), f.Hi...), 0), rocks.ReadOpts{}, func(k, v []byte) error {
				keys++
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		t1, c1 := time.Now(), processCPU(b)
		rows := 0
		_, err := StreamTenants(ctx, st, TenantsOptions{Now: storetest.QueueNow}, func(*TenantList) error { return nil },
			func(r *TenantRow) error {
				if r.OldestDueAt != nil {
					rows++
				}
				return nil
			})
		if err != nil {
			b.Fatal(err)
		}
		if rows != n || keys < 2*n {
			b.Fatalf("%d rows with a due row, %d raw keys", rows, keys)
		}
		raw += t1.Sub(t0)
		stream += time.Since(t1)
		rawCPU += c1 - c0
		streamCPU += processCPU(b) - c1
	}
	b.ReportMetric(float64(raw.Nanoseconds())/float64(b.N), "raw-ns/op")
	b.ReportMetric(float64(stream)/float64(raw), "x-raw")
	b.ReportMetric(float64(streamCPU)/float64(rawCPU), "cpu-x-raw")
}

// processCPU is the CPU time (user and system) this process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
