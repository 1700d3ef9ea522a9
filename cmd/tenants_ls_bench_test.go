package cmd

import (
	"context"
	"io"
	"os"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
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
