package runs

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"pgregory.net/rapid"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
)

// Runs packed from batches, sorted or not, read back merged as every element
// of every batch in order: a join over the runs sees what a join over one
// sorted batch of all of them would.
func TestSortedRunsMergeIsTheSortedWhole(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		words := rapid.IntRange(1, 3).Draw(t, "words")
		// Small words make equal prefixes (the delta case) common; big
		// ones make uvarints of ten bytes.
		word := rapid.OneOf(rapid.Uint64Range(0, 3), rapid.Uint64())
		elem := rapid.Custom(func(t *rapid.T) Elem {
			var e Elem
			for w := 0; w < words; w++ {
				e[w] = word.Draw(t, "w")
			}
			return e
		})
		// Up to 40 runs: a tree of losers six levels deep, of every shape
		// (a count of runs that is no power of two leaves leaves on two levels).
		batches := rapid.SliceOfN(rapid.SliceOf(elem), 0, 40).Draw(t, "batches")
		sorted := rapid.Bool().Draw(t, "sorted")
		// Some runs, or all, spilled to the file, read back through a
		// buffer small enough to be refilled mid-element.
		// ReadTotal, when drawn, makes each spilled run's share smaller than ReadBuf.
		r := New(words, "test runs", Limits{SpillAfter: rapid.SampledFrom([]int{0, 8, 1 << 30}).Draw(t, "SpillAfter"),
			ReadBuf: rapid.IntRange(1, 100).Draw(t, "ReadBuf"), ReadTotal: rapid.SampledFrom([]int{0, 1, 120}).Draw(t, "ReadTotal")})
		defer r.Close()
		var all []Elem
		for _, b := range batches {
			if sorted {
				slices.SortFunc(b, func(a, b Elem) int { return a.Cmp(&b) })
			}
			r.Pack(len(b), func(i int) Elem { return b[i] })
			all = append(all, b...)
		}
		if r.Len() != len(all) {
			t.Fatalf("Len() is %d with %d elements packed", r.Len(), len(all))
		}
		got, err := mergeAll(r)
		if err != nil {
			t.Fatalf("merge: %v", err)
		}
		if !sorted {
			// An unsorted run decodes as written; the merge of one
			// run is that run.
			if len(batches) == 1 && !slices.Equal(got, all) {
				t.Fatalf("one unsorted run read back as %v, want %v", got, all)
			}
			if len(got) != len(all) {
				t.Fatalf("%d elements read back, %d packed", len(got), len(all))
			}
			return
		}
		slices.SortFunc(all, func(a, b Elem) int { return a.Cmp(&b) })
		if !slices.Equal(got, all) {
			t.Fatalf("merged runs read back as %v, want %v", got, all)
		}
		if r.Empty() != (len(batches) == 0 || len(all) == 0) {
			t.Fatalf("Empty() is %v with %d elements", r.Empty(), len(all))
		}
		r.Reset()
		if !r.Empty() || r.Len() != 0 || r.Size() != 0 {
			t.Fatalf("after Reset: Empty() %v, Len() %d, Size() %d", r.Empty(), r.Len(), r.Size())
		}
	})
}

// A merge of many spilled runs holds ReadTotal bytes of their buffers, not ReadBuf a run:
// its memory does not grow with the rows (a bulk migration's join of 10^8 rows merges some
// 380 runs, 24 MiB at ReadBuf each); past the share's floor (ReadLeast, two elements a run) it does.
func TestMergeBuffersShareReadTotal(t *testing.T) {
	for _, c := range []struct {
		runs, total, least, want int
	}{
		{4, 8 << 20, 0, 4 * (64 << 10)},              // few runs: ReadBuf each
		{128, 8 << 20, 0, 128 * (64 << 10)},          // at the limit: still ReadBuf each
		{1000, 8 << 20, 0, 8 << 20},                  // many: the limit shared
		{1000, 6000, 0, 1000 * 2 * maxElemBytes},     // the share below two elements: two elements each
		{1000, 8 << 20, 16 << 10, 1000 * (16 << 10)}, // the share below ReadLeast: ReadLeast each
		{1000, 0, 0, 1000 * (64 << 10)},              // no limit: ReadBuf each
	} {
		r := New(3, "test runs", Limits{SpillAfter: 0, ReadBuf: 64 << 10, ReadTotal: c.total, ReadLeast: c.least})
		for i := range c.runs {
			r.Pack(2, func(j int) Elem { return Elem{uint64(j), uint64(i)} })
		}
		m := r.Merge()
		held := 0
		for _, h := range m.heads {
			held += cap(h.buf)
		}
		if held > c.want || held < c.want-c.runs {
			t.Errorf("%d spilled runs, ReadTotal %d: the merge holds %d bytes of buffers, want %d", c.runs, c.total, held, c.want)
		}
		got, err := mergeAll(r)
		if err != nil || len(got) != 2*c.runs {
			t.Errorf("%d spilled runs: merged %d elements (%v), want %d", c.runs, len(got), err, 2*c.runs)
		}
		if !slices.IsSortedFunc(got, func(a, b Elem) int { return a.Cmp(&b) }) {
			t.Errorf("%d spilled runs: merged out of order", c.runs)
		}
		r.Close()
	}
}

// A sorted run of nearby elements costs a few bytes each, not the 16 of a
// batch: that is what lets a store of 10^7 rows join in one pass.
func TestSortedRunsArePacked(t *testing.T) {
	r := New(3, "test runs", Limits{})
	defer r.Close()
	const n = 100000
	r.Pack(n, func(i int) Elem { return Elem{uint64(10_000_000 + 4*i), uint64(i % 3), uint64(i*7919) % 100_000} })
	if per := float64(r.Size()) / n; per > 5 {
		t.Fatalf("%.1f bytes an element", per)
	}
}

// Spilled runs are written to a file with no name in the temporary
// directory: nothing is left there, and a file that cannot be made keeps
// the runs in memory.
func TestSpilledRunsLeaveNothing(t *testing.T) {
	tmp := t.TempDir()
	for _, dir := range []string{tmp, filepath.Join(tmp, "missing")} {
		t.Setenv("TMPDIR", dir)
		r := New(2, "test runs", spillAll)
		r.Pack(3, func(i int) Elem { return Elem{uint64(i), 1} })
		r.Pack(2, func(i int) Elem { return Elem{uint64(i), 2} })
		// Runs in the file hold no bytes in memory.
		inFile := r.Size() == 0 && r.SpillErr() == nil
		if want := dir == tmp; inFile != want {
			t.Fatalf("TMPDIR %s: runs in the file %v, want %v (%d bytes in memory, %v)", dir, inFile, want, r.Size(), r.SpillErr())
		}
		got, err := mergeAll(r)
		want := []Elem{{0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 1}}
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("TMPDIR %s: merged %v (%v), want %v", dir, got, err, want)
		}
		r.Close()
	}
	if ents, err := os.ReadDir(tmp); err != nil || len(ents) != 0 {
		t.Fatalf("the temporary directory holds %v (%v)", ents, err)
	}
}

// On a real full disk: runs spill to the file while it has room, the ones
// after stay in memory, and the merge reads both as one.
func TestSpilledRunsOnAFullDisk(t *testing.T) {
	tmp := storetest.MountTmpfs(t, 256<<10)
	// One page left: a page's file, the rest filled, the page's file gone.
	spare := filepath.Join(tmp, "spare")
	if err := os.WriteFile(spare, make([]byte, 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	storetest.Fill(t, tmp)
	if err := os.Remove(spare); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	r := New(2, "test runs", spillAll)
	defer r.Close()
	var all []Elem
	// A run that stays in memory adds its bytes to Size; one in the file
	// adds none.
	var inFile, inMemory int
	for b := range 200 {
		batch := make([]Elem, 50)
		for i := range batch {
			batch[i] = Elem{uint64(i*7919+b) % 1000, uint64(b)}
		}
		slices.SortFunc(batch, func(a, b Elem) int { return a.Cmp(&b) })
		before := r.Size()
		r.Pack(len(batch), func(i int) Elem { return batch[i] })
		if r.Size() > before {
			inMemory++
		} else {
			inFile++
		}
		all = append(all, batch...)
	}
	if inFile == 0 || inMemory == 0 || !errors.Is(r.SpillErr(), syscall.ENOSPC) {
		t.Fatalf("%d runs in the file, %d in memory, the file's error %v: want both, and ENOSPC", inFile, inMemory, r.SpillErr())
	}
	got, err := mergeAll(r)
	slices.SortFunc(all, func(a, b Elem) int { return a.Cmp(&b) })
	if err != nil || !slices.Equal(got, all) {
		t.Fatalf("merged %d elements (%v), want %d", len(got), err, len(all))
	}
}

// mergeAll reads every element of r's runs, merged, and the merge's error.
func mergeAll(r *Sorted) ([]Elem, error) {
	var got []Elem
	m := r.Merge()
	for ; m.Peek() != nil; m.Next() {
		got = append(got, *m.Peek())
	}
	return got, m.Err()
}

// spillAll sends every run to the file.
var spillAll = Limits{SpillAfter: 0, ReadBuf: DefaultLimits().ReadBuf}

// The merge of as many runs as the bulk migration's join holds at 10^8 rows (some 380),
// in memory: the cost an element of finding the least head.
func BenchmarkMergeManyRuns(b *testing.B) {
	const runs, each = 384, 4096
	r := New(3, "bench runs", Limits{SpillAfter: 1 << 40})
	defer r.Close()
	for i := range runs {
		r.Pack(each, func(j int) Elem { return Elem{uint64(j*runs + (i*7919)%runs), uint64(i), 0} })
	}
	b.ResetTimer()
	for range b.N {
		m := r.Merge()
		n := 0
		for e := m.Peek(); e != nil; e = m.Peek() {
			n++
			m.Next()
		}
		if n != runs*each {
			b.Fatalf("merged %d", n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*runs*each), "ns/elem")
}
