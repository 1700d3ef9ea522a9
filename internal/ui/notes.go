package ui

import (
	"fmt"
	"io"
)

// Notes is the one printer of notes and warnings on stderr: a note ("note: ...") is said
// unless -q; a warning ("warning: ...", its label coloured where stderr takes colour) is a
// finding and always said. Each is escaped (what it quotes comes from a store or a path)
// and fitted to stderr's terminal. Where a live progress line is drawn, Above writes the
// line over it (progress.Progress.Above clears the line first), so a note is never glued
// to the line's leftovers.
type Notes struct {
	Err io.Writer
	// Width is stderr's terminal's width, 0 (whole lines) when stderr is no terminal.
	Width int
	Quiet bool
	// Label colours the warning label, or leaves it as it is (nil).
	Label func(string) string
	// Above, when set, writes a finished line above the live progress line.
	Above func(string)
}

// The labels are written here only (notes_lint_test.go refuses a literal "note: " or
// "warning: " in any other file of the program), so every note reads the same, whichever
// stream it lands on.
const (
	noteLabel = "note:"
	warnLabel = "warning:"
)

// NoteLine is text as a note's line, escaped, without its newline: for a note that is part
// of a report on stdout (counters verify's findings counted but not listed), which -q does
// not drop, worded as every note on stderr.
func NoteLine(text string) string { return noteLabel + " " + SafeLines(text) }

// Note says text as a note, unless -q.
func (n Notes) Note(text string) {
	if n.Quiet {
		return
	}
	n.write(NoteLine(text))
}

// Notef is Note with fmt's verbs.
func (n Notes) Notef(format string, args ...any) { n.Note(fmt.Sprintf(format, args...)) }

// Warn says text as a warning, -q or not.
func (n Notes) Warn(text string) {
	label := warnLabel
	if n.Label != nil {
		label = n.Label(label)
	}
	n.write(label + " " + SafeLines(text))
}

func (n Notes) write(line string) {
	s := WrapTo(line, n.Width)
	if n.Above != nil {
		n.Above(s)
		return
	}
	fmt.Fprint(n.Err, s)
}
