package cmd

import (
	"context"
	"io"
	"os"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
	"github.com/ankusa/ankusa-store/pkg/inspect"
)

// BenchmarkTenantsLsStore runs `tenants ls -o json` in-process on the store
// $ANKUSA_BENCH_STORE names (a migrated store of 10^6 tenants: see
// bench/memory_bench.sh), in the order $ANKUSA_BENCH_SORT (default ord), for
// go test -cpuprofile: the whole command, the JSON included, as
// bench/scale_bench.sh measures it beside a raw read.
func BenchmarkTenantsLsStore(b *testing.B) {
	store := os.Getenv("ANKUSA_BENCH_STORE")
	if store == "" {
		b.Skip("ANKUSA_BENCH_STORE names no store")
	}
	sort := os.Getenv("ANKUSA_BENCH_SORT")
	if sort == "" {
		sort = "ord"
	}
	for b.Loop() {
		env := &Env{IO: iostreams.IOStreams{Out: io.Discard, Err: io.Discard}, Output: "json", Now: time.Now}
		if err := runTenantsLs(context.Background(), env, &tenantsLsOptions{sort: sort, store: store}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTenantRowJSON is the JSON of one row of `tenants ls -o json` as
// the listing writes it (a row of the 10^6-tenant store's shape): times the
// tenants listed, it is what the listing's output costs beside a raw read
// of the families, which writes nothing (docs/testing.md, issue 31).
func BenchmarkTenantRowJSON(b *testing.B) {
	ord := uint32(767603)
	at := time.UnixMilli(1796032800006).UTC()
	age := int64(487221166)
	r := &inspect.TenantRow{Ord: &ord, Tenant: "tenant-767603", OldestDueAt: &at, OldestDueAgeMS: &age}
	r.Pending, r.Dead, r.Bytes = 2, 1, 2178
	var buf []byte
	for b.Loop() {
		buf = appendTenantRowJSON(buf[:0], r)
	}
	b.SetBytes(int64(len(buf)))
}
