package cmd

import (
	"bufio"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/pkg/storediff"
)

// diffRecords prints differing keys for a terminal too narrow for their table, a few
// lines each whatever the values weigh (a hook body is kilobytes: -o json has it whole):
//
//	only in B  index due  bucket=1796032600 bucket_time=2026-11-30T09:56:40Z ord=3 seq=7
//	  B: sink=1 kind=first_attempt
//
// The first line is the change, the family and the key, whole (wrapped at its spaces
// where it is wider than the terminal, never cut); then the value of each side that has
// the key, cut to the line.
type diffRecords struct {
	env   *Env
	w     *bufio.Writer
	color bool
	n     int
	cut   bool
	err   error
}

func (r *diffRecords) write(cf, family string, k *storediff.Key) {
	if r.err != nil {
		return
	}
	cells := diffCells(cf, family, k)
	width := r.env.width()
	if r.n > 0 {
		r.w.WriteByte('\n')
	}
	r.n++
	change := ui.SafeLine(cells[2].Human)
	head := change + "  " + ui.SafeLine(cf+" "+family) + "  "
	first := ui.Hanging(head, ui.SafeLine(cells[3].Human), 4, width, 20)
	if r.color {
		first = strings.Replace(first, change, ui.SGR(cells[2].Color, change), 1)
	}
	r.w.WriteString(first)
	for _, side := range []struct {
		name string
		v    *storediff.Value
		cell ui.Cell
	}{{"A", k.A, cells[4]}, {"B", k.B, cells[5]}} {
		if side.v == nil {
			continue // the side does not have the key: the change says so
		}
		text := ui.SafeLine(side.cell.Human)
		if text == "" && side.v.Error == "" {
			text = "(empty)" // a sentinel's value
		}
		v := "  " + side.name + ": " + text
		if width > 0 && ansi.StringWidth(v) > width {
			if side.cell.Cut != "" {
				v = "  " + side.name + ": " + ui.SafeLine(side.cell.Cut)
			}
			v = ui.TruncateWidth(v, width)
			r.cut = true
		}
		r.w.WriteString(v + "\n")
	}
	_, r.err = r.w.WriteString("")
}

// end flushes the records, with a note where a value was cut.
func (r *diffRecords) end() error {
	if r.err != nil {
		return r.err
	}
	if r.cut {
		r.w.WriteString("\n" + r.env.wrap("(values cut to a line: -o json or TSV has them whole, and the keys in hex)"))
	}
	return r.w.Flush()
}

// diffLead is what a terminal shows first: how many keys differ in each
// family, as a table, so that the whole difference is read before its first
// keys.
func diffLead(env *Env, res *storediff.Result) {
	rows := ui.Rows{Columns: []ui.Column{{Header: "CF"}, {Header: "Family"}, {Header: "Only in A", Right: true},
		{Header: "Only in B", Right: true}, {Header: "Changed", Right: true}, {Header: "Unreadable", Right: true, OmitEmpty: true},
		{Header: "Not shown", Right: true, OmitEmpty: true}}}
	for i := range res.Families {
		f := &res.Families[i]
		cells := []ui.Cell{ui.Text(f.CF), ui.Text(f.Family), ui.Int(f.OnlyA), ui.Int(f.OnlyB), ui.Int(f.Changed), {}, {}}
		if f.Unreadable > 0 {
			cells[5] = ui.Int(f.Unreadable)
			cells[5].Color = ui.ColorRed
		}
		if f.Omitted > 0 {
			cells[6] = ui.Int(f.Omitted)
		}
		rows.Add(cells...)
	}
	if res.Families != nil && omittedAny(res) {
		rows.Notes = []string{"(Not shown: past --limit per family; --limit 0 shows every key)"}
	}
	_ = env.writeTable(env.IO.Out, rows)
	fmt.Fprintln(env.IO.Out)
}

func omittedAny(res *storediff.Result) bool {
	for _, f := range res.Families {
		if f.Omitted > 0 {
			return true
		}
	}
	return false
}

// diffFamilyNotes are the whole counts of each family that differs.
func diffFamilyNotes(res *storediff.Result) []string {
	var notes []string
	for i := range res.Families {
		f := &res.Families[i]
		note := fmt.Sprintf("%s %s: %s", f.CF, f.Family, diffCounts(f.OnlyA, f.OnlyB, f.Changed, f.Unreadable))
		if f.Omitted > 0 {
			note += fmt.Sprintf("; %d more not shown (--limit)", f.Omitted)
		}
		notes = append(notes, note)
	}
	return notes
}

// diffColumns are the columns of the one row builder (diffCells). Keys are
// ids: never cut (a table too narrow for them is records, diffRecords). The
// values are free text, cut to fit.
func diffColumns() []ui.Column {
	return []ui.Column{
		{Header: "CF", Drop: 3}, {Header: "Family"}, {Header: "Change"},
		{Header: "Key", Name: "decoded"},
		{Header: "A", Name: "a_value", Flex: true, MinWidth: diffFar + 8}, {Header: "B", Name: "b_value", Flex: true, MinWidth: diffFar + 8},
		{Header: "Key (hex)", Name: "key", Drop: 2},
	}
}

func diffRows(res *storediff.Result) ui.Rows {
	rows := ui.Rows{Columns: diffColumns()}
	for _, f := range res.Families {
		for i := range f.Keys {
			rows.Add(diffCells(f.CF, f.Family, &f.Keys[i])...)
		}
	}
	rows.Notes = diffFamilyNotes(res)
	return rows
}

// diffCells is the one row of a differing key, for the table, the records
// and the TSV.
func diffCells(cf, family string, k *storediff.Key) []ui.Cell {
	// Decoded as scan's Decoded column shows a key; one that does not decode says why.
	key := k.FieldList.String()
	switch {
	case k.Sentinel != "":
		key = k.Sentinel + " sentinel"
	case k.KeyError != "":
		key = k.KeyText
	}
	a, b := diffValueCell(k.A), diffValueCell(k.B)
	if k.A != nil && k.B != nil && k.A.Error == "" && k.B.Error == "" {
		a.Cut, b.Cut = diffAround(k.A.Value, k.B.Value)
	}
	return []ui.Cell{ui.Text(cf), ui.Text(family), diffChangeCell(k.Change, k.Unreadable), ui.Text(key),
		a, b, ui.Text(k.Key)}
}

// diffBefore is how much of a changed value a terminal keeps before the first byte where
// the two sides differ, and diffFar how far into the values that byte must be for the
// rest before it to go: a cut cell (diffColumns' MinWidth) still shows the difference.
const (
	diffBefore = 6
	diffFar    = 16
)

// diffAround is what a terminal shows of a changed key's two values where they are cut
// (ui.Cell.Cut): "" (the values cut as any text is) when they differ within their first
// diffFar bytes; else each from diffBefore bytes before the first byte where they differ,
// after that byte's offset: "byte 1043: …s":410,…" against "byte 1043: …s":503,…". Cut
// from the right, two long values that differ far in looked the same (issue 46). Whole
// where they fit; TSV and -o json always have them whole (Plain).
func diffAround(a, b string) (string, string) {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	if i <= diffFar || a == b {
		return "", "" // or the two differ only in bytes their text does not show
	}
	from := i - diffBefore
	for from > 0 && !utf8.RuneStart(a[from]) {
		from-- // the same bytes in both up to i: a rune starts at from in b too
	}
	at := fmt.Sprintf("byte %d: …", i)
	return at + a[from:], at + b[from:]
}

func diffChangeCell(change, unreadable string) ui.Cell {
	c := ui.Cell{Human: strings.ReplaceAll(change, "_", " "), Plain: change}
	c.Human = strings.NewReplacer("in a", "in A", "in b", "in B").Replace(c.Human)
	c.Color = ui.ColorYellow
	if unreadable != "" {
		// "unreadable in A", "in B", "in both".
		side := strings.ToUpper(unreadable)
		if unreadable == "both" {
			side = unreadable
		}
		c.Human += " in " + side
		c.Color = ui.ColorRed
	}
	return c
}

func diffValueCell(v *storediff.Value) ui.Cell {
	switch {
	case v == nil:
		return ui.Cell{Human: "-", Plain: ""}
	case v.Error != "" && v.ValueHex == "" && v.Value == "":
		return ui.Text("(" + v.Error + ")")
	case v.Error != "":
		return ui.Text(v.Value + " (" + v.Error + ")")
	}
	return ui.Text(v.Value)
}

// diffCounts says "1 only in A, 0 only in B, 2 changed", and how many keys could not be
// read where any could not.
func diffCounts(onlyA, onlyB, changed, unreadable int64) string {
	s := fmt.Sprintf("%d only in A, %d only in B, %d changed", onlyA, onlyB, changed)
	if unreadable > 0 {
		s += fmt.Sprintf(", %d unreadable", unreadable)
	}
	return s
}
