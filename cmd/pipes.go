package cmd

import (
	"errors"
	"io"
	"syscall"
)

// What a command does when the reader of its stdout or stderr goes away (`| head`, a pager
// quit early, a closed ssh session). SystemStreams ignores SIGPIPE, so a write to a closed
// pipe fails with EPIPE instead of killing the process with exit 141, which no answer uses
// and the README calls a crash. Then:
//
//   - a listing (every read-only command) stops at its next write to stdout, and exits
//     ExitReaderGone, quietly: its reader has what it wanted, and the store was only read;
//   - work that writes a store (migrate, fixture, counters verify --repair; finishWork)
//     never stops for it: its writes to a closed stdout or stderr are dropped, and it ends
//     with the exit status of the work. A migration that stopped because `2>&1 | head -1`
//     read its first line would leave the store mid-migration for no reason;
//   - a line to a closed stderr (a note, progress, a warning) stops nothing.

// ExitReaderGone is the exit status of a listing whose reader went away: 0, because the
// pipeline did what it asked (`tenants ls | head -5` shows five tenants), and a
// `set -o pipefail` script would otherwise fail on a pipeline that worked. A crash code
// (141) stays a crash's.
const ExitReaderGone = ExitOK

// pipeWriter is a standard stream that notes when its reader went away.
type pipeWriter struct {
	w    io.Writer
	gone bool
	// drop: writes after the reader went away succeed unwritten (stderr always; stdout
	// while *finish is set).
	drop   bool
	finish *bool
}

func (p *pipeWriter) Write(b []byte) (int, error) {
	if p.gone && p.dropping() {
		return len(b), nil
	}
	n, err := p.w.Write(b)
	if err != nil && errors.Is(err, syscall.EPIPE) {
		p.gone = true
		if p.dropping() {
			return len(b), nil
		}
	}
	return n, err
}

func (p *pipeWriter) dropping() bool { return p.drop || (p.finish != nil && *p.finish) }

// readerGone says whether err is what a listing returns when its stdout's reader went away.
func readerGone(out *pipeWriter, err error) bool {
	return out.gone && (err == nil || errors.Is(err, syscall.EPIPE))
}
