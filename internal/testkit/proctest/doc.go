// Package proctest is for tests that run the tool as a process and must meet it at a
// point it stopped itself at (the pause points: internal/pausepoint), rather than racing it
// with a clock: starting it, a process's state as the kernel reports it, and running it to
// its point (Start, Run.ToPoint), bounded, so that a point that never stops fails the test
// saying so rather than waiting for go test's own timeout. Imported by tests only
// (internal/testkit).
package proctest
