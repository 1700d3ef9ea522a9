package proctest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// StopWithin bounds the wait for a pause point. The runs that meet one reach it in seconds
// (a migration's first step, a bulk run's stages over 8,000 hooks, a fixture's 1,000th
// hook); two minutes is that many times over on a loaded machine, and well inside go
// test's ten, so that a point that never stops (and a run that then neither stops nor
// ends) fails its test with its name and state instead of the whole package's timeout.
const StopWithin = 2 * time.Minute

// Run is a process started by Start: Done is closed once it has exited, and then Err and
// Result say how.
type Run struct {
	Cmd  *exec.Cmd
	Done chan struct{}
	Err  error
	Result
}

// Result is what a run of the tool did.
type Result struct {
	Code           int
	Stdout, Stderr string
	Signaled       bool // killed by a signal (an abort is a bug, never an answer)
}

func (r Result) String() string {
	return fmt.Sprintf("exit %d (signaled %v)\nstdout:\n%s\nstderr:\n%s", r.Code, r.Signaled, r.Stdout, r.Stderr)
}

// Start starts c, its stdout and stderr kept (unless the caller set them), and waits for it
// on a goroutine; the test's cleanup kills it if it still runs.
func Start(t testing.TB, c *exec.Cmd) *Run {
	t.Helper()
	r := &Run{Cmd: c, Done: make(chan struct{})}
	var out, errb strings.Builder
	if c.Stdout == nil {
		c.Stdout = &out
	}
	if c.Stderr == nil {
		c.Stderr = &errb
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		r.Err = c.Wait()
		r.Stdout, r.Stderr = out.String(), errb.String()
		var ee *exec.ExitError
		if errors.As(r.Err, &ee) {
			r.Code = ee.ExitCode()
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				r.Signaled = true
			}
		}
		close(r.Done)
	}()
	t.Cleanup(func() {
		_ = c.Process.Kill()
		<-r.Done
	})
	return r
}

// StartToPoint starts c with pause ("NAME=POINT", a package's pause variable and one of its
// points) added to its environment and returns once it has stopped itself there (ToPoint);
// it goes on when sent SIGCONT.
func StartToPoint(t testing.TB, c *exec.Cmd, pause, what string) *Run {
	t.Helper()
	if c.Env == nil {
		c.Env = os.Environ()
	}
	c.Env = append(c.Env, pause)
	r := Start(t, c)
	r.ToPoint(t, what)
	return r
}

// ToPoint waits until the run has stopped itself at its pause point (what names it for the
// failure), StopWithin at most; the run ending first, or still running then, fails the test.
func (r *Run) ToPoint(t testing.TB, what string) {
	t.Helper()
	if err := WaitStopped(r.Cmd.Process.Pid, r.Done, StopWithin); err != nil {
		if errors.Is(err, ErrEnded) {
			t.Fatalf("the run ended before it stopped %s: %s", what, r.Result)
		}
		t.Fatalf("the run did not stop %s: %v", what, err)
	}
}

// ErrEnded is WaitStopped's answer for a process that exited before it stopped.
var ErrEnded = errors.New("the process exited before it stopped")

// WaitStopped waits until the process is stopped (nil), has exited (ErrEnded), which done
// tells by being closed so that the caller's own wait still sees it, or within has passed
// with it running (an error naming its state).
func WaitStopped(pid int, done <-chan struct{}, within time.Duration) error {
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	for {
		if State(pid) == 'T' {
			return nil
		}
		select {
		case <-done:
			return ErrEnded
		case <-deadline.C:
			return fmt.Errorf("pid %d still running after %v (state %q): its pause point did not stop it", pid, within, State(pid))
		case <-time.After(100 * time.Microsecond):
		}
	}
}
