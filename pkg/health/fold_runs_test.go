package health

import (
	"bytes"
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
		elem := rapid.Custom(func(t *rapid.T) runElem {
			var e runElem
			for w := 0; w < words; w++ {
				e[w] = word.Draw(t, "w")
			}
			return e
		})
		batches := rapid.SliceOfN(rapid.SliceOf(elem), 0, 6).Draw(t, "batches")
		sorted := rapid.Bool().Draw(t, "sorted")
		r := sortedRuns{words: words, label: "test runs"}
		defer r.close()
		// Some runs, or all, spilled to the file, read back through a
		// buffer small enough to be refilled mid-element.
		old, oldBuf := spillAfter, runReadBuf
		defer func() { spillAfter, runReadBuf = old, oldBuf }()
		spillAfter = rapid.SampledFrom([]int{0, 8, 1 << 30}).Draw(t, "spillAfter")
		runReadBuf = rapid.IntRange(1, 100).Draw(t, "runReadBuf")
		var all []runElem
		for _, b := range batches {
			if sorted {
				slices.SortFunc(b, func(a, b runElem) int { return a.cmp(&b) })
			}
			r.pack(len(b), func(i int) runElem { return b[i] })
			all = append(all, b...)
		}
		got, err := mergeAll(&r)
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
		slices.SortFunc(all, func(a, b runElem) int { return a.cmp(&b) })
		if !slices.Equal(got, all) {
			t.Fatalf("merged runs read back as %v, want %v", got, all)
		}
		if r.empty() != (len(batches) == 0 || len(all) == 0) {
			t.Fatalf("empty() is %v with %d elements", r.empty(), len(all))
		}
	})
}

// A sorted run of nearby elements costs a few bytes each, not the 16 of a
// batch: that is what lets a store of 10^7 rows join in one pass.
func TestSortedRunsArePacked(t *testing.T) {
	r := sortedRuns{words: 3}
	const n = 100000
	r.pack(n, func(i int) runElem { return runElem{uint64(10_000_000 + 4*i), uint64(i % 3), uint64(i*7919) % 100_000} })
	if per := float64(r.size) / n; per > 5 {
		t.Fatalf("%.1f bytes an element", per)
	}
}

// Joins that pass early because their runs outgrow the budget (every batch,
// with a budget of 0; every other one, with 1) report what one join over
// all the runs does.
func TestVerifyRunBudgetsDoNotChangeTheReport(t *testing.T) {
	for _, name := range []string{"verify-faults", "verify-counters"} {
		dir := storetest.Extract(t, "health/"+name+".tar.zst")
		// More passes read more keys; nothing else may change.
		run := func() []byte { return vtReportBytes(t, dir) }
		want := run()
		tiny(t, &markerBudget, 3)
		tiny(t, &deadBudget, 2)
		for _, batches := range []int{0, 1} {
			tiny(t, &runBudgetBatches, batches)
			if got := run(); !bytes.Equal(got, want) {
				t.Errorf("%s: with runs of %d batches\n%s\nwant\n%s", name, batches, got, want)
			}
		}
		// Every run spilled to the temporary directory: no pass before
		// the scan, whatever the budget.
		tiny(t, &spillAfter, 0)
		tiny(t, &runReadBuf, 7)
		t.Setenv("TMPDIR", t.TempDir())
		if got := run(); !bytes.Equal(got, want) {
			t.Errorf("%s: with the runs spilled\n%s\nwant\n%s", name, got, want)
		}
	}
}

// Spilled runs are written to a file with no name in the temporary
// directory: nothing is left there, and a file that cannot be made keeps
// the runs in memory.
func TestSpilledRunsLeaveNothing(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	tiny(t, &spillAfter, 0)
	for _, dir := range []string{tmp, filepath.Join(tmp, "missing")} {
		t.Setenv("TMPDIR", dir)
		r := sortedRuns{words: 2, label: "test runs"}
		r.pack(3, func(i int) runElem { return runElem{uint64(i), 1} })
		r.pack(2, func(i int) runElem { return runElem{uint64(i), 2} })
		inFile := r.runs[0].b == nil && r.runs[1].b == nil
		if want := dir == tmp; inFile != want {
			t.Fatalf("TMPDIR %s: runs in the file %v, want %v (%v)", dir, inFile, want, r.spill.err)
		}
		got, err := mergeAll(&r)
		want := []runElem{{0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 1}}
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("TMPDIR %s: merged %v (%v), want %v", dir, got, err, want)
		}
		r.close()
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
	tiny(t, &spillAfter, 0)
	r := sortedRuns{words: 2, label: "test runs"}
	defer r.close()
	var all []runElem
	for b := range 200 {
		batch := make([]runElem, 50)
		for i := range batch {
			batch[i] = runElem{uint64(i*7919+b) % 1000, uint64(b)}
		}
		slices.SortFunc(batch, func(a, b runElem) int { return a.cmp(&b) })
		r.pack(len(batch), func(i int) runElem { return batch[i] })
		all = append(all, batch...)
	}
	var inFile, inMemory int
	for _, run := range r.runs {
		if run.b == nil {
			inFile++
		} else {
			inMemory++
		}
	}
	if inFile == 0 || inMemory == 0 || !errors.Is(r.spill.err, syscall.ENOSPC) {
		t.Fatalf("%d runs in the file, %d in memory, the file's error %v: want both, and ENOSPC", inFile, inMemory, r.spill.err)
	}
	got, err := mergeAll(&r)
	slices.SortFunc(all, func(a, b runElem) int { return a.cmp(&b) })
	if err != nil || !slices.Equal(got, all) {
		t.Fatalf("merged %d elements (%v), want %d", len(got), err, len(all))
	}
}

// counters verify with its temporary directory full reports what it does
// with room: every run stays in memory, under its budget.
func TestVerifyWithTmpdirFull(t *testing.T) {
	dir := storetest.Extract(t, "health/verify-counters.tar.zst")
	want := vtReportBytes(t, dir)
	tmp := storetest.MountTmpfs(t, 256<<10)
	storetest.Fill(t, tmp)
	t.Setenv("TMPDIR", tmp)
	tiny(t, &spillAfter, 0)
	tiny(t, &markerBudget, 3)
	tiny(t, &deadBudget, 2)
	if got := vtReportBytes(t, dir); !bytes.Equal(got, want) {
		t.Errorf("with $TMPDIR full\n%s\nwant\n%s", got, want)
	}
	ents, err := os.ReadDir(tmp)
	if err != nil || len(ents) != 1 {
		t.Errorf("the temporary directory holds %v (%v), want the filler alone", ents, err)
	}
}

// mergeAll reads every element of r's runs, merged, and the merge's error.
func mergeAll(r *sortedRuns) ([]runElem, error) {
	var got []runElem
	m := r.merge()
	for ; m.peek() != nil; m.next() {
		got = append(got, *m.peek())
	}
	return got, m.err
}
