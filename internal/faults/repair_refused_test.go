package faults

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
)

// TestRefusedRepairWritesNothing is issue 26's case 10b: counters verify --repair --yes of
// a store RocksDB finds damaged at open (a table cut short, a table's magic number
// overwritten) appended about 100 KB to the store's LOG before it refused: the read-write
// open writes RocksDB's info log before it checks the tables. The repair now opens the
// store read-only first, which writes nothing, and refuses on its error: exit 3, every file
// of the store byte-identical (LOG included), no checkpoint taken.
func TestRefusedRepairWritesNothing(t *testing.T) {
	damage := map[string]func(t *testing.T, table string){
		"a table cut short": func(t *testing.T, table string) {
			fi, err := os.Stat(table)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(table, fi.Size()-100); err != nil {
				t.Fatal(err)
			}
		},
		"a table's magic number overwritten": func(t *testing.T, table string) {
			f, err := os.OpenFile(table, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			fi, err := f.Stat()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteAt([]byte{0, 0, 0, 0}, fi.Size()-8); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, hurt := range damage {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "s")
			expect(t, run(t, "fixture", "-q", "--format", "3", "--seed", "7", "--now", migNow, "--dir", dir), 0)
			hurt(t, filepath.Join(dir, tableOf(t, dir, "hooks")))
			before := storetest.TreeOf(t, dir)
			expect(t, run(t, "counters", "verify", "--repair", "--yes", dir), 3, "store is corrupt", "do not migrate or repair")
			storetest.SameTree(t, before, storetest.TreeOf(t, dir))
			if m, _ := filepath.Glob(dir + ".pre-repair*"); len(m) != 0 {
				t.Errorf("a refused repair took a checkpoint: %v", m)
			}
		})
	}
}
