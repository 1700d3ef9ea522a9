package rocks_test

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linxGnu/grocksdb"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// writeEveryFamily writes into every family of an open store and flushes each, so that
// every family gets a table written by this build.
func writeEveryFamily(t *testing.T, st *rocks.Store, round int) {
	t.Helper()
	b := rocks.NewBatch()
	for _, cf := range st.Families() {
		if cf == format.CFCounters {
			continue
		}
		for i := range 50 {
			b.Put(cf, []byte(fmt.Sprintf("zz:probe:%d:%03d", round, i)), []byte(strings.Repeat("p", i)))
		}
	}
	if st.HasFamily(format.CFCounters) {
		b.Merge(format.CFCounters, format.CounterKey{Ord: 1, Field: format.FieldPending, Shard: -1}.Encode(), format.EncodeCounterOperand(1))
	}
	if err := st.Write(b, true); err != nil {
		t.Fatal(err)
	}
	for _, cf := range st.Families() {
		if err := st.DB.Flush(cf); err != nil {
			t.Fatal(err)
		}
	}
}

// wantFormats checks every table file of dir against want (family -> "fvN CHECKSUM COMPRESSION").
func wantFormats(t *testing.T, dir string, want func(cf string) string) {
	t.Helper()
	for file, got := range storetest.TableFormats(t, dir) {
		cf, rest, _ := strings.Cut(got, " ")
		if w := want(cf); rest != w {
			t.Errorf("%s (%s): %s, want %s", file, cf, rest, w)
		}
	}
}

// A store RocksDB 7.8.3 wrote (the committed sample, as an erlang-rocksdb 1.8 node leaves
// one) and this build then writes into, again and again: every table stays format_version 5
// with the store's checksum (7.8.3's default, xxh3) and compression, the node's OPTIONS files
// are left as they were (this build's own removed at close), and 7.8.3 reads all of it as
// the tool does.
func TestWritesWhatTheOldestNodeReads(t *testing.T) {
	dir := storetest.Extract(t, "store-v2.tar.zst")
	nodeAll := allOptions(t, dir)
	if strings.Count(nodeAll, "OPTIONS-") != 2 {
		t.Fatalf("the committed store-v2 should hold the node's two OPTIONS files: %s", nodeAll)
	}
	for round := range 4 {
		st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
		if err != nil {
			t.Fatal(err)
		}
		if r := st.DB.WriteRule(); round == 0 && !strings.Contains(r.Source, "RocksDB 7.8.3") {
			t.Errorf("round %d: rule from %q, want the node's 7.8.3 OPTIONS file", round, r.Source)
		}
		writeEveryFamily(t, st, round)
		st.Close()
	}
	// RocksDB itself keeps the two newest OPTIONS files at every open, which would drop the
	// node's older one: both stay, unchanged, and nothing else.
	if got := allOptions(t, dir); got != nodeAll {
		t.Errorf("the store's OPTIONS files were\n%s\nare\n%s", nodeAll, got)
	}
	if _, err := os.Stat(filepath.Join(dir, rocks.NodeOptionsStash)); err == nil {
		t.Errorf("%s left in the store after a clean close", rocks.NodeOptionsStash)
	}
	wantFormats(t, dir, func(cf string) string {
		if cf == format.CFCounters {
			return "fv5 XXH3 NoCompression"
		}
		return "fv5 XXH3 Snappy"
	})
	storetest.OldestNodeReads(t, dir)
}

// allOptions lists dir's OPTIONS files with a hash of each one's content.
func allOptions(t *testing.T, dir string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "OPTIONS-*"))
	var b strings.Builder
	for _, p := range m {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %x\n", filepath.Base(p), sha256.Sum256(data))
	}
	return b.String()
}

// A store whose tables are format_version 6 with lz4 (as a node on RocksDB 9 or later
// configured so writes them; this build leaves no OPTIONS file in a store it made, so the
// live tables decide) gets format_version 6 and lz4 from this build too.
func TestWritesWhatANewerNodeWrites(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	rule := rocks.NewStoreRule(6, grocksdb.LZ4Compression)
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite, Create: true, CreateFormat: format.Format3, NewTables: &rule})
	if err != nil {
		t.Fatal(err)
	}
	writeEveryFamily(t, st, 9)
	st.Close()
	for round := range 2 {
		st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
		if err != nil {
			t.Fatal(err)
		}
		writeEveryFamily(t, st, round)
		st.Close()
	}
	wantFormats(t, dir, func(cf string) string {
		if cf == format.CFCounters {
			return "fv6 CRC32c NoCompression"
		}
		return "fv6 CRC32c LZ4"
	})
}

// A read-write run killed before it closed leaves the stash of the node's OPTIONS files,
// RocksDB's own file beside them, and the node's older file gone (RocksDB dropped it at the
// open). The next read-write open puts the store's files back first, and after it closes
// they are exactly the node's two.
func TestKilledRunLeavesTheNodesOptions(t *testing.T) {
	dir := storetest.Extract(t, "store-v2.tar.zst")
	nodeAll := allOptions(t, dir)
	m, _ := filepath.Glob(filepath.Join(dir, "OPTIONS-*"))
	if len(m) != 2 {
		t.Fatalf("want the node's two OPTIONS files, have %v", m)
	}
	// The stash as the killed run made it, marked as its open marked it once RocksDB had
	// the store.
	stash := filepath.Join(dir, rocks.NodeOptionsStash)
	if err := rocks.StashForTest(dir, true); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(m[1])
	left := strings.Replace(string(b), "rocksdb_version=7.8.3", "rocksdb_version="+rocks.LibraryVersion(), 1)
	if err := os.WriteFile(filepath.Join(dir, "OPTIONS-000090"), []byte(left), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(m[0]); err != nil {
		t.Fatal(err)
	}
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	if r := st.DB.WriteRule(); !strings.Contains(r.Source, "7.8.3") {
		t.Errorf("rule from %q: the killed run's file was taken for the node's", r.Source)
	}
	st.Close()
	if got := allOptions(t, dir); got != nodeAll {
		t.Errorf("the store's OPTIONS files were\n%s\nare\n%s", nodeAll, got)
	}
	if _, err := os.Stat(stash); err == nil {
		t.Errorf("%s left after the clean close", rocks.NodeOptionsStash)
	}
}

// A node on erlang-rocksdb 3.x writes OPTIONS files naming this very RocksDB (11.1.2): they
// are the node's, kept through a read-write open, and its format_version 7 is what the tool
// writes.
func TestThreeXNodesOptionsKept(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	rule := rocks.NewStoreRule(7, grocksdb.LZ4Compression)
	rule.Default.Checksum = 4 // kXXH3, as the node's file says
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite, Create: true, CreateFormat: format.Format3, NewTables: &rule})
	if err != nil {
		t.Fatal(err)
	}
	writeEveryFamily(t, st, 1)
	st.Close()
	// As a node's file does, it describes every family the node opens.
	node := "# This is a RocksDB option file.\n[Version]\n  rocksdb_version=" + rocks.LibraryVersion() + "\n  options_file_version=1.1\n\n"
	for _, cf := range format.FamiliesV3 {
		node += "[CFOptions \"" + cf + "\"]\n  compression=kLZ4Compression\n\n[TableOptions/BlockBasedTable \"" + cf + "\"]\n  format_version=7\n  checksum=kXXH3\n\n"
	}
	for _, n := range []string{"OPTIONS-000007", "OPTIONS-000011"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(node), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := allOptions(t, dir)
	for round := range 2 {
		st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
		if err != nil {
			t.Fatal(err)
		}
		writeEveryFamily(t, st, 10+round)
		st.Close()
	}
	if got := allOptions(t, dir); got != before {
		t.Errorf("the 3.x node's OPTIONS files were\n%s\nare\n%s", before, got)
	}
	wantFormats(t, dir, func(cf string) string {
		if cf == format.CFCounters {
			return "fv7 XXH3 NoCompression"
		}
		return "fv7 XXH3 LZ4"
	})
}
