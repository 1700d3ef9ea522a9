package rocks

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// DropFiles takes out the files of levels 1 and below whose keys all lie in [lo, hi), and
// only those: not the file whose last key is hi itself (a key the range does not hold), not
// one reaching past either end, not one in L0.
func TestDropFiles(t *testing.T) {
	st, stage := stagedStore(t)
	cf := format.CFHooks
	lo, hi := []byte("m"), []byte("n")
	// Side by side in key order, so that the ingest puts each in the last level.
	files := [][]string{
		{"a1", "a2"},       // below the range
		{"l5", "m0"},       // reaching in from below
		{"m1", "m2"},       // inside: dropped
		{"m3", "m4"},       // inside: dropped
		{"m5", string(hi)}, // its last key is the range's end
		{"n1", "p"},        // above
	}
	if err := st.IngestFileSets(map[string][]string{cf: tables(t, st, cf, stage, "old", files)}); err != nil {
		t.Fatal(err)
	}
	// A file in L0 inside the range.
	mustWrite(t, st.DB, func(b *Batch) { b.Put(cf, []byte("m6"), []byte("v")) })
	if err := st.Flush(cf); err != nil {
		t.Fatal(err)
	}
	files0 := filesAt(t, st, cf)

	if err := st.DropFiles(cf, lo, hi); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a1", "a2", "l5", "m0", "m5", "m6", "n", "n1", "p"} {
		if _, ok, err := st.Get(cf, []byte(k)); err != nil || !ok {
			t.Errorf("%s after the drop: found %v (%v), want it kept", k, ok, err)
		}
	}
	for _, k := range []string{"m1", "m2", "m3", "m4"} {
		if _, ok, err := st.Get(cf, []byte(k)); err != nil || ok {
			t.Errorf("%s after the drop: found %v (%v), want its file dropped", k, ok, err)
		}
	}
	last := NumLevels - 1
	if got := filesAt(t, st, cf); got[0] != files0[0] || got[last] != files0[last]-2 {
		t.Errorf("files by level %v after the drop, %v before: want two fewer in L%d, L0 as it was", got, files0, last)
	}

	ro, err := Open(st.Dir, Options{Mode: ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if err := ro.DropFiles(cf, lo, hi); err != ErrReadOnly {
		t.Errorf("a read-only store dropped files: %v", err)
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

// An ingest that deletes a range, with the drop of its files: RocksDB marks the file of the
// range deletion for compaction as it lands, and a compaction let run took the range's files
// before the drop could (at 10^8 rows, every one of them). With the background paused from
// before the ingest until the drop, the drop takes them every time: no compaction reads
// them.
func TestIngestFileSetsDropping(t *testing.T) {
	for round := range 5 {
		st, stage := stagedStoreTuned(t, Tuning{Statistics: true})
		cf := format.CFHooks
		lo, hi := []byte("m"), []byte("n")
		old := [][]string{{"a1"}, {"m1", "m2"}, {"m3", "m4"}, {"m5", "m6"}, {"p1"}}
		if err := st.IngestFileSets(map[string][]string{cf: tables(t, st, cf, stage, "old", old)}); err != nil {
			t.Fatal(err)
		}
		before := filesAt(t, st, cf)
		w, err := st.NewSSTWriter(cf, filepath.Join(stage, "del.sst"))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.DeleteRange(lo, hi); err != nil {
			t.Fatal(err)
		}
		if err := w.Finish(); err != nil {
			t.Fatal(err)
		}
		committed, err := st.IngestFileSetsDropping(map[string][]string{cf: {w.Path}}, []Drop{{CF: cf, Lo: lo, Hi: hi}})
		if err != nil || !committed {
			t.Fatalf("round %d: committed %v, %v", round, committed, err)
		}
		after := filesAt(t, st, cf)
		last := NumLevels - 1
		// The three files inside the range gone from the last level, the range deletion's file
		// in above them (it overlaps them as it lands).
		if after[last] != before[last]-3 || sum(after) != sum(before)-2 {
			t.Errorf("round %d: files by level %v after, %v before: want the three inside the range dropped and the deletion's file in", round, after, before)
		}
		// A compaction that began before the drop would be running still, or done.
		if err := st.Settle(context.Background()); err != nil {
			t.Fatal(err)
		}
		if read, ok := st.Ticker("rocksdb.compact.read.bytes"); !ok || read > 0 {
			t.Errorf("round %d: compactions read %d bytes (ticker there: %v), want none", round, read, ok)
		}
		for _, k := range []string{"a1", "p1"} {
			if _, ok, err := st.Get(cf, []byte(k)); err != nil || !ok {
				t.Errorf("round %d: %s lost: %v %v", round, k, ok, err)
			}
		}
		for _, k := range []string{"m1", "m4", "m6"} {
			if _, ok, err := st.Get(cf, []byte(k)); err != nil || ok {
				t.Errorf("round %d: %s still read: %v %v", round, k, ok, err)
			}
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

// With the flushes paused, an ingest over a memtable it overlaps cannot wait for the memtable
// to flush: it fails, nothing ingested, instead of waiting for ever; the background runs again.
func TestIngestFileSetsDroppingOverAMemtable(t *testing.T) {
	st, stage := stagedStore(t)
	cf := format.CFHooks
	mustWrite(t, st.DB, func(b *Batch) { b.Put(cf, []byte("m1"), []byte("memtable")) })
	files := tables(t, st, cf, stage, "new", [][]string{{"m0", "m2"}})
	committed, err := st.IngestFileSetsDropping(map[string][]string{cf: files}, []Drop{{CF: cf, Lo: []byte("m"), Hi: []byte("n")}})
	if committed || err == nil {
		t.Fatalf("committed %v, %v: want the ingest refused", committed, err)
	}
	if v, ok, err := st.Get(cf, []byte("m1")); err != nil || !ok || string(v) != "memtable" {
		t.Errorf("m1 after the refused ingest: %q %v %v", v, ok, err)
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
