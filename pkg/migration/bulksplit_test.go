package migration

import (
	"bytes"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// The index family's new keys (the tenant-keyed due, inflight, dead-by-tenant and active
// families, whose prefixes sort below every old one) are ingested in a file of their own
// that lands in the family's last level, under no old row: no compaction rewrites them after
// the commit. The rewritten dead and archive values and the range deletions, which overlap
// the old rows, are in another file above them. The store is the steps' all the same
// (TestBulkIsTheSteps); this is where its files went.
//
// Table files of a few KiB (tableBytes) cut each part in several: the new keys' files are
// all in the last level still.
func TestBulkNewIndexKeysLandInTheLastLevel(t *testing.T) {
	for _, c := range []struct {
		g          genSpec
		tableBytes int
		below      int // files of new keys, at least
	}{
		{genSpec{seed: 58, hooks: 400, tenants: 9, now: testNow}, 0, 1},
		{genSpec{seed: 59, hooks: 60, tenants: 2, now: testNow, missing: 0.1, nilTenant: 0.2}, 0, 1},
		{genSpec{seed: 58, hooks: 400, tenants: 9, now: testNow}, 4 << 10, 4},
	} {
		g := c.g
		src := makeV2(t, g)
		st, err := rocks.OpenStore(src, rocks.Options{Mode: rocks.ReadWrite})
		if err != nil {
			t.Fatal(err)
		}
		old, ok, err := st.LowestKey(format.CFIndex)
		st.Close()
		if err != nil || !ok {
			t.Fatalf("the old index's lowest key: %q %v %v", old, ok, err)
		}
		migrateBulk(t, src, Options{tableBytes: c.tableBytes})
		st, err = rocks.OpenStore(src, rocks.Options{Mode: rocks.ReadOnly})
		if err != nil {
			t.Fatal(err)
		}
		files, err := st.FileLevels(format.CFIndex)
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
		below, above := 0, 0
		for _, f := range files {
			switch {
			case bytes.Compare(f.Largest, old) < 0:
				below++
				if f.Level != rocks.NumLevels-1 {
					t.Errorf("seed %d: a file of the new keys (%q .. %q) is in L%d, want the last level, L%d", g.seed, f.Smallest, f.Largest, f.Level, rocks.NumLevels-1)
				}
			case bytes.Compare(f.Smallest, old) < 0:
				t.Errorf("seed %d: a file spans the new keys and the old rows (%q .. %q, the old rows from %q), in L%d", g.seed, f.Smallest, f.Largest, old, f.Level)
			default:
				above++
			}
		}
		if below < c.below || above == 0 {
			t.Errorf("seed %d, files of %d bytes: %d files of new keys and %d of the old rows' span, want at least %d and 1: %+v", g.seed, c.tableBytes, below, above, c.below, files)
		}
	}
}
