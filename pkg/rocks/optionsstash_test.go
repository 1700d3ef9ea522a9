package rocks_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// nodeFile is a copy of store-v2's newer OPTIONS file (the node's, RocksDB 7.8.3) with
// its version and table format_version changed: what a planted stash claims.
func nodeFile(t *testing.T, dir, version, formatVersion string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "OPTIONS-000019"))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), "rocksdb_version=7.8.3", "rocksdb_version="+version, 1)
	return []byte(strings.ReplaceAll(s, "format_version=5", "format_version="+formatVersion))
}

func writeFiles(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// An ANKUSA-NODE-OPTIONS directory the tool cannot show it made (issue 44): planted with a
// file claiming RocksDB 11.1.2 and format_version 7 in a 7.8.3 store, garbage, empty, another
// store's stash, the tool's own with a file changed or added after it. A read-write open
// refuses it (ErrForeignStash, its path named) before anything is written; the write rule,
// status's writer and the "set aside" question ignore it, so no table of format_version 7 is
// ever planned.
func TestForeignStashIsRefused(t *testing.T) {
	other := storetest.Extract(t, "store-v3.tar.zst")
	if err := rocks.StashForTest(other, true); err != nil {
		t.Fatal(err)
	}
	cases := map[string]func(t *testing.T, dir, stash string){
		"planted 11.1.2 format_version 7": func(t *testing.T, dir, stash string) {
			writeFiles(t, stash, map[string][]byte{"OPTIONS-000099": nodeFile(t, dir, "11.1.2", "7")})
		},
		"garbage": func(t *testing.T, dir, stash string) {
			writeFiles(t, stash, map[string][]byte{"OPTIONS-000099": []byte("\x00\xffnot options"), "ANKUSA-STASH": []byte("garbage\n")})
		},
		"empty": func(t *testing.T, dir, stash string) { writeFiles(t, stash, nil) },
		"a file, not a directory": func(t *testing.T, dir, stash string) {
			writeFiles(t, dir, map[string][]byte{rocks.NodeOptionsStash: []byte("x")})
		},
		"another store's": func(t *testing.T, dir, stash string) {
			if err := os.Rename(filepath.Join(other, rocks.NodeOptionsStash), stash); err != nil {
				t.Fatal(err)
			}
		},
		"the tool's, a file changed": func(t *testing.T, dir, stash string) {
			if err := rocks.StashForTest(dir, true); err != nil {
				t.Fatal(err)
			}
			writeFiles(t, stash, map[string][]byte{"OPTIONS-000019": nodeFile(t, dir, "11.1.2", "7")})
		},
		"the tool's, its OPENED not its line": func(t *testing.T, dir, stash string) {
			if err := rocks.StashForTest(dir, true); err != nil {
				t.Fatal(err)
			}
			writeFiles(t, stash, map[string][]byte{"OPENED": []byte("identity 00\n")})
		},
		"the tool's, a file added": func(t *testing.T, dir, stash string) {
			if err := rocks.StashForTest(dir, true); err != nil {
				t.Fatal(err)
			}
			writeFiles(t, stash, map[string][]byte{"OPTIONS-000099": nodeFile(t, dir, "11.1.2", "7")})
		},
	}
	for name, plant := range cases {
		t.Run(name, func(t *testing.T) {
			dir := storetest.Extract(t, "store-v2.tar.zst")
			stash := filepath.Join(dir, rocks.NodeOptionsStash)
			plant(t, dir, stash)
			before := storetest.TreeOf(t, dir)
			if rocks.NodeOptionsSetAside(dir) {
				t.Error("a foreign stash taken for the node's files set aside")
			}
			if err := rocks.ForeignStash(dir); !errors.Is(err, rocks.ErrForeignStash) {
				t.Errorf("ForeignStash: %v", err)
			}
			if r, err := rocks.ChooseWriteRule(dir); err != nil || !strings.Contains(r.Source, "7.8.3") {
				t.Errorf("write rule from %q (%v), want the store's own 7.8.3 OPTIONS file", r.Source, err)
			}
			st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
			if err == nil {
				st.Close()
				t.Fatal("a read-write open went ahead beside a foreign stash")
			}
			if !errors.Is(err, rocks.ErrForeignStash) || !strings.Contains(err.Error(), stash) {
				t.Fatalf("want ErrForeignStash naming %s, got %v", stash, err)
			}
			storetest.SameTree(t, before, storetest.TreeOf(t, dir))
		})
	}
}

// A stash whose open never got to RocksDB (the run killed at the stash, or refused because a
// node took the store first) is removed by the next read-write open without touching the
// store's OPTIONS files: those the stash lacks are the node's, written since. Putting the
// stash back would remove the node's newest file and bring back one it had dropped.
func TestUnopenedStashLeavesTheNodesNewFiles(t *testing.T) {
	dir := storetest.Extract(t, "store-v2.tar.zst")
	if err := rocks.StashForTest(dir, false); err != nil {
		t.Fatal(err)
	}
	// The node's open since: its new file, and its older one dropped.
	writeFiles(t, dir, map[string][]byte{"OPTIONS-000046": nodeFile(t, dir, "7.8.3", "5")})
	if err := os.Remove(filepath.Join(dir, "OPTIONS-000017")); err != nil {
		t.Fatal(err)
	}
	want := allOptions(t, dir)
	if rocks.NodeOptionsSetAside(dir) {
		t.Error("a stash whose open never got to RocksDB taken for the node's files set aside")
	}
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if got := allOptions(t, dir); got != want {
		t.Errorf("the store's OPTIONS files were\n%s\nare\n%s", want, got)
	}
	if _, err := os.Lstat(filepath.Join(dir, rocks.NodeOptionsStash)); err == nil {
		t.Errorf("%s left after the clean close", rocks.NodeOptionsStash)
	}
}

// A RocksDB killed while it wrote its OPTIONS file leaves OPTIONS-N.dbtmp beside the others
// (a run of the tool killed at a random instant, cmd TestMigrateProcess, did). The stash
// keeps the node's OPTIONS files only, so the tool's own stash, made beside that leftover
// and found by the next run, is put back, not refused as foreign.
func TestStashLeavesRocksDBsTempFile(t *testing.T) {
	dir := storetest.Extract(t, "store-v2.tar.zst")
	writeFiles(t, dir, map[string][]byte{"OPTIONS-000047.dbtmp": []byte("[Version]\n")})
	want := allOptions(t, dir)
	if err := rocks.StashForTest(dir, true); err != nil {
		t.Fatal(err)
	}
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatalf("the tool's own stash beside a RocksDB temp file: %v", err)
	}
	st.Close()
	if got := allOptions(t, dir); !strings.Contains(got, "OPTIONS-000019 ") || !strings.Contains(want, "OPTIONS-000019 ") {
		t.Errorf("the node's OPTIONS files were\n%s\nare\n%s", want, got)
	}
}

// A run killed after it created its stash's OPENED mark and before it wrote it (RocksDB had
// the store open: the fault suite kills one there) leaves the mark empty, or holding a
// beginning of its line. That is the tool's own stash, opened: the next read-write open puts
// the node's OPTIONS files back and goes on, where it once refused the stash as a stranger's
// and stopped every run after it.
func TestCutShortOpenedMarkIsTheTools(t *testing.T) {
	for _, keep := range []int{0, 1, 9} {
		t.Run(fmt.Sprintf("%d bytes", keep), func(t *testing.T) {
			dir := storetest.Extract(t, "store-v2.tar.zst")
			want := allOptions(t, dir)
			if err := rocks.StashForTest(dir, true); err != nil {
				t.Fatal(err)
			}
			opened := filepath.Join(dir, rocks.NodeOptionsStash, "OPENED")
			line, err := os.ReadFile(opened)
			if err != nil || len(line) <= keep {
				t.Fatalf("OPENED holds %q (%v)", line, err)
			}
			if err := os.WriteFile(opened, line[:keep], 0o644); err != nil {
				t.Fatal(err)
			}
			// What the killed open's RocksDB left: an OPTIONS file of its own.
			writeFiles(t, dir, map[string][]byte{"OPTIONS-000099": nodeFile(t, dir, "11.1.2", "7")})
			if !rocks.NodeOptionsSetAside(dir) {
				t.Error("the node's files not taken as set aside beside an OPENED cut short")
			}
			if err := rocks.ForeignStash(dir); err != nil {
				t.Errorf("ForeignStash: %v", err)
			}
			st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
			if err != nil {
				t.Fatalf("the tool's own stash, its OPENED cut short at %d bytes: %v", keep, err)
			}
			st.Close()
			if got := allOptions(t, dir); got != want {
				t.Errorf("the store's OPTIONS files were\n%s\nare\n%s", want, got)
			}
			if _, err := os.Lstat(filepath.Join(dir, rocks.NodeOptionsStash)); err == nil {
				t.Errorf("%s left after the clean close", rocks.NodeOptionsStash)
			}
		})
	}
}
