package migration

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
)

// writtenByProcess is the bytes this process has handed to write calls so
// far (/proc/self/io's wchar): RocksDB's WAL, tables, compactions and
// MANIFEST, and the hook table's records, all of them.
func writtenByProcess(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/io")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "wchar: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("/proc/self/io has no wchar")
	return 0
}

// spaceEstimateFactor is how far above what a migration writes its space
// estimate may be, beside its fixed slack (spaceSlack, 8 MiB, for the
// MANIFEST, OPTIONS and LOG files: most of the estimate of a small store).
// The estimate counts each row's bytes twice in the WAL and twice in the
// tables, and the index family once more for a compaction. Measured
// (go test -v -run TestSpaceEstimate ./pkg/migration): the committed store
// 8.50 MB estimated, 1.05 MB written; 3,000 hooks 9.84 MB, 1.96 MB; 20,000
// hooks 18.06 MB, 10.34 MB (1.75x).
const spaceEstimateFactor = 2

// The space estimate migrate checks before its first write covers every
// byte the migration then writes (which is more than the store takes at its
// peak: a compaction's inputs go as its outputs are written), and is within
// spaceEstimateFactor of it and the slack, on generated stores of a few sizes and the
// committed sample store: an estimate pinned by one golden number could
// drift from what a run writes either way.
func TestSpaceEstimateCoversWhatAMigrationWrites(t *testing.T) {
	stores := map[string]string{"store-v2.tar.zst": storetest.Extract(t, "store-v2.tar.zst")}
	for _, g := range []genSpec{
		{seed: 31, hooks: 3000, tenants: 40, now: testNow},
		{seed: 32, hooks: 20000, tenants: 400, now: testNow, missing: 0.01, nilTenant: 0.05},
	} {
		stores["generated, "+strconv.Itoa(g.hooks)+" hooks"] = makeV2(t, g)
	}
	for name, dir := range stores {
		est := plan(t, dir, Options{}).Space.Migration
		before := writtenByProcess(t)
		mustMigrate(t, dir, Options{})
		written := writtenByProcess(t) - before
		t.Logf("%s: estimated %d bytes, the migration wrote %d (%.2fx)", name, est, written, float64(est)/float64(written))
		if written > est || est > spaceEstimateFactor*written+spaceSlack {
			t.Errorf("%s: estimated %d bytes, the migration wrote %d: want the estimate from 1 to %d times that, and %d bytes",
				name, est, written, spaceEstimateFactor, spaceSlack)
		}
	}
}
