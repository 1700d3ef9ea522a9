package ui

import (
	"strings"
	"testing"
)

// The column an operator came for gets its width first (issue 46: dlq scan at 120 columns
// cut Last error while Source, Hook id and Age stood whole): a column with Want is cut
// below it only when no droppable column is left to hide, and then as any free text is.
func TestFitGivesAWantedColumnItsWidthFirst(t *testing.T) {
	cols := []Column{
		{Header: "When"}, {Header: "Age", Drop: 5}, {Header: "Source", Drop: 6}, {Header: "Hook", Drop: 2},
		{Header: "Error", Flex: true, MinWidth: 12, Want: 30}, {Header: "Ref"},
	}
	row := []string{"2026-11-30 09:59:59", "3m", "src-0000000001", "hk_000000000000017f",
		"HTTP 410 from sink 2: the endpoint is gone for good", "383:1"}
	natural := 0
	for _, c := range row {
		natural += len(c)
	}
	for width := 40; width <= natural+tableOverhead(len(cols))+2; width++ {
		lay := fitColumns(cols, [][]string{row}, width, false)
		errW := lay.widths[4]
		droppableShown := lay.shown[1] || lay.shown[2] || lay.shown[3]
		switch {
		case !lay.fits:
			continue
		case droppableShown && errW < min(len(row[4]), 30):
			t.Errorf("%d columns: Error cut to %d while a droppable column shows (%v)", width, errW, lay.shown)
		case !droppableShown && errW < 12 && lay.fits:
			t.Errorf("%d columns: Error cut to %d, below its MinWidth", width, errW)
		}
		total := tableOverhead(0)
		for j := range cols {
			if lay.shown[j] {
				total += lay.widths[j] + 3
			}
		}
		if total > width {
			t.Errorf("%d columns: a table of %d", width, total)
		}
	}
	// Without Want, free text is cut first, as before: a droppable column stands while the
	// error is cut to its MinWidth.
	plain := append([]Column(nil), cols...)
	plain[4].Want = 0
	lay := fitColumns(plain, [][]string{row}, 100, false)
	if !lay.shown[1] || !lay.shown[2] || lay.widths[4] >= len(row[4]) {
		t.Errorf("no Want at 100 columns: shown %v, Error %d wide", lay.shown, lay.widths[4])
	}
	if lay := fitColumns(cols, [][]string{row}, 100, false); lay.widths[4] < 30 || strings.Contains(fitNote(cols, lay), "Error") {
		t.Errorf("Want 30 at 100 columns: Error %d wide (%s)", lay.widths[4], fitNote(cols, lay))
	}
}
