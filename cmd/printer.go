package cmd

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
	"github.com/charmbracelet/x/ansi"

	"github.com/ankusa/ankusa-store/internal/words"
)

// Column is one column of a listing.
type Column struct {
	// Header is the column's title on a terminal, where it may be short; Name is its
	// name in TSV headers (default: Header in snake case), where it says its unit
	// ("oldest_due_age_ms").
	Header string
	Name   string
	Right  bool // numbers are right-aligned on a terminal
	// Flex marks free text (an error, a detail, a value): truncated with an ellipsis,
	// widest first, down to MinWidth (default 10), when the table is wider than the terminal.
	// Ids (tenant ids, refs, hook ids, seqs, keys) are never Flex: a cut id cannot tell two
	// rows apart, nor be pasted into the next command.
	Flex     bool
	MinWidth int
	// Wrap marks free text read whole (a field's value): wrapped at spaces within its
	// column, down to MinWidth, instead of cut; one long value never turns the table into
	// records.
	Wrap bool
	// Drop > 0 lets the column be hidden when cutting free text is not enough; the highest
	// goes first, and the free text then gets back the room it frees. --wide shows every
	// column, whole.
	Drop int
	// Redundant columns repeat what another shown column holds (Seq and Sink, which Ref
	// holds as SEQ:SINK): hidden, in Drop order, before any free text is cut.
	Redundant bool
	// OmitEmpty hides the column in a table when no row has a value in it.
	OmitEmpty bool
	// TableOnly columns are for people (an age that changes each second, derived from a
	// time TSV already has): TSV leaves them out.
	TableOnly bool
}

func (c Column) tsvName() string {
	if c.Name != "" {
		return c.Name
	}
	return strings.ToLower(strings.ReplaceAll(c.Header, " ", "_"))
}

// Cell is one value in two renderings: Human for a person at a terminal (1.2 MiB, 3m ago),
// Plain for TSV (exact, unitless, parseable). Color is the SGR colour of the cell on a
// terminal that takes colour ("" none).
type Cell struct {
	Human string
	Plain string
	Color string
}

// Colours for verdicts and warnings.
const (
	colorGreen  = "32"
	colorYellow = "33"
	colorRed    = "31"
	colorBold   = "1"
	colorFaint  = "2"
)

// Text is a cell that reads the same everywhere.
func Text(s string) Cell { return Cell{Human: s, Plain: s} }

// Int is a count: thousands separators for people, digits for scripts.
func Int(v int64) Cell { return Cell{Human: groupDigits(v), Plain: fmt.Sprint(v)} }

// ID is an identifier (a seq, an ordinal, a sink): digits everywhere, never grouped,
// so that it can be copied into the next command.
func ID[T ~int | ~int64 | ~uint16 | ~uint32 | ~uint64](v T) Cell {
	s := fmt.Sprint(v)
	return Cell{Human: s, Plain: s}
}

// Rows is the output of a command's one row builder.
type Rows struct {
	Columns []Column
	Rows    [][]Cell
	// Empty is what a table says when there are no rows ("no dead letters match").
	Empty string
	// Notes follow the table on a terminal ("showing 2 of 6 tenants"); beside TSV they go
	// to stderr, where -q silences them.
	Notes []string
	// Next is the paging hint ("next page: --after X"): a result, so it follows the table
	// on a terminal and goes to stderr beside TSV (which stays pure rows), whatever -q says.
	Next string
	// Record prints every row one field per line; rows that cannot fit the terminal
	// as a table are printed so anyway.
	Record bool
}

// Add appends one row.
func (r *Rows) Add(cells ...Cell) { r.Rows = append(r.Rows, cells) }

// table reports whether rows are drawn as a table: on a terminal, or with -o table.
func (e *Env) table() bool {
	return e.Output == "table" || (e.Output == "" && e.IO.OutIsTerminal)
}

// render prints data: JSON when asked (the stable schema is data's own JSON encoding, with
// "schema" added), else the rows from build, as a table on a terminal or forced with
// -o table, and TSV otherwise.
func (e *Env) render(data any, build func() Rows) error {
	if e.JSON() {
		return writeJSON(e.IO.Out, data)
	}
	return e.renderRows(build())
}

// renderRows prints rows as a table or TSV, with their notes and paging hint.
func (e *Env) renderRows(rows Rows) error {
	if e.table() {
		return e.writeTable(e.IO.Out, rows)
	}
	if err := writeTSV(e.IO.Out, rows, !e.NoHeaders); err != nil {
		return err
	}
	if !e.Quiet {
		if len(rows.Rows) == 0 && rows.Empty != "" {
			fmt.Fprintln(e.IO.Err, "note:", safeLines(rows.Empty))
		}
		for _, n := range rows.Notes {
			fmt.Fprintln(e.IO.Err, "note:", safeLines(n))
		}
	}
	if rows.Next != "" {
		fmt.Fprintln(e.IO.Err, safeLines(rows.Next))
	}
	return nil
}

func writeTSV(w io.Writer, r Rows, headers bool) error {
	t := newTSVStream(w, r.Columns, headers)
	for _, row := range r.Rows {
		if err := t.row(row); err != nil {
			return err
		}
	}
	return t.flush()
}

// tsvStream writes TSV a row at a time, for a listing written as it is read
// (tenants ls of 10^6 tenants) as well as for built Rows. Table-only columns
// are left out.
type tsvStream struct {
	w    *bufio.Writer
	cols []Column
}

func newTSVStream(w io.Writer, cols []Column, headers bool) *tsvStream {
	t := &tsvStream{w: bufio.NewWriterSize(w, 64<<10), cols: cols}
	if headers {
		first := true
		for _, c := range cols {
			if c.TableOnly {
				continue
			}
			if !first {
				t.w.WriteByte('\t')
			}
			first = false
			t.w.WriteString(c.tsvName())
		}
		t.w.WriteByte('\n')
	}
	return t
}

func (t *tsvStream) row(cells []Cell) error {
	first := true
	for i, c := range cells {
		if i < len(t.cols) && t.cols[i].TableOnly {
			continue
		}
		if !first {
			t.w.WriteByte('\t')
		}
		first = false
		t.w.WriteString(tsvEscape(c.Plain))
	}
	// bufio keeps its first write error and returns it from every later call.
	_, err := t.w.WriteString("\n")
	return err
}

func (t *tsvStream) flush() error { return t.w.Flush() }

// tsvEscape keeps one record per line whatever a tenant id or error text holds.
func tsvEscape(s string) string {
	if !strings.ContainsAny(s, "\t\n\r\\") {
		return s
	}
	r := strings.NewReplacer("\\", `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`)
	return r.Replace(s)
}

// writeTable draws rows fitted to the terminal: free text truncated, then droppable columns
// hidden, then (where allowed) one field per line; --wide draws everything whole.
func (e *Env) writeTable(w io.Writer, r Rows) error {
	if len(r.Rows) == 0 {
		if r.Empty != "" {
			fmt.Fprint(w, e.wrap(r.Empty))
		}
		for _, n := range r.Notes {
			fmt.Fprint(w, e.wrap(n))
		}
		return nil
	}
	cells := tableCells(r)
	lay := fitColumns(r.Columns, cells, e.width(), e.Wide)
	color := e.IO.colorOn(e.IO.OutIsTerminal)
	if !lay.fits || r.Record {
		if err := e.writeRecords(w, r, cells, color); err != nil {
			return err
		}
	} else {
		if err := e.drawTable(w, r, cells, lay, color); err != nil {
			return err
		}
		if note := fitNote(r.Columns, lay); note != "" {
			r.Notes = append(r.Notes, note)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprint(w, e.wrap(n))
	}
	if r.Next != "" {
		fmt.Fprint(w, e.wrap(r.Next))
	}
	return nil
}

// tableCells are the rows' Human texts, made safe for a terminal, one per column.
func tableCells(r Rows) [][]string {
	cells := make([][]string, len(r.Rows))
	for i, row := range r.Rows {
		cells[i] = make([]string, len(r.Columns))
		for j := range r.Columns {
			if j < len(row) {
				cells[i][j] = safeLine(row[j].Human)
			}
		}
	}
	return cells
}

// wrap fits a line of prose to the terminal, continuation lines indented by two, with
// what it quotes from a store or an argument escaped (safetext.go). Colour goes on after.
func (e *Env) wrap(s string) string { return wrapTo(safeLines(s), e.width()) }

// wrapErr is wrap for stderr: a note, a warning or an error on a terminal.
func (e *Env) wrapErr(s string) string {
	if !e.IO.ErrIsTerminal {
		return s + "\n"
	}
	return wrapTo(s, e.IO.ErrWidth)
}

// wrapPreview is wrap for what a command would do, on stderr (checkpoints rm without
// --yes): read by a person whatever stderr is, so fitted to its terminal, or to 79
// columns where no width is known, as --help is.
func (e *Env) wrapPreview(s string) string {
	w := e.IO.ErrWidth
	if w <= 0 {
		w = helpDefaultWidth
	}
	return wrapTo(safeLines(s), w)
}

func wrapTo(s string, width int) string {
	if width <= 20 || ansi.StringWidth(s) <= width {
		return s + "\n"
	}
	var b strings.Builder
	for _, para := range strings.Split(s, "\n") {
		for i, l := range wrapWords(para, width-2) {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(strings.TrimRight(l, " ") + "\n")
		}
	}
	return b.String()
}

// wrapWords breaks s into lines of at most width columns at spaces only, so that no
// token is split ("50,000 rows/s", a path, a key); a token wider than a whole line is
// the one thing broken, as it cannot fit otherwise. Colours are kept and take no room.
func wrapWords(s string, width int) []string {
	if width <= 0 || ansi.StringWidth(s) <= width {
		return []string{s}
	}
	var lines []string
	var cur strings.Builder
	curW, n := 0, 0 // the current line's width and words
	for _, word := range strings.Split(s, " ") {
		w := ansi.StringWidth(word)
		if n > 0 && curW+1+w > width {
			lines = append(lines, cur.String())
			cur.Reset()
			curW, n = 0, 0
			if word == "" {
				continue // a run of spaces at a break is the break
			}
		}
		if w > width {
			parts := strings.Split(ansi.Hardwrap(word, width, true), "\n")
			lines = append(lines, parts[:len(parts)-1]...)
			word = parts[len(parts)-1]
			w = ansi.StringWidth(word)
		}
		if n > 0 {
			cur.WriteByte(' ')
			curW++
		}
		cur.WriteString(word)
		curW += w
		n++
	}
	return append(lines, cur.String())
}

// width is what tables fit: the terminal's width, 0 for unlimited.
func (e *Env) width() int { return e.IO.OutWidth }

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
// when that fits; else free text (Flex, Wrap) cut, widest first, as far as its minimum;
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
	for {
		n, need, least := 0, 0, 0 // shown columns, their natural width, their width with free text at its minimum
		for j, c := range cols {
			if !lay.shown[j] {
				continue
			}
			n++
			need += natural[j]
			if free(c) {
				least += min(natural[j], flexMin(c))
			} else {
				least += natural[j]
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
		if least+tableOverhead(n) <= width {
			// Cut free text, one column at a time from the widest, until it fits.
			for excess := need + tableOverhead(n) - width; excess > 0; excess-- {
				best := -1
				for j, c := range cols {
					if lay.shown[j] && free(c) && lay.widths[j] > flexMin(c) && (best < 0 || lay.widths[j] > lay.widths[best]) {
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

func (e *Env) drawTable(w io.Writer, r Rows, cells [][]string, lay layout, color bool) error {
	var headers []string
	var idx []int
	for j, c := range r.Columns {
		if lay.shown[j] {
			headers = append(headers, c.Header)
			idx = append(idx, j)
		}
	}
	data := make([][]string, len(cells))
	for i, row := range cells {
		for _, j := range idx {
			s := row[j]
			if ansi.StringWidth(s) > lay.widths[j] {
				if r.Columns[j].Wrap {
					s = strings.Join(wrapWords(s, lay.widths[j]), "\n")
				} else {
					s = truncateWidth(s, lay.widths[j])
				}
			}
			if color && j < len(r.Rows[i]) && r.Rows[i][j].Color != "" {
				s = sgr(r.Rows[i][j].Color, s)
			}
			data[i] = append(data[i], s)
		}
	}
	border := lipgloss.NormalBorder()
	if !e.IO.boxDrawing() {
		border = lipgloss.ASCIIBorder()
	}
	cellStyle := lipgloss.NewStyle().Padding(0, 1)
	headerStyle := cellStyle
	if color {
		headerStyle = headerStyle.Bold(true)
	}
	t := table.New().
		Border(border).
		BorderRow(false).
		Headers(headers...).
		Rows(data...).
		StyleFunc(func(row, col int) lipgloss.Style {
			s := cellStyle
			if row == table.HeaderRow {
				s = headerStyle
			}
			if col < len(idx) && r.Columns[idx[col]].Right {
				s = s.Align(lipgloss.Right)
			}
			return s
		})
	out := t.Render()
	if !color {
		// lipgloss picks its colour profile itself; no SGR may leak past NO_COLOR.
		out = ansi.Strip(out)
	}
	_, err := fmt.Fprintln(w, out)
	return err
}

// writeRecords prints each row as a block of "Field: value" lines, values wrapped to the
// terminal (kubectl describe): for rows that cannot fit one line.
func (e *Env) writeRecords(w io.Writer, r Rows, cells [][]string, color bool) error {
	nameW := 0
	for _, c := range r.Columns {
		nameW = max(nameW, ansi.StringWidth(c.Header)+1)
	}
	var b strings.Builder
	for i, row := range cells {
		if i > 0 {
			b.WriteByte('\n')
		}
		for j, c := range r.Columns {
			if row[j] == "" {
				continue
			}
			v := row[j]
			if color && r.Rows[i][j].Color != "" {
				v = sgr(r.Rows[i][j].Color, v)
			}
			b.WriteString(recordLine(c.Header+":", v, nameW, e.width()))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// recordLine is "name: value", the value wrapped to width with a hanging indent.
func recordLine(name, value string, nameW, width int) string {
	pad := nameW + 1
	first := name + strings.Repeat(" ", max(1, pad-ansi.StringWidth(name)))
	return hanging(first, value, pad, width, 11)
}

// hanging is head then value wrapped at spaces to width, later lines indented to col;
// with less than minRoom columns beside the head (or no width), the value on one line.
func hanging(head, value string, col, width, minRoom int) string {
	room := width - max(col, ansi.StringWidth(head))
	if width <= 0 || room < minRoom {
		return head + value + "\n"
	}
	lines := wrapWords(value, room)
	var b strings.Builder
	for i, l := range lines {
		if i == 0 {
			b.WriteString(head)
		} else {
			b.WriteString(strings.Repeat(" ", col))
		}
		b.WriteString(strings.TrimRight(l, " ") + "\n")
	}
	return b.String()
}

// truncateWidth cuts s to n terminal columns, ending in an ellipsis when it cut.
func truncateWidth(s string, n int) string {
	if ansi.StringWidth(s) <= n {
		return s
	}
	if n <= 1 {
		return ansi.Truncate(s, n, "")
	}
	return ansi.Truncate(s, n, "…")
}

func sgr(code, s string) string { return "\033[" + code + "m" + s + "\033[0m" }

// paint colours s for stream w when that stream takes colour.
func (e *Env) paint(toErr bool, code, s string) string {
	term := e.IO.OutIsTerminal
	if toErr {
		term = e.IO.ErrIsTerminal
	}
	if !e.IO.colorOn(term) {
		return s
	}
	return sgr(code, s)
}

// groupDigits, plural ("1 hook", "2,048 hooks") and HumanBytes are internal/words's rules,
// the ones every layer uses; the names stay while the output layer is being moved.
func groupDigits(v int64) string { return words.Group(v) }

func plural(n int64, one, many string) string { return words.Count(n, one, many) }

// HumanBytes renders a byte count in binary units (sizes here are file and row bytes, far
// below 2^63).
func HumanBytes(n uint64) string { return words.Bytes(int64(n)) }
