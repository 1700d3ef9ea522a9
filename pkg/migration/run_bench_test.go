package migration

import (
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
)

// BenchmarkMigrate migrates a copy of a 40 000-hook format 2 store (about
// 70 000 rows) per iteration, with the hook table and with a multi-get per
// step: for profiles (-cpuprofile, -memprofile) of the migration's own
// work. Its speed against RocksDB's floor is bench/migrate_bench.sh's.
func BenchmarkMigrate(b *testing.B) {
	src := makeV2(b, genSpec{seed: 21, hooks: 40_000, tenants: 2_000, now: testNow, missing: 0.01, nilTenant: 0.05})
	for _, c := range []struct {
		name string
		use  int
	}{{"table", 1}, {"lookups", -1}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				dir := storetest.CopyStore(b, src)
				b.StartTimer()
				mustMigrate(b, dir, Options{Now: testStart, hookTable: c.use})
			}
		})
	}
}
