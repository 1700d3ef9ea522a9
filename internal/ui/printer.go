package ui

import (
	"fmt"
	"io"
)

// Printer prints Rows as a command's flags and streams ask: cmd builds one per command
// from its -o, --wide, --no-headers and -q and from what its streams are.
type Printer struct {
	Out io.Writer // results
	Err io.Writer // notes and the paging hint beside TSV
	// Table draws rows as a table (stdout is a terminal, or -o table); else TSV.
	Table bool
	// Width is what tables and prose fit: the terminal's width, 0 for unlimited.
	Width int
	// ErrWidth is what the notes and the paging hint beside TSV fit: stderr's terminal's
	// width, 0 (whole lines) when stderr is no terminal.
	ErrWidth  int
	Wide      bool // --wide: every column, whole
	NoHeaders bool // TSV without its header line
	Quiet     bool // -q: no notes beside TSV
	Color     bool // stdout takes SGR colour
	ASCII     bool // tables drawn in ASCII, not box characters (a dumb terminal)
}

// Rows prints rows as a table or TSV, with their notes and paging hint.
func (p Printer) Rows(rows Rows) error {
	if p.Table {
		return p.WriteTable(p.Out, rows)
	}
	if err := WriteTSV(p.Out, rows, !p.NoHeaders); err != nil {
		return err
	}
	notes := Notes{Err: p.Err, Width: p.ErrWidth, Quiet: p.Quiet}
	if len(rows.Rows) == 0 && rows.Empty != "" {
		notes.Note(rows.Empty)
	}
	for _, n := range rows.Notes {
		notes.Note(n)
	}
	if rows.Next != "" {
		fmt.Fprint(p.Err, WrapTo(SafeLines(rows.Next), p.ErrWidth))
	}
	return nil
}

// WriteTable draws rows fitted to the terminal: free text truncated, then droppable columns
// hidden, then (where allowed) one field per line; --wide draws everything whole.
func (p Printer) WriteTable(w io.Writer, r Rows) error {
	if len(r.Rows) == 0 {
		if r.Empty != "" {
			fmt.Fprint(w, p.wrap(r.Empty))
		}
		for _, n := range r.Notes {
			fmt.Fprint(w, p.wrap(n))
		}
		return nil
	}
	cells := tableCells(r)
	lay := fitColumns(r.Columns, cells, p.Width, p.Wide)
	if !lay.fits || r.Record {
		if err := p.writeRecords(w, r, cells); err != nil {
			return err
		}
	} else {
		if err := p.drawTable(w, r, cells, lay); err != nil {
			return err
		}
		if note := fitNote(r.Columns, lay); note != "" {
			r.Notes = append(r.Notes, note)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprint(w, p.wrap(n))
	}
	if r.Next != "" {
		fmt.Fprint(w, p.wrap(r.Next))
	}
	return nil
}

// Fits reports whether rows fit the width as a table (not as records).
func (p Printer) Fits(r Rows) bool {
	return fitColumns(r.Columns, tableCells(r), p.Width, p.Wide).fits
}

// wrap fits a line of prose to the terminal, continuation lines indented by two, with
// what it quotes from a store or an argument escaped (SafeLines). Colour goes on
// after.
func (p Printer) wrap(s string) string { return WrapTo(SafeLines(s), p.Width) }

// tableCells are the rows' Human texts, made safe for a terminal, one per column.
func tableCells(r Rows) [][]string {
	cells := make([][]string, len(r.Rows))
	for i, row := range r.Rows {
		cells[i] = make([]string, len(r.Columns))
		for j := range r.Columns {
			if j < len(row) {
				cells[i][j] = SafeLine(row[j].Human)
			}
		}
	}
	return cells
}
