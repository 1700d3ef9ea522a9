package health

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/ankusa/ankusa-store/internal/runs"
	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
)

// The runs themselves (packing, spilling, the merge) are internal/runs'
// tests; these are verify's over them.

// Joins that pass early because their runs outgrow the budget (every batch,
// with a budget of 0; every other one, with 1) report what one join over
// all the runs does.
func TestVerifyRunBudgetsDoNotChangeTheReport(t *testing.T) {
	for _, name := range []string{"verify-faults", "verify-counters"} {
		dir := storetest.Extract(t, "health/"+name+".tar.zst")
		// More passes read more keys; nothing else may change.
		want := vtReportBytes(t, dir, nil)
		sz := tunedSizes()
		sz.markers, sz.dead = 3, 2
		run := func() []byte { return vtReportBytes(t, dir, sz) }
		for _, batches := range []int{0, 1} {
			sz.runBatches = batches
			if got := run(); !bytes.Equal(got, want) {
				t.Errorf("%s: with runs of %d batches\n%s\nwant\n%s", name, batches, got, want)
			}
		}
		// Every run spilled to the temporary directory: no pass before
		// the scan, whatever the budget.
		sz.runs = runs.Limits{SpillAfter: 0, ReadBuf: 7}
		t.Setenv("TMPDIR", t.TempDir())
		if got := run(); !bytes.Equal(got, want) {
			t.Errorf("%s: with the runs spilled\n%s\nwant\n%s", name, got, want)
		}
	}
}

// counters verify with its temporary directory full reports what it does
// with room: every run stays in memory, under its budget. That the runs were
// meant for the file is held too, or the test would pass with the spill
// bound ignored (runs under 4 MiB never leave memory, full disk or not):
// with room, every run spills and no join passes before its scan; full, the
// same runs stay in memory and, with a budget of one batch, a join passes
// whenever they outgrow it, rereading the deliveries and the active index, so
// it reads more keys (on this store 316 against 268). (A budget of no batch
// would pass after every batch, spilled or not.)
func TestVerifyWithTmpdirFull(t *testing.T) {
	dir := storetest.Extract(t, "health/verify-counters.tar.zst")
	want := vtReportBytes(t, dir, nil)
	sz := tunedSizes()
	sz.markers, sz.dead, sz.runBatches = 3, 2, 1
	sz.runs.SpillAfter = 0
	keys := func() (int64, []byte) {
		rep, err := vtVerify(t, dir, VerifyOptions{sizes: sz})
		if err != nil {
			t.Fatal(err)
		}
		n := rep.Keys
		rep.Keys, rep.Families = 0, nil
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		return n, b
	}
	t.Setenv("TMPDIR", t.TempDir())
	spilled, _ := keys()
	tmp := storetest.MountTmpfs(t, 256<<10)
	storetest.Fill(t, tmp)
	t.Setenv("TMPDIR", tmp)
	inMemory, got := keys()
	if !bytes.Equal(got, want) {
		t.Errorf("with $TMPDIR full\n%s\nwant\n%s", got, want)
	}
	if inMemory <= spilled {
		t.Errorf("verify read %d keys with its runs spilled, %d with $TMPDIR full: want more passes with the runs in memory (did the runs spill at all?)", spilled, inMemory)
	}
	ents, err := os.ReadDir(tmp)
	if err != nil || len(ents) != 1 {
		t.Errorf("the temporary directory holds %v (%v), want the filler alone", ents, err)
	}
}

// The sizes a test gives reach the fold: with batches of a few elements and a pass per
// batch, verify rereads the deliveries and the active index pass after pass, so it reads
// more keys than one join over all the runs (the report apart from the keys is the same:
// TestVerifyRunBudgetsDoNotChangeTheReport). Sizes dropped on the way would leave every
// test of tiny sizes comparing the tuned run with itself.
func TestTinySizesReachTheFold(t *testing.T) {
	dir := storetest.Extract(t, "health/verify-counters.tar.zst")
	tuned, err := vtVerify(t, dir, VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sz := tunedSizes()
	sz.markers, sz.dead, sz.runBatches = 3, 2, 0
	tiny, err := vtVerify(t, dir, VerifyOptions{sizes: sz})
	if err != nil {
		t.Fatal(err)
	}
	if tiny.Keys <= tuned.Keys {
		t.Fatalf("with batches of 3 markers and 2 dead rows, a pass each, verify read %d keys; tuned, %d: the sizes did not reach it", tiny.Keys, tuned.Keys)
	}
}
