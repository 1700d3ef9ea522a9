package faults

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// nodeOptions is the store's OPTIONS files, name and bytes, and any stash of the tool's.
func nodeOptions(t *testing.T, dir string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "OPTIONS-*"))
	sort.Strings(m)
	var b strings.Builder
	for _, p := range m {
		c, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("== " + filepath.Base(p) + "\n" + string(c))
	}
	return b.String()
}

// A migrate of the committed store-v2 (the node's two OPTIONS files, RocksDB 7.8.3) killed
// (kill -9) at each point of the keeping of those files: the stash made, its OPENED mark
// created but not yet written (RocksDB has the store open), the close's restore part way, the
// stash's own removal part way. The next run (the same migrate) leaves the
// node's two files exactly as the node wrote them, no stash, and Debian's RocksDB 7.8.3
// reads the migrated store; status names the node's RocksDB, never this tool's.
func TestMigrateKilledInTheOptionsWindow(t *testing.T) {
	for _, point := range []string{rocks.OptionsPauseStashed, rocks.OptionsPauseMarking, rocks.OptionsPauseRestoring, rocks.OptionsPauseUnstashing} {
		t.Run(point, func(t *testing.T) {
			store := extract(t, "store-v2", t.TempDir())
			if node := nodeOptions(t, store); strings.Count(node, "== OPTIONS-") != 2 || strings.Count(node, "rocksdb_version=7.8.3") != 2 {
				t.Fatalf("the committed store-v2 should hold the node's two 7.8.3 OPTIONS files:\n%.300s", node)
			}
			// What a migration never killed leaves: the node's two files, with the sections of
			// the families the migration created added to the newer (docs/format.md).
			clean := extract(t, "store-v2", t.TempDir())
			expect(t, run(t, "migrate", "--no-backup", "--now", migNow, clean), 0)
			want := nodeOptions(t, clean)
			c, done, res := startedStopped(t, rocks.OptionsPauseEnv+"="+point, "at "+point,
				"migrate", "--no-backup", "--now", migNow, store)
			if err := c.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			<-done
			if !res.Signaled {
				t.Fatalf("migrate was not killed: %s", res)
			}
			st := run(t, "status", "-o", "tsv", store)
			if st.Code != 0 && st.Code != 3 {
				t.Fatalf("status after the kill: %s", st)
			}
			if strings.Contains(st.Stdout, "store written by "+rocks.LibraryVersion()) {
				t.Fatalf("status names this tool's RocksDB as the store's writer after a kill at %s:\n%s", point, st)
			}
			expect(t, run(t, "migrate", "--no-backup", "--now", migNow, store), 0)
			if got := nodeOptions(t, store); got != want {
				t.Fatalf("after a kill at %s and the run again, the store's OPTIONS files are\n%s\nwant what a migration never killed leaves\n%s", point, got, want)
			}
			for _, n := range []string{rocks.NodeOptionsStash, "." + rocks.NodeOptionsStash + ".tmp", "." + rocks.NodeOptionsStash + ".done"} {
				if _, err := os.Lstat(filepath.Join(store, n)); err == nil {
					t.Errorf("%s left in the store", n)
				}
			}
			expectOut(t, run(t, "status", "-o", "tsv", store), 0, "store written by 7.8.3")
			ldb := storetest.OldNodeTool(t, "ldb")
			if out, err := exec.Command(ldb, "--db="+store, "list_column_families").CombinedOutput(); err != nil {
				t.Fatalf("Debian's ldb 7.8.3 does not open the store: %v\n%s", err, out)
			}
			expect(t, run(t, "counters", "verify", "-q", store), 0)
		})
	}
}
