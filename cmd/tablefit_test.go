package cmd

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ankusa/ankusa-store/pkg/fixture"
)

// runAtWidth runs the CLI in-process as on a terminal of cols columns (stdout and
// stderr), without colour (runSwept).
func runAtWidth(t *testing.T, cols int, args ...string) (int, string, string) {
	t.Helper()
	return runSwept(t, cols, true, args...)
}

// tsvColumn is one column of a piped listing, by its TSV name.
func tsvColumn(t *testing.T, tsv, name string) []string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(tsv, "\n"), "\n")
	head := strings.Split(lines[0], "\t")
	col := -1
	for i, h := range head {
		if h == name {
			col = i
		}
	}
	if col < 0 {
		t.Fatalf("no column %s in %q", name, lines[0])
	}
	var vals []string
	for _, l := range lines[1:] {
		vals = append(vals, strings.Split(l, "\t")[col])
	}
	return vals
}

// Ids are never cut (issue 21): at 80 and 120 columns every tenant id and every ref of a
// listing is in its table whole, on the row of its own, and the table fits; free text is
// cut first, then whole columns hidden.
func TestTablesNeverCutIDs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	if _, err := fixture.Generate(context.Background(), dir, fixture.Options{Format: 3, Seed: 1, Now: fixture.DefaultNow, Tenants: 40, Hooks: 3000}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		ids  []string // TSV columns that are ids
	}{
		{[]string{"dlq", "scan", "--limit", "3"}, []string{"tenant", "ref"}},
		{[]string{"dlq", "scan", "--limit", "20"}, []string{"tenant", "ref"}},
		{[]string{"tenants", "ls"}, []string{"tenant", "ord"}},
		{[]string{"counters", "verify", "-o", "table"}, nil},
	} {
		args := append(append([]string{}, tc.args...), dir)
		_, tsv, _ := runCLI(t.Context(), append([]string{"-o", "tsv"}, args...))
		for _, cols := range []int{80, 120} {
			code, out, errOut := runAtWidth(t, cols, args...)
			if code != 0 {
				t.Fatalf("%d columns, %v: exit %d\n%s", cols, tc.args, code, errOut)
			}
			if !strings.Contains(out, "|") && !strings.Contains(out, "│") && tc.ids != nil {
				t.Errorf("%d columns, %v: not a table:\n%s", cols, tc.args, out)
			}
			lines := strings.Split(out, "\n")
			cut := strings.Contains(out, "…")
			for _, l := range lines {
				w := ansi.StringWidth(l)
				if w > cols {
					t.Errorf("%d columns, %v: a line of %d columns: %s", cols, tc.args, w, l)
				}
				// Text is cut only as far as the table needs: a table with a cut cell
				// takes the whole width (after hiding a column, the free text gets back
				// the room it freed).
				if cut && strings.HasPrefix(l, "┌") && w != cols {
					t.Errorf("%d columns, %v: text cut in a table of %d columns:\n%s", cols, tc.args, w, out)
				}
			}
			for _, name := range tc.ids {
				for _, id := range tsvColumn(t, tsv, name) {
					found := false
					for _, l := range lines {
						if strings.Contains(l, "│ "+id+" ") || strings.Contains(l, " "+id+" │") {
							found = true
						}
					}
					if !found {
						t.Errorf("%d columns, %v: %s %q is not whole in the table:\n%s", cols, tc.args, name, id, out)
					}
				}
			}
			// A hidden column is named, so that no one looks for it.
			if tc.args[0] == "dlq" && cols == 80 && (strings.Contains(lines[1], "Source") || !strings.Contains(out, "Source hidden") && !strings.Contains(out, "Source, ")) {
				t.Errorf("%d columns, %v: Source hidden without a word, or not hidden:\n%s", cols, tc.args, out)
			}
			if strings.Contains(out, "tenant-…") {
				t.Errorf("%d columns, %v: a cut tenant id:\n%s", cols, tc.args, out)
			}
		}
	}
}

// valueCell is the Value cell of field's row in a drawn field/value table, a line each,
// and the width of the Value column.
func valueCell(out, field string) (cell []string, width int) {
	in := false
	for _, row := range strings.Split(out, "\n") {
		cells := strings.Split(row, "│")
		if len(cells) != 4 {
			in = false
			continue
		}
		width = ansi.StringWidth(cells[2]) - 2 // its padding
		name := strings.TrimSpace(cells[1])
		if name == field || in && name == "" {
			in = true
			cell = append(cell, strings.TrimSpace(cells[2]))
			continue
		}
		in = false
	}
	return cell, width
}

// checkPathCell fails the test unless the cell holds path whole, each line of it ending
// after a slash, but within a segment wider than the cell by itself (the one thing broken
// elsewhere).
func checkPathCell(t *testing.T, out, field, path, where string) {
	t.Helper()
	cell, width := valueCell(out, field)
	if strings.Join(cell, "") != path {
		t.Errorf("%s: the %s cell %q is not %s:\n%s", where, field, cell, path, out)
		return
	}
	at := 0
	for _, l := range cell[:len(cell)-1] {
		at += len(l)
		seg := path[strings.LastIndex(path[:at], "/")+1:]
		if i := strings.Index(seg, "/"); i >= 0 {
			seg = seg[:i+1]
		}
		if !strings.HasSuffix(l, "/") && ansi.StringWidth(seg) <= width {
			t.Errorf("%s: the path broken inside %q, which fits the cell's %d columns:\n%s", where, seg, width, out)
		}
	}
}

// A field/value table (status, tenants show, keys decode) wraps a long value within its
// Value column: it stays a table at 60, 80 and 160 columns, however long one value is. A
// path wider than the cell (t.TempDir's, at 60) is broken only after a slash (issue 46).
func TestFieldValueTablesWrapLongValues(t *testing.T) {
	td, err := filepath.Abs("../testdata")
	if err != nil {
		t.Fatal(err)
	}
	v2 := filepath.Join(t.TempDir(), "store")
	if _, err := fixture.Generate(context.Background(), v2, fixture.Options{Format: 2, Seed: 1, Now: fixture.DefaultNow}); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"status", v2},
		{"status", filepath.Join(td, "store-v3.tar.zst")},
		{"tenants", "show", "acme", filepath.Join(td, "store-v3.tar.zst")},
		{"keys", "decode", "44000000010000019ad434790000000000000000070001"},
	} {
		for _, cols := range []int{60, 80, 160} {
			code, out, errOut := runAtWidth(t, cols, args...)
			if code != 0 {
				t.Fatalf("%d columns, %v: exit %d\n%s", cols, args, code, errOut)
			}
			if args[0] == "status" && args[1] == v2 {
				checkPathCell(t, out, "store", v2, fmt.Sprintf("%d columns, status", cols))
			}
			if !strings.Contains(out, "│ Field") || !strings.Contains(out, "│ Value") {
				t.Errorf("%d columns, %v: not a field/value table:\n%s", cols, args, out)
			}
			for _, l := range strings.Split(out, "\n") {
				if w := ansi.StringWidth(l); w > cols {
					t.Errorf("%d columns, %v: a line of %d columns: %s", cols, args, w, l)
				}
			}
		}
	}
	// And the value is all there: what piped TSV has, the table has, word for word.
	_, tsv, _ := runCLI(t.Context(), []string{"status", v2})
	_, out, _ := runAtWidth(t, 80, "status", v2)
	for _, l := range strings.Split(strings.TrimSpace(tsv), "\n") {
		field, value, _ := strings.Cut(l, "\t")
		if field != "disk for migrate" {
			continue
		}
		var words []string
		for _, row := range strings.Split(out, "\n") {
			if cells := strings.Split(row, "│"); len(cells) == 4 {
				words = append(words, strings.Fields(cells[2])...)
			}
		}
		// The free space is read by each run, and other work on the machine changes it
		// between the two: compare all but its figure.
		free := regexp.MustCompile(`[0-9.]+ [KMGTP]?i?B free`)
		table, want := strings.Join(words, " "), strings.Join(strings.Fields(value), " ")
		if !free.MatchString(want) {
			t.Errorf("status: %q has no free space figure", value)
		}
		if !strings.Contains(free.ReplaceAllString(table, "N free"), free.ReplaceAllString(want, "N free")) {
			t.Errorf("status at 80 columns: %q not whole in the table:\n%s", value, out)
		}
	}
}

// dlq scan hides the columns Ref already holds (Seq and Sink: Ref is SEQ:SINK) before it
// cuts free text (issue 29 item 8: at 120 columns Last error was cut while both showed):
// at 120 columns no Last error is cut, and at any width a cut one means both are hidden.
func TestDLQScanDropsRedundantColumnsFirst(t *testing.T) {
	td, err := filepath.Abs("../testdata")
	if err != nil {
		t.Fatal(err)
	}
	v3 := filepath.Join(td, "store-v3.tar.zst")
	for _, cols := range []int{100, 120, 140} {
		code, out, errb := runAtWidth(t, cols, "dlq", "scan", "--limit", "0", v3)
		if code != 0 {
			t.Fatalf("%d columns: exit %d\n%s", cols, code, errb)
		}
		lines := strings.Split(out, "\n")
		header := lines[1]
		cut := false
		for _, l := range lines[3:] {
			cells := strings.Split(l, "│")
			for i, h := range strings.Split(header, "│") {
				if strings.TrimSpace(h) == "Last error" && i < len(cells) && strings.Contains(cells[i], "…") {
					cut = true
				}
			}
		}
		if cut && (strings.Contains(header, " Seq ") || strings.Contains(header, " Sink ")) {
			t.Errorf("%d columns: Last error cut while Seq or Sink shows:\n%s", cols, out)
		}
		if cols >= 120 && cut && strings.Contains(header, " Seq ") {
			t.Errorf("%d columns: Last error cut:\n%s", cols, out)
		}
	}
}

// dlq scan gives Last error, the reason one opens the dead letters, its width before any
// column that can be hidden (issue 46: at 120 columns "HTTP 410 from sink..." was cut while
// Source, Hook id and Age stood whole): at 120 columns no last error is cut, and at any
// width one cut means every droppable column is hidden.
func TestDLQScanGivesLastErrorItsWidth(t *testing.T) {
	td, err := filepath.Abs("../testdata")
	if err != nil {
		t.Fatal(err)
	}
	v3 := filepath.Join(td, "store-v3.tar.zst")
	for _, cols := range []int{60, 80, 100, 120} {
		code, out, errb := runAtWidth(t, cols, "dlq", "scan", "--limit", "20", v3)
		if code != 0 {
			t.Fatalf("%d columns: exit %d\n%s", cols, code, errb)
		}
		lines := strings.Split(out, "\n")
		header := strings.Split(lines[1], "│")
		cut := false
		for _, l := range lines[3:] {
			cells := strings.Split(l, "│")
			for i, h := range header {
				if strings.TrimSpace(h) == "Last error" && i < len(cells) && strings.Contains(cells[i], "…") {
					cut = true
				}
			}
		}
		var shown []string
		for _, h := range header {
			switch h := strings.TrimSpace(h); h {
			case "Age", "Source", "Hook id", "Seq", "Sink", "Size":
				shown = append(shown, h)
			}
		}
		if cut && len(shown) > 0 {
			t.Errorf("%d columns: Last error cut while %v show:\n%s", cols, shown, out)
		}
		if cols >= 120 && cut {
			t.Errorf("%d columns: Last error cut:\n%s", cols, out)
		}
	}
}
