package ui

import (
	"io"

	"github.com/ankusa/ankusa-store/internal/safetext"
)

// Terminal safety (issue 19): nothing from a store or an argument may drive the
// operator's terminal. Two layers:
//
//   - at the source, what a person reads is escaped (SafeLine, SafeLines) before it is
//     measured and laid out: table cells, records, notes, errors, progress labels, the
//     verify report, dlq show. Only there can a table be fitted exactly, and only there
//     can a hostile text be told from the tool's own colours;
//   - at the stream, stdout when it is a terminal and stderr always (it holds only
//     prose: notes, progress, errors) go through a safetext.Writer (Guard), which escapes
//     any control the first layer missed; only the tool's own colours and live line pass,
//     and not even those where the tool draws neither (NO_COLOR, a log, -o tsv; -o json
//     is escaped as JSON).
//     Piped stdout is never touched: TSV and JSON stay byte-exact for scripts.

// SafeLine is text from a store or an argument made one line safe for a terminal.
func SafeLine(s string) string { return safetext.Text(s) }

// SafeLines is SafeLine keeping newlines and tabs: prose, an error, a body.
func SafeLines(s string) string { return safetext.Lines(s) }

// Guards are the two stream writers of the stream layer.
type Guards struct{ out, err *safetext.Writer }

// Guard puts the stream layer on *out (only when outIsTerminal) and on *err, each
// escaping in the mode its function says at the time of each write.
func Guard(out, err *io.Writer, outIsTerminal bool, outMode, errMode func() safetext.Mode) *Guards {
	g := &Guards{}
	if outIsTerminal {
		g.out = safetext.NewWriter(*out, outMode)
		*out = g.out
	}
	g.err = safetext.NewWriter(*err, errMode)
	*err = g.err
	return g
}

// Flush writes what the writers hold (a rune cut by the last write).
func (g *Guards) Flush() {
	if g.out != nil {
		_ = g.out.Flush()
	}
	_ = g.err.Flush()
}
