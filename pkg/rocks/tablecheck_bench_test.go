package rocks

import (
	"os"
	"testing"
)

// BenchmarkCheckTables is checkTables over the table files of ANKUSA_BENCH_DB (a DB that
// bench/tablecheck_vs_sstdump.sh builds with db_bench), the cost every open now pays.
func BenchmarkCheckTables(b *testing.B) {
	dir := os.Getenv("ANKUSA_BENCH_DB")
	if dir == "" {
		b.Skip("ANKUSA_BENCH_DB is not set (see bench/tablecheck_vs_sstdump.sh)")
	}
	for b.Loop() {
		if err := checkTables(dir); err != nil {
			b.Fatal(err)
		}
	}
}
