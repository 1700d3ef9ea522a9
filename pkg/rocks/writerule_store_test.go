package rocks_test

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linxGnu/grocksdb"

	"github.com/ankusa/ankusa-store/internal/storetest"
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
	nodeOptions := newestOptions(t, dir)
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
	// RocksDB itself keeps the two newest OPTIONS files at every open, so the node's older
	// one goes; its newest stays, unchanged, and is the newest.
	if got := newestOptions(t, dir); got != nodeOptions {
		t.Errorf("the store's newest OPTIONS file was %s, is %s", nodeOptions, got)
	}
	wantFormats(t, dir, func(cf string) string {
		if cf == format.CFCounters {
			return "fv5 XXH3 NoCompression"
		}
		return "fv5 XXH3 Snappy"
	})
	storetest.OldestNodeReads(t, dir)
}

// newestOptions is the name of dir's newest OPTIONS file with a hash of its content.
func newestOptions(t *testing.T, dir string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "OPTIONS-*"))
	if len(m) == 0 {
		return "none"
	}
	p := m[len(m)-1] // zero-padded numbers: the last is the newest
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s %x", filepath.Base(p), sha256.Sum256(data))
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

// A read-write run killed before it closed leaves its OPTIONS file beside the node's. The
// next read-write open removes it first: otherwise RocksDB, which keeps the two newest, would
// drop the node's file for it and the one it writes.
func TestKilledRunLeavesTheNodesOptions(t *testing.T) {
	dir := storetest.Extract(t, "store-v2.tar.zst")
	nodeOptions := newestOptions(t, dir)
	m, _ := filepath.Glob(filepath.Join(dir, "OPTIONS-*"))
	b, err := os.ReadFile(m[len(m)-1])
	if err != nil {
		t.Fatal(err)
	}
	// What a killed run of this build leaves: an OPTIONS file naming its RocksDB, numbered
	// past the node's.
	left := strings.Replace(string(b), "rocksdb_version=7.8.3", "rocksdb_version="+rocks.LibraryVersion(), 1)
	if err := os.WriteFile(filepath.Join(dir, "OPTIONS-000090"), []byte(left), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if got := newestOptions(t, dir); got != nodeOptions {
		t.Errorf("the store's newest OPTIONS file was %s, is %s", nodeOptions, got)
	}
}
