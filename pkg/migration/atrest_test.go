package migration

import (
	"os"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// A migrated store is at rest: every family flushed, so its WAL is empty and the next
// read-only open (every on-call view, the node's boot) replays nothing into memory.
func TestMigratedStoreIsAtRest(t *testing.T) {
	dir := makeV2(t, genSpec{seed: 7, hooks: 3000, tenants: 40, now: testNow, nilTenant: 0.1})
	mustMigrate(t, dir, Options{})

	if n := walBytes(t, dir); n != 0 {
		t.Errorf("migrated store holds %d bytes of WAL, want 0", n)
	}
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, cf := range st.Families() {
		for _, prop := range []string{"rocksdb.num-entries-active-mem-table", "rocksdb.num-entries-imm-mem-tables"} {
			v, err := st.Property(cf, prop)
			if err != nil {
				t.Fatal(err)
			}
			if v != "0" {
				t.Errorf("the read-only open after migrating replayed the WAL: %s %s = %s, want 0", cf, prop, v)
			}
		}
	}
}

// walBytes is the size of the store's WAL files.
func walBytes(t *testing.T, dir string) int64 {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".log") {
			info, err := e.Info()
			if err != nil {
				t.Fatal(err)
			}
			n += info.Size()
		}
	}
	return n
}
