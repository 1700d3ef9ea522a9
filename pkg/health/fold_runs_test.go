package health

import (
	"bytes"
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
		tiny(t, &runs.SpillAfter, 0)
		tiny(t, &runs.ReadBuf, 7)
		t.Setenv("TMPDIR", t.TempDir())
		if got := run(); !bytes.Equal(got, want) {
			t.Errorf("%s: with the runs spilled\n%s\nwant\n%s", name, got, want)
		}
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
	tiny(t, &runs.SpillAfter, 0)
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
