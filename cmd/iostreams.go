package cmd

import (
	"io"
	"os"

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
}

// SystemStreams are the process's standard streams.
func SystemStreams() IOStreams {
	return IOStreams{
		In:            os.Stdin,
		Out:           os.Stdout,
		Err:           os.Stderr,
		OutIsTerminal: term.IsTerminal(int(os.Stdout.Fd())),
		ErrIsTerminal: term.IsTerminal(int(os.Stderr.Fd())),
	}
}
