package iostreams

import (
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"golang.org/x/term"
)

// IOStreams are the writers a command prints to. Whether each is a terminal decides the
// output style and whether progress is drawn, so tests can set either without a pty.
type IOStreams struct {
	In            io.Reader
	Out           io.Writer
	Err           io.Writer
	OutIsTerminal bool
	ErrIsTerminal bool
	// OutWidth and ErrWidth are the terminals' widths in columns; 0 is unlimited (a pipe).
	// Tables are fitted to OutWidth, the live progress line to ErrWidth.
	OutWidth int
	ErrWidth int
	// Env reads the environment (NO_COLOR, TERM, COLUMNS, CLICOLOR_FORCE); nil is os.Getenv.
	Env func(string) string
}

// System is the process's standard streams. SIGPIPE is ignored from then on, so that a
// write to a closed pipe fails with EPIPE, which the command layer handles (ui.Pipe),
// instead of killing the process.
func System() IOStreams {
	signal.Ignore(syscall.SIGPIPE)
	s := IOStreams{
		In:            os.Stdin,
		Out:           os.Stdout,
		Err:           os.Stderr,
		OutIsTerminal: term.IsTerminal(int(os.Stdout.Fd())),
		ErrIsTerminal: term.IsTerminal(int(os.Stderr.Fd())),
		Env:           os.Getenv,
	}
	s.OutWidth = streamWidth(os.Stdout, s.OutIsTerminal)
	s.ErrWidth = streamWidth(os.Stderr, s.ErrIsTerminal)
	return s
}

// streamWidth is a terminal's width; for a pipe, $COLUMNS if set (what -o table then
// fits, as ls and gh do), else 0: unlimited.
func streamWidth(f *os.File, isTerminal bool) int {
	if isTerminal {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	if w, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && w > 0 {
		return w
	}
	return 0
}

// Getenv reads the streams' environment.
func (s IOStreams) Getenv(k string) string {
	if s.Env == nil {
		return os.Getenv(k)
	}
	return s.Env(k)
}

// ColorOn says whether a stream that is (or is not) a terminal takes SGR colour: on a
// terminal (or with CLICOLOR_FORCE), never with NO_COLOR or a dumb terminal
// (https://no-color.org).
func (s IOStreams) ColorOn(isTerminal bool) bool {
	if s.Getenv("NO_COLOR") != "" || s.Getenv("TERM") == "dumb" {
		return false
	}
	if f := s.Getenv("CLICOLOR_FORCE"); f != "" && f != "0" {
		return true
	}
	return isTerminal
}

// BoxDrawing says whether tables are drawn with box characters: everywhere but on a dumb
// terminal, which gets ASCII.
func (s IOStreams) BoxDrawing() bool { return s.Getenv("TERM") != "dumb" }
