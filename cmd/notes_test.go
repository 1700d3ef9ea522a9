package cmd

import (
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
	"github.com/ankusa/ankusa-store/internal/ui/progress"
)

// A note or a warning said while the live progress line is drawn clears the line first:
// written after it, the note would be glued to the line's text on the terminal.
func TestNotesClearTheLiveLine(t *testing.T) {
	for _, say := range []func(*Env){
		func(e *Env) { e.note("no dead letters match") },
		func(e *Env) { e.warn("the stores changed") },
	} {
		streams, _, _, errb := iostreams.Test()
		streams.ErrIsTerminal, streams.ErrWidth = true, 80
		env := &Env{IO: streams, ProgressMode: progress.TTY}
		p := env.Progress("dlq export store", "dead letters", 10)
		p.Add(5) // the first count is drawn at once
		drawn := errb.Len()
		if drawn == 0 {
			t.Fatal("no live line drawn")
		}
		say(env)
		p.Done()
		after := errb.String()[drawn:]
		if !strings.HasPrefix(after, "\r\033[K") {
			t.Errorf("the line after the live line is %q: not cleared first", after)
		}
	}
}
