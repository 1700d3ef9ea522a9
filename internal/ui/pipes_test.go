package ui

import (
	"errors"
	"fmt"
	"syscall"
	"testing"
)

type closedPipe struct{ writes int }

func (c *closedPipe) Write(b []byte) (int, error) {
	c.writes++
	return 0, fmt.Errorf("write |1: %w", syscall.EPIPE)
}

// A listing's stdout fails with EPIPE and says its reader went away; stderr and stdout
// during work that writes a store drop what follows, unwritten.
func TestPipe(t *testing.T) {
	w := &closedPipe{}
	out := &Pipe{W: w}
	if _, err := out.Write([]byte("x")); !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("a listing's stdout: %v, want EPIPE", err)
	}
	if !out.ReaderGone(nil) || out.ReaderGone(errors.New("store error")) {
		t.Errorf("ReaderGone: gone with no error %v, gone with a store error %v; want true, false",
			out.ReaderGone(nil), out.ReaderGone(errors.New("store error")))
	}

	finish := false
	work := &Pipe{W: &closedPipe{}, Finish: &finish}
	if _, err := work.Write([]byte("x")); err == nil {
		t.Errorf("stdout before the work starts: no error")
	}
	finish = true
	if n, err := work.Write([]byte("xy")); n != 2 || err != nil {
		t.Errorf("stdout while the work runs: %d, %v; want 2, nil", n, err)
	}

	ew := &closedPipe{}
	errs := &Pipe{W: ew, Drop: true}
	for range 3 {
		if n, err := errs.Write([]byte("note")); n != 4 || err != nil {
			t.Errorf("stderr: %d, %v; want 4, nil", n, err)
		}
	}
	if ew.writes != 1 {
		t.Errorf("stderr written %d times after its reader went away, want 1", ew.writes)
	}
}
