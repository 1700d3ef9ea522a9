// Package pausepoint is the one mechanism behind every crash test's point: a package names
// its points and the environment variable that picks one (migration.PauseEnv,
// rocks.OptionsPauseEnv, checkpoint.RemovePauseEnv, health.RepairFaultEnv,
// fixture.KillPointEnv and PausePointEnv), the variable is read once as the process
// starts, and the code reaching the point it names stops the process where it stands
// (SIGSTOP to its own thread), or kills it (SIGKILL, as kill -9). A stopped process is the
// marker the harness waits for: its state in /proc is T (internal/testkit/proctest). The
// test then changes the world under it (fills the disk, kills it, starts a node) and lets
// it go on with SIGCONT. A point that waited for a poll of the test instead would be where
// the clock put it, once in many runs.
//
// Nothing but tests and the benchmark scripts set these variables; unset or naming another
// point, a point does nothing.
package pausepoint
