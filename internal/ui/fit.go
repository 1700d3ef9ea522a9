package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

type layout struct {
	widths []int  // per column; 0 for a hidden column
	shown  []bool // columns drawn
	fits   bool
	cut    bool  // free text was truncated
	hidden []int // columns hidden to fit, in the order they went
}

// fitNote says what a fitted table left out, naming the hidden columns (so that no one
// looks for a value that is not drawn): "(Age, Source hidden to fit: --wide shows all)".
func fitNote(cols []Column, lay layout) string {
	var names []string
	for _, j := range lay.hidden {
		names = append(names, cols[j].Header)
	}
	switch {
	case len(names) > 0 && lay.cut:
		return "(cut, and " + strings.Join(names, ", ") + " hidden, to fit: --wide shows all)"
	case len(names) > 0:
		return "(" + strings.Join(names, ", ") + " hidden to fit: --wide shows all)"
	case lay.cut:
		return "(cut to fit: --wide shows all)"
	}
	return ""
}

// tableOverhead is what a drawn table adds to its cells: "│ " before each, " │" after the last.
func tableOverhead(cols int) int { return 3*cols + 1 }

// fitColumns lays rows out in width columns: each column as wide as its widest cell
// when that fits; else free text (Flex, Wrap) cut, widest first, as far as its floor
// (floor: a wanted column's Want while a droppable column is left to hide, else MinWidth);
// when even that is too wide, the most droppable column is hidden and the free text
// laid out again with the room it freed; when nothing is left to hide, the rows do not
// fit (records). Ids are never cut.
func fitColumns(cols []Column, cells [][]string, width int, wide bool) layout {
	lay := layout{widths: make([]int, len(cols)), shown: make([]bool, len(cols)), fits: true}
	natural := make([]int, len(cols))
	for j, c := range cols {
		natural[j] = ansi.StringWidth(c.Header)
		empty := true
		for _, row := range cells {
			natural[j] = max(natural[j], ansi.StringWidth(row[j]))
			empty = empty && row[j] == ""
		}
		lay.shown[j] = !(c.OmitEmpty && empty)
	}
	copy(lay.widths, natural)
	if wide || width <= 0 {
		return lay
	}
	free := func(c Column) bool { return c.Flex || c.Wrap }
	// floor is how far free text may be cut: while a column can still be hidden, a wanted
	// column keeps its Want (or its whole text, when shorter).
	floor := func(j int, wanted bool) int {
		m := min(natural[j], flexMin(cols[j]))
		if wanted && cols[j].Want > 0 {
			m = max(m, min(natural[j], cols[j].Want))
		}
		return m
	}
	for {
		// Shown columns, their natural width, their width with free text at its floor
		// (wants kept, or not).
		n, need, least := 0, 0, [2]int{}
		for j, c := range cols {
			if !lay.shown[j] {
				continue
			}
			n++
			need += natural[j]
			for i, wanted := range []bool{false, true} {
				if free(c) {
					least[i] += floor(j, wanted)
				} else {
					least[i] += natural[j]
				}
			}
		}
		if need+tableOverhead(n) <= width {
			return lay
		}
		if j := dropCandidate(cols, lay, true); j >= 0 {
			lay.shown[j] = false
			lay.hidden = append(lay.hidden, j)
			copy(lay.widths, natural)
			continue
		}
		wanted := dropCandidate(cols, lay, false) >= 0
		if least[b2i(wanted)]+tableOverhead(n) <= width {
			// Cut free text, one column at a time from the widest, until it fits.
			for excess := need + tableOverhead(n) - width; excess > 0; excess-- {
				best := -1
				for j, c := range cols {
					if lay.shown[j] && free(c) && lay.widths[j] > floor(j, wanted) && (best < 0 || lay.widths[j] > lay.widths[best]) {
						best = j
					}
				}
				lay.widths[best]--
			}
			for j, c := range cols {
				if c.Flex && lay.widths[j] < natural[j] {
					lay.cut = true // wrapped text is all there; cut text is not
				}
			}
			return lay
		}
		drop := dropCandidate(cols, lay, false)
		if drop < 0 {
			lay.fits = false
			return lay
		}
		lay.shown[drop] = false
		lay.hidden = append(lay.hidden, drop)
		copy(lay.widths, natural)
	}
}

// dropCandidate is the shown droppable column to hide next (the highest Drop), among the
// redundant ones only if redundant; -1 when there is none.
func dropCandidate(cols []Column, lay layout, redundant bool) int {
	drop := -1
	for j, c := range cols {
		if lay.shown[j] && c.Drop > 0 && (!redundant || c.Redundant) && (drop < 0 || c.Drop > cols[drop].Drop) {
			drop = j
		}
	}
	return drop
}

func flexMin(c Column) int {
	m := c.MinWidth
	if m == 0 {
		m = 10
	}
	return max(m, ansi.StringWidth(c.Header))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
