package ui

import (
	"fmt"
	"strings"

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
	// Want is the width free text is kept at while a droppable column could be hidden
	// instead: the column an operator opened the listing for (dlq scan's Last error, the
	// reason a letter died) is cut below min(Want, its widest cell) only once every
	// droppable column is hidden. 0: cut before any column is hidden, to MinWidth.
	Want int
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
	// Cut is what a table shows of the cell when Human is too wide for its column, cut to
	// it in turn ("" is Human cut): for text whose point is not at its start (diff's two
	// values from just before where they differ).
	Cut string
}

// Colours for verdicts and warnings.
const (
	ColorGreen  = "32"
	ColorYellow = "33"
	ColorRed    = "31"
)

// Text is a cell that reads the same everywhere.
func Text(s string) Cell { return Cell{Human: s, Plain: s} }

// Int is a count: thousands separators for people, digits for scripts.
func Int(v int64) Cell { return Cell{Human: words.Group(v), Plain: fmt.Sprint(v)} }

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
