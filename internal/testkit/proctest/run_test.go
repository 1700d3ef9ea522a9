package proctest

import (
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The harness's wait for a pause point ends three ways, and never waits past its bound: a
// process that stops is met stopped, one that exits is said to have ended, one that neither
// stops nor ends (a point that does not stop, and a run that then hangs) is said to be
// still running, in its state, once the bound has passed.
func TestWaitStoppedEndsEveryWay(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want func(error) bool
	}{
		{"stops", []string{"sh", "-c", "kill -STOP $$; exit 0"}, func(err error) bool { return err == nil }},
		{"ends", []string{"true"}, func(err error) bool { return errors.Is(err, ErrEnded) }},
		{"hangs", []string{"sleep", "60"}, func(err error) bool {
			return err != nil && !errors.Is(err, ErrEnded) && strings.Contains(err.Error(), "did not stop it") && strings.Contains(err.Error(), "state 'S'")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Start(t, exec.Command(tc.args[0], tc.args[1:]...))
			began := time.Now()
			err := WaitStopped(r.Cmd.Process.Pid, r.Done, 300*time.Millisecond)
			if !tc.want(err) {
				t.Fatalf("%v: %v", tc.args, err)
			}
			if took := time.Since(began); took > 30*time.Second {
				t.Fatalf("%v: the wait took %v, past its bound", tc.args, took)
			}
			_ = r.Cmd.Process.Signal(syscall.SIGCONT)
		})
	}
}
