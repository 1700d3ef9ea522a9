package ui

import (
	"errors"
	"io"
	"syscall"
)

// What a stream does when its reader goes away (`| head`, a pager quit early, a closed
// ssh session): with SIGPIPE ignored (iostreams.System), a write to a closed pipe fails
// with EPIPE instead of killing the process with exit 141. A Pipe notes it, so that a
// listing can stop at its next write and end quietly (ReaderGone), and drops what is
// written after it where nothing may stop for it: stderr always (a note, progress, a
// warning stops nothing), stdout while the work that writes a store runs (a migration
// that stopped because `2>&1 | head -1` read its first line would leave the store
// mid-migration for no reason).

// Pipe is a standard stream that notes when its reader went away.
type Pipe struct {
	W io.Writer
	// Drop: writes after the reader went away succeed unwritten (stderr always; stdout
	// while *Finish is set).
	Drop   bool
	Finish *bool
	gone   bool
}

func (p *Pipe) Write(b []byte) (int, error) {
	if p.gone && p.dropping() {
		return len(b), nil
	}
	n, err := p.W.Write(b)
	if err != nil && errors.Is(err, syscall.EPIPE) {
		p.gone = true
		if p.dropping() {
			return len(b), nil
		}
	}
	return n, err
}

func (p *Pipe) dropping() bool { return p.Drop || (p.Finish != nil && *p.Finish) }

// ReaderGone says whether err is what a listing returns when this stream's reader went
// away.
func (p *Pipe) ReaderGone(err error) bool {
	return p.gone && (err == nil || errors.Is(err, syscall.EPIPE))
}
