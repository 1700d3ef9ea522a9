package cmd

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
)

// Column is one column of a listing: its header on a terminal and in TSV.
type Column struct {
	Header string
	Right  bool // numbers are right-aligned on a terminal
}

// Cell is one value in two renderings: Human for a person at a terminal (1.2 MiB, 3m ago),
// Plain for TSV (exact, unitless, parseable).
type Cell struct {
	Human string
	Plain string
}

// Text is a cell that reads the same everywhere.
func Text(s string) Cell { return Cell{Human: s, Plain: s} }

// Int is an integer cell: thousands separators for people, digits for scripts.
func Int(v int64) Cell { return Cell{Human: groupDigits(v), Plain: fmt.Sprint(v)} }

// Rows is the output of a command's one row builder.
type Rows struct {
	Columns []Column
	Rows    [][]Cell
}

// Add appends one row.
func (r *Rows) Add(cells ...Cell) { r.Rows = append(r.Rows, cells) }

// render prints data: JSON when asked (the stable schema is data's own JSON encoding), else
// the rows from build, as a table on a terminal or forced with -o table, and TSV otherwise.
// tableOutput: rows are shown as a table (asked for, or on a terminal).
func (e *Env) tableOutput() bool {
	return e.Output == "table" || (e.Output == "" && e.IO.OutIsTerminal)
}

func (e *Env) render(data any, build func() Rows) error {
	if e.JSON() {
		return writeJSON(e.IO.Out, data)
	}
	rows := build()
	if e.tableOutput() {
		return writeTable(e.IO.Out, rows)
	}
	return writeTSV(e.IO.Out, rows)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func writeTSV(w io.Writer, r Rows) error {
	t := newTSVStream(w, r.Columns)
	for _, row := range r.Rows {
		if err := t.row(row); err != nil {
			return err
		}
	}
	return t.flush()
}

// tsvStream writes TSV a row at a time, for a listing written as it is read
// (tenants ls of 10^6 tenants) as well as for built Rows.
type tsvStream struct {
	w   *bufio.Writer
	err error
}

func newTSVStream(w io.Writer, cols []Column) *tsvStream {
	t := &tsvStream{w: bufio.NewWriterSize(w, 64<<10)}
	for i, c := range cols {
		if i > 0 {
			t.w.WriteByte('\t')
		}
		t.w.WriteString(strings.ToLower(strings.ReplaceAll(c.Header, " ", "_")))
	}
	t.w.WriteByte('\n')
	return t
}

func (t *tsvStream) row(cells []Cell) error {
	for i, c := range cells {
		if i > 0 {
			t.w.WriteByte('\t')
		}
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

func writeTable(w io.Writer, r Rows) error {
	headers := make([]string, len(r.Columns))
	for i, c := range r.Columns {
		headers[i] = c.Header
	}
	data := make([][]string, len(r.Rows))
	for i, row := range r.Rows {
		data[i] = make([]string, len(row))
		for j, c := range row {
			data[i][j] = sanitizeTerminal(c.Human)
		}
	}
	headerStyle := lipgloss.NewStyle().Bold(true).Padding(0, 1)
	cellStyle := lipgloss.NewStyle().Padding(0, 1)
	t := table.New().
		Border(lipgloss.NormalBorder()).
		BorderRow(false).
		Headers(headers...).
		Rows(data...).
		StyleFunc(func(row, col int) lipgloss.Style {
			s := cellStyle
			if row == table.HeaderRow {
				s = headerStyle
			}
			if col < len(r.Columns) && r.Columns[col].Right {
				s = s.Align(lipgloss.Right)
			}
			return s
		})
	_, err := fmt.Fprintln(w, t.Render())
	return err
}

// sanitizeTerminal stops a tenant id or error text from driving the operator's terminal.
func sanitizeTerminal(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '�'
		}
		return r
	}, s)
}

func groupDigits(v int64) string {
	s := fmt.Sprint(v)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// HumanBytes renders a byte count in binary units.
func HumanBytes(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := uint64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
