package rocks

import (
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
	var set []string
	for i, keys := range files {
		w, err := st.NewSSTWriter(cf, filepath.Join(stage, strconv.Itoa(i)+".sst"))
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
		set = append(set, w.Path)
	}
	if err := st.IngestFileSets(map[string][]string{cf: set}); err != nil {
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
