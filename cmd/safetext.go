package cmd

import (
	"github.com/ankusa/ankusa-store/internal/safetext"
)

// Terminal safety (issue 19): nothing from a store or an argument may drive the
// operator's terminal. Two layers:
//
//   - at the source, what a person reads is escaped (safetext.Text, Lines) before it is
//     measured and laid out: table cells, records, notes, errors, progress labels, the
//     verify report, dlq show. Only there can a table be fitted exactly, and only there
//     can a hostile text be told from the tool's own colours;
//   - at the stream, stdout when it is a terminal and stderr always (it holds only
//     prose: notes, progress, errors) go through a safetext.Writer, which escapes any
//     control the first layer missed; only the tool's own colours and live line pass,
//     and not even those where the tool draws neither (NO_COLOR, a log, -o tsv; -o json
//     is escaped as JSON).
//     Piped stdout is never touched: TSV and JSON stay byte-exact for scripts.

// streamGuards are the two stream writers of Execute.
type streamGuards struct{ out, err *safetext.Writer }

// guardStreams puts the stream layer on streams (see above).
func guardStreams(streams *IOStreams, env *Env, args []string) *streamGuards {
	g := &streamGuards{}
	if streams.OutIsTerminal {
		g.out = safetext.NewWriter(streams.Out, func() safetext.Mode {
			switch {
			case env.JSON() || jsonAsked(args):
				return safetext.JSON
			case env.Output == "tsv" || !env.IO.colorOn(true):
				return safetext.Strict // nothing of the tool's own to let through
			}
			return safetext.Prose
		})
		streams.Out = g.out
	}
	g.err = safetext.NewWriter(streams.Err, func() safetext.Mode {
		if env.IO.colorOn(env.IO.ErrIsTerminal) || env.progressMode() == progressTTY {
			return safetext.Prose
		}
		return safetext.Strict // a log: no colour, no live line, so no sequence at all
	})
	streams.Err = g.err
	return g
}

// flush writes what the writers hold (a rune cut by the last write).
func (g *streamGuards) flush() {
	if g.out != nil {
		_ = g.out.Flush()
	}
	_ = g.err.Flush()
}

// safeLine is text from a store or an argument made one line safe for a terminal.
func safeLine(s string) string { return safetext.Text(s) }

// safeLines is safeLine keeping newlines and tabs: prose, an error, a body.
func safeLines(s string) string { return safetext.Lines(s) }

// errorLine is how Execute prints an error: the label painted, the message escaped
// (a store path or an argument with ESC in it is shown, not obeyed) and wrapped.
func (e *Env) errorLine(label, color, msg string) string {
	if label == "" {
		return e.wrapErr(safeLines(msg))
	}
	return e.wrapErr(e.paint(true, color, label) + " " + safeLines(msg))
}
