package rocks

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// A family replaced by an ingest holds its new files and nothing else, whatever it held and
// wherever (the last level, L0, a range deletion over some of it), all of them in the last
// level; a family beside it, not replaced, keeps its keys under its new ones. No compaction
// reads a byte after.
func TestIngestFileSetsReplacing(t *testing.T) {
	st, stage := stagedStoreTuned(t, Tuning{Statistics: true})
	cf, other := format.CFHooks, format.CFDeliveries
	old := [][]string{{"a1", "a2"}, {"m1", "m2"}, {"p1", "z9"}}
	if err := st.IngestFileSets(map[string][]string{cf: tables(t, st, cf, stage, "old", old), other: tables(t, st, other, stage, "other", [][]string{{"k1", "k3"}})}); err != nil {
		t.Fatal(err)
	}
	del, err := st.NewSSTWriter(cf, filepath.Join(stage, "del.sst"))
	if err != nil {
		t.Fatal(err)
	}
	if err := del.DeleteRange([]byte("m"), []byte("n")); err != nil {
		t.Fatal(err)
	}
	if err := del.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := st.IngestFileSets(map[string][]string{cf: {del.Path}}); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, st.DB, func(b *Batch) { b.Put(cf, []byte("b0"), []byte("L0")) })
	if err := st.Flush(cf); err != nil {
		t.Fatal(err)
	}
	if got := filesAt(t, st, cf); got[0] == 0 || sum(got) < 2 {
		t.Fatalf("files by level %v: want the old files in L0 and below", got)
	}

	// New keys among the old ones, a new value for one of them.
	files := map[string][]string{
		cf:    tables(t, st, cf, stage, "new", [][]string{{"a2", "c1"}, {"m5", "q1"}}),
		other: tables(t, st, other, stage, "other-new", [][]string{{"k2"}}),
	}
	if err := st.IngestFileSetsReplacing(files, []string{cf}); err != nil {
		t.Fatal(err)
	}
	// What compactions read before the ingest (the range deletion's file is marked for one).
	before, _ := st.Ticker("rocksdb.compact.read.bytes")
	for cf, want := range map[string][]string{cf: {"a2", "c1", "m5", "q1"}, other: {"k1", "k2", "k3"}} {
		var got []string
		if err := st.Scan(cf, nil, nil, ReadOpts{}, func(k, v []byte) error {
			got = append(got, string(k))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s after the replacing ingest: %v, want %v", cf, got, want)
		}
	}
	last := NumLevels - 1
	if got := filesAt(t, st, cf); got[last] != 2 || sum(got) != 2 {
		t.Errorf("%s's files by level %v: want its two new files, in L%d", cf, got, last)
	}
	if err := st.Settle(context.Background()); err != nil {
		t.Fatal(err)
	}
	if read, ok := st.Ticker("rocksdb.compact.read.bytes"); !ok || read > before {
		t.Errorf("compactions read %d bytes after the ingest (ticker there: %v), want none", read-before, ok)
	}

	ro, err := Open(st.Dir, Options{Mode: ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if err := ro.IngestFileSetsReplacing(files, []string{cf}); err != ErrReadOnly {
		t.Errorf("a read-only store ingested: %v", err)
	}
}

// filesAt is the family's table files by level.
func filesAt(t *testing.T, st *Store, cf string) []int {
	t.Helper()
	n := make([]int, NumLevels)
	for l := range n {
		v, err := st.Property(cf, "rocksdb.num-files-at-level"+strconv.Itoa(l))
		if err != nil {
			t.Fatal(err)
		}
		if n[l], err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

// tables writes a table file of family cf in stage for each set of keys (their values "v").
func tables(t *testing.T, st *Store, cf, stage, name string, sets [][]string) []string {
	t.Helper()
	var paths []string
	for i, keys := range sets {
		w, err := st.NewSSTWriter(cf, filepath.Join(stage, name+strconv.Itoa(i)+".sst"))
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if err := w.Put([]byte(k), []byte("v")); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Finish(); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, w.Path)
	}
	return paths
}

// RocksDB refuses to replace a family while a compaction of it runs. A family with more L0
// files than its trigger is being compacted as the ingest comes; with the background paused
// from before the ingest (the pause waits for the compaction to end), the replacement goes
// through every time.
func TestIngestFileSetsReplacingBesideACompaction(t *testing.T) {
	for round := range 10 {
		st, stage := stagedStoreTuned(t, Tuning{L0CompactionTrigger: 2})
		cf := format.CFHooks
		for i := range 6 {
			mustWrite(t, st.DB, func(b *Batch) {
				for j := range 2000 {
					b.Put(cf, []byte(fmt.Sprintf("k%05d", j)), []byte(strings.Repeat(strconv.Itoa(i), 100)))
				}
			})
			if err := st.Flush(cf); err != nil {
				t.Fatal(err)
			}
		}
		files := tables(t, st, cf, stage, "new", [][]string{{"k00001"}})
		if err := st.IngestFileSetsReplacing(map[string][]string{cf: files}, []string{cf}); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if v, ok, err := st.Get(cf, []byte("k00001")); err != nil || !ok || string(v) != "v" {
			t.Errorf("round %d: k00001 = %q %v %v", round, v, ok, err)
		}
		if _, ok, err := st.Get(cf, []byte("k00002")); err != nil || ok {
			t.Errorf("round %d: k00002 still read (%v)", round, err)
		}
	}
}

func sum(n []int) int {
	s := 0
	for _, v := range n {
		s += v
	}
	return s
}

// With the flushes paused, an ingest cannot wait for a memtable to flush: one that replaces a
// family with anything in its memtable (here a key outside the files' range) fails, nothing
// ingested, instead of waiting for ever; the background runs again.
func TestIngestFileSetsReplacingOverAMemtable(t *testing.T) {
	st, stage := stagedStore(t)
	cf := format.CFHooks
	mustWrite(t, st.DB, func(b *Batch) { b.Put(cf, []byte("x1"), []byte("memtable")) })
	files := tables(t, st, cf, stage, "new", [][]string{{"m0", "m2"}})
	if err := st.IngestFileSetsReplacing(map[string][]string{cf: files}, []string{cf}); err == nil {
		t.Fatal("ingested over the memtable: want it refused")
	}
	if v, ok, err := st.Get(cf, []byte("x1")); err != nil || !ok || string(v) != "memtable" {
		t.Errorf("x1 after the refused ingest: %q %v %v", v, ok, err)
	}
	if _, ok, _ := st.Get(cf, []byte("m0")); ok {
		t.Error("m0 ingested")
	}
	// The background work is let go: a flush completes.
	if err := st.Flush(cf); err != nil {
		t.Fatal(err)
	}
	if err := st.IngestFileSets(map[string][]string{cf: files}); err != nil {
		t.Fatalf("the same files after a flush: %v", err)
	}
}
