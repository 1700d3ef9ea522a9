package rocks

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// A family's TableRows bound its live keys and their bytes from above, whatever was written,
// overwritten, deleted (one key or a range), flushed, compacted, or left in the memtables
// (read by a read-only open, which replays the WAL); where each key was written once and
// nothing deleted (a store as a fixture writes it), they are exactly its keys and bytes.
// (A compaction does not make them exact: RocksDB moves a lone file to the last level
// without rewriting it, its deletions kept.)
func TestTableRowsBoundTheLiveKeys(t *testing.T) {
	base, round := t.TempDir(), 0
	rapid.Check(t, func(rt *rapid.T) {
		round++
		dir := fmt.Sprintf("%s/store%d", base, round)
		newStore(t, dir)
		t := rt
		db, err := Open(dir, Options{Mode: ReadWrite})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		cf := format.CFHooks
		live := map[string][]byte{}
		written := map[string]bool{}
		once := true // each key written once, nothing deleted
		ranges := int64(0)
		key := func(i int) string { return fmt.Sprintf("k%02d", i) }
		for _, op := range rapid.SliceOfN(rapid.IntRange(0, 9), 1, 40).Draw(t, "ops") {
			i := rapid.IntRange(0, 30).Draw(t, "key")
			b := NewBatch()
			switch {
			case op < 5:
				v := make([]byte, rapid.IntRange(0, 40).Draw(t, "value"))
				b.Put(cf, []byte(key(i)), v)
				live[key(i)] = v
				once = once && !written[key(i)]
				written[key(i)] = true
			case op < 7:
				b.Delete(cf, []byte(key(i)))
				delete(live, key(i))
				once = false
			case op == 7:
				once = false
				ranges++
				j := i + rapid.IntRange(1, 8).Draw(t, "width")
				b.DeleteRange(cf, []byte(key(i)), []byte(key(j)))
				for k := range live {
					if k >= key(i) && k < key(j) {
						delete(live, k)
					}
				}
			default:
				if err := db.Flush(cf); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err := db.Write(b, false); err != nil {
				t.Fatal(err)
			}
		}
		var rows, bytes int64
		for k, v := range live {
			rows++
			bytes += int64(len(k) + len(v))
		}
		// And of the keys in a range: a bound of them, the files reaching into it counted whole.
		lo := rapid.IntRange(0, 30).Draw(t, "lo")
		hi := lo + rapid.IntRange(0, 12).Draw(t, "span")
		var inRows, inBytes int64
		for k, v := range live {
			if k >= key(lo) && k < key(hi) {
				inRows++
				inBytes += int64(len(k) + len(v))
			}
		}
		check := func(db *DB, what string, exact bool) {
			in, err := db.TableRows(cf, [2][]byte{[]byte(key(lo)), []byte(key(hi))})
			if err != nil {
				t.Fatal(err)
			}
			if in.Rows() < inRows || in.Bytes() < inBytes {
				t.Fatalf("%s: TableRows of [%s, %s) %+v: %d rows of %d bytes, against %d live keys of %d bytes",
					what, key(lo), key(hi), in, in.Rows(), in.Bytes(), inRows, inBytes)
			}
			tr, err := db.TableRows(cf)
			if err != nil {
				t.Fatal(err)
			}
			// A compaction writes a range deletion into each file it spans: not one a call.
			if ranges == 0 && tr.RangeDeletions != 0 || tr.RangeDeletions > tr.Deletions {
				t.Fatalf("%s: TableRows %+v: %d range deletions written", what, tr, ranges)
			}
			if tr.Rows() < rows || tr.Bytes() < bytes || exact && (tr.Rows() != rows || tr.Bytes() != bytes) {
				t.Fatalf("%s: TableRows %+v: %d rows of %d bytes, against %d live keys of %d bytes (exact: %v)",
					what, tr, tr.Rows(), tr.Bytes(), rows, bytes, exact)
			}
		}
		check(db, "read-write, as written", once)
		// What a node stopped without a flush leaves: its last writes in the WAL only, read
		// back into the memtables by a read-only open.
		db.Close()
		ro, err := Open(dir, Options{Mode: ReadOnly})
		if err != nil {
			t.Fatal(err)
		}
		check(ro, "read-only, the WAL replayed", once)
		ro.Close()
		db, err = Open(dir, Options{Mode: ReadWrite})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := db.CompactRange(cf); err != nil {
			t.Fatal(err)
		}
		check(db, "compacted", once)
	})
}

// A range deletion in a table file is counted as one, among the deletions.
func TestTableRowsCountRangeDeletions(t *testing.T) {
	dir := t.TempDir() + "/store"
	newStore(t, dir)
	db := mustOpen(t, dir, Options{Mode: ReadWrite})
	cf := format.CFHooks
	mustWrite(t, db, func(b *Batch) {
		b.Put(cf, []byte("a"), []byte("1"))
		b.Put(cf, []byte("b"), []byte("22"))
		b.Delete(cf, []byte("c"))
		b.DeleteRange(cf, []byte("d"), []byte("f"))
	})
	if err := db.Flush(cf); err != nil {
		t.Fatal(err)
	}
	tr, err := db.TableRows(cf)
	if err != nil {
		t.Fatal(err)
	}
	// Keys a, b, c, d; values 1, 22, none, the range's end f.
	want := TableRows{Entries: 4, Deletions: 2, RangeDeletions: 1, KeyBytes: 4, ValueBytes: 4}
	if tr != want {
		t.Fatalf("TableRows %+v, want %+v", tr, want)
	}
}

// Of the keys in ranges, TableRows counts the files that reach into them and the memtables'
// keys in them: a file of keys elsewhere is not counted, nor a memtable key outside.
func TestTableRowsOfRanges(t *testing.T) {
	dir := t.TempDir() + "/store"
	newStore(t, dir)
	db := mustOpen(t, dir, Options{Mode: ReadWrite})
	cf := format.CFHooks
	for _, keys := range [][]string{{"a1", "a2"}, {"m1", "m2", "m3"}, {"x1"}} {
		mustWrite(t, db, func(b *Batch) {
			for _, k := range keys {
				b.Put(cf, []byte(k), []byte("vv"))
			}
		})
		if err := db.Flush(cf); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite(t, db, func(b *Batch) {
		b.Put(cf, []byte("m4"), []byte("v"))
		b.Put(cf, []byte("q1"), []byte("v"))
	})
	r := func(lo, hi string) [2][]byte { return [2][]byte{[]byte(lo), []byte(hi)} }
	for _, tc := range []struct {
		ranges [][2][]byte
		want   TableRows
	}{
		{nil, TableRows{Entries: 8, KeyBytes: 16, ValueBytes: 14}},
		{[][2][]byte{r("m", "n")}, TableRows{Entries: 4, KeyBytes: 8, ValueBytes: 7}},
		{[][2][]byte{r("a", "b"), r("x", "y")}, TableRows{Entries: 3, KeyBytes: 6, ValueBytes: 6}},
		{[][2][]byte{r("q", "r")}, TableRows{Entries: 1, KeyBytes: 2, ValueBytes: 1}},
		{[][2][]byte{r("b", "c")}, TableRows{}},
	} {
		got, err := db.TableRows(cf, tc.ranges...)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("TableRows of %q: %+v, want %+v", tc.ranges, got, tc.want)
		}
	}
}
