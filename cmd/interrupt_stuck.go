package cmd

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
)

// The first SIGINT, SIGTERM or SIGHUP cancels the command's context (main.go), and a command
// stops at its next look at it. A command blocked in a call that never looks (an open(2) that
// waits on a fifo, a C call into RocksDB) would not end, while README and --help promise exit
// 130: so a command that writes nothing is given stuckGrace to stop by itself, and is then
// ended as interrupted all the same. It wrote nothing, so nothing is left half done; what it
// left in the temporary directory the next run sweeps (internal/scratch). A command that
// writes (setWrites) is always waited for: it stops at a safe point, and a second signal
// kills it (main.go).

// stuckGrace is how long a command that writes nothing has, after an interrupt, to stop by
// itself: its steps look at the context far more often than that, on a loaded machine too.
const stuckGrace = 5 * time.Second

// writes records setWrites for Execute's watch on an interrupt, which runs beside the command.
type writesFlag struct{ atomic.Bool }

// setWrites says the command writes a store (or may): a closed stdout or stderr must not stop
// it (finishWork, internal/exitcode) and an interrupt waits for its safe point.
func (e *Env) setWrites(on bool) {
	e.finishWork = on
	e.writes.Store(on)
}

// commandRun is what root.ExecuteContextC returned.
type commandRun struct {
	c   *cobra.Command
	err error
}

// runUntilInterrupted runs the command tree and returns what it returned; or, when ctx is
// cancelled and a command that writes nothing has not stopped stuckGrace later, stuck: true.
func runUntilInterrupted(ctx context.Context, env *Env, root *cobra.Command) (r commandRun, stuck bool) {
	done := make(chan commandRun, 1)
	go func() {
		c, err := root.ExecuteContextC(ctx)
		done <- commandRun{c, err}
	}()
	select {
	case r = <-done:
		return r, false
	case <-ctx.Done():
	}
	t := time.NewTimer(stuckGrace)
	defer t.Stop()
	select {
	case r = <-done:
		return r, false
	case <-t.C:
	}
	if env.writes.Load() {
		return <-done, false
	}
	return commandRun{}, true
}
