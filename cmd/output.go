package cmd

import (
	"fmt"
	"io"

	"github.com/ankusa/ankusa-store/internal/clidoc"
	"github.com/ankusa/ankusa-store/internal/cmdutil"
	"github.com/ankusa/ankusa-store/internal/safetext"
	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
	"github.com/ankusa/ankusa-store/internal/ui/progress"
)

// The output layer is internal/ui; what is here turns a command's flags and streams into
// its Printer.

// printer is how this command prints rows: its -o, --wide, --no-headers and -q, and what
// its stdout is.
func (e *Env) printer() ui.Printer {
	return ui.Printer{
		Out:       e.IO.Out,
		Err:       e.IO.Err,
		Table:     e.table(),
		Width:     e.width(),
		ErrWidth:  e.errWidth(),
		Wide:      e.Wide,
		NoHeaders: e.NoHeaders,
		Quiet:     e.Quiet,
		Color:     e.IO.ColorOn(e.IO.OutIsTerminal),
		ASCII:     !e.IO.BoxDrawing(),
	}
}

// table reports whether rows are drawn as a table: on a terminal, or with -o table.
func (e *Env) table() bool {
	return e.Output == "table" || (e.Output == "" && e.IO.OutIsTerminal)
}

// render prints data: JSON when asked (the stable schema is data's own JSON encoding, with
// "schema" added), else the rows from build, as a table on a terminal or forced with
// -o table, and TSV otherwise.
func (e *Env) render(data any, build func() ui.Rows) error {
	if e.JSON() {
		return ui.WriteJSON(e.IO.Out, data)
	}
	return e.renderRows(build())
}

// renderRows prints rows as a table or TSV, with their notes and paging hint.
func (e *Env) renderRows(rows ui.Rows) error { return e.printer().Rows(rows) }

// writeTable draws rows fitted to the terminal (ui.Printer.WriteTable).
func (e *Env) writeTable(w io.Writer, r ui.Rows) error { return e.printer().WriteTable(w, r) }

// wrap fits a line of prose to the terminal, continuation lines indented by two, with
// what it quotes from a store or an argument escaped (internal/ui/guard.go). Colour goes on after.
func (e *Env) wrap(s string) string { return ui.WrapTo(ui.SafeLines(s), e.width()) }

// wrapErr is wrap for stderr: a note, a warning or an error on a terminal.
func (e *Env) wrapErr(s string) string {
	if !e.IO.ErrIsTerminal {
		return s + "\n"
	}
	return ui.WrapTo(s, e.IO.ErrWidth)
}

// errWidth is what stderr's lines fit: its terminal's width, 0 (whole lines) when it is
// no terminal, whatever $COLUMNS says: a log or a pipe is read by a program, or wraps
// itself.
func (e *Env) errWidth() int {
	if !e.IO.ErrIsTerminal {
		return 0
	}
	return e.IO.ErrWidth
}

// notes is the one printer of notes and warnings (ui.Notes) for this command's stderr,
// -q and live progress line.
func (e *Env) notes() ui.Notes {
	n := ui.Notes{Err: e.IO.Err, Width: e.errWidth(), Quiet: e.Quiet,
		Label: func(s string) string { return e.paint(true, ui.ColorYellow, s) }}
	if e.live != nil {
		n.Above = e.live.Above
	}
	return n
}

// note prints "note: " and the text on stderr, unless -q: what it quotes (a path, a
// tenant) escaped, wrapped to stderr's terminal, above the live progress line.
func (e *Env) note(format string, args ...any) { e.notes().Notef(format, args...) }

// warn prints "warning: " and the text on stderr, -q or not: a warning is a finding.
func (e *Env) warn(format string, args ...any) { e.notes().Warn(fmt.Sprintf(format, args...)) }

// wrapPreview is wrap for what a command would do, on stderr (checkpoints rm without
// --yes): read by a person whatever stderr is, so fitted to its terminal, or to 79
// columns where no width is known, as --help is.
func (e *Env) wrapPreview(s string) string {
	w := e.IO.ErrWidth
	if w <= 0 {
		w = clidoc.DefaultWidth
	}
	return ui.WrapTo(ui.SafeLines(s), w)
}

// width is what tables fit: the terminal's width, 0 for unlimited.
func (e *Env) width() int { return e.IO.OutWidth }

// paint colours s for stream w when that stream takes colour.
func (e *Env) paint(toErr bool, code, s string) string {
	term := e.IO.OutIsTerminal
	if toErr {
		term = e.IO.ErrIsTerminal
	}
	if !e.IO.ColorOn(term) {
		return s
	}
	return ui.SGR(code, s)
}

// guardStreams puts the stream layer of terminal safety (internal/ui/guard.go) on streams:
// what each writer lets through is decided here, by the command's output flags and
// progress mode, at the time of each write.
func guardStreams(streams *iostreams.IOStreams, env *Env, args []string) *ui.Guards {
	return ui.Guard(&streams.Out, &streams.Err, streams.OutIsTerminal,
		func() safetext.Mode {
			switch {
			case env.JSON() || cmdutil.JSONAsked(args):
				return safetext.JSON
			case env.Output == "tsv" || !env.IO.ColorOn(true):
				return safetext.Strict // nothing of the tool's own to let through
			}
			return safetext.Prose
		},
		func() safetext.Mode {
			if env.IO.ColorOn(env.IO.ErrIsTerminal) || env.progressMode() == progress.TTY {
				return safetext.Prose
			}
			return safetext.Strict // a log: no colour, no live line, so no sequence at all
		})
}

// errorLine is how Execute prints an error: the label painted, the message escaped
// (a store path or an argument with ESC in it is shown, not obeyed) and wrapped.
func (e *Env) errorLine(label, color, msg string) string {
	if label == "" {
		return e.wrapErr(ui.SafeLines(msg))
	}
	return e.wrapErr(e.paint(true, color, label) + " " + ui.SafeLines(msg))
}

// Progress starts showing long work on stderr (internal/ui/progress): label says what
// (and where), unit what total counts. Call Done when the work ends, before printing its
// result.
func (e *Env) Progress(label, unit string, total int64) *progress.Progress {
	p := progress.New(e.progressStream(), label, unit, total)
	if e.progressMode() == progress.TTY {
		// The live line notes and warnings are written above (Env.notes).
		e.live = p
	}
	return p
}

// progressStream is where and how this command shows progress: stderr, --progress, -q.
func (e *Env) progressStream() progress.Stream {
	return progress.Stream{W: e.IO.Err, Mode: e.progressMode(), Quiet: e.Quiet, Width: e.IO.ErrWidth}
}

// progressMode resolves --progress (progress.Resolve) for this command's -q and stderr.
func (e *Env) progressMode() string {
	return progress.Resolve(e.ProgressMode, e.Quiet, e.IO.ErrIsTerminal, e.IO.Getenv("TERM") == "dumb")
}
