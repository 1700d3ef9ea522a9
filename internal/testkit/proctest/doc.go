// Package proctest is for tests that run the tool as a process and must meet it at a
// point it stopped itself at (the pause points: internal/selfstop), rather than racing it
// with a clock: a process's state as the kernel reports it, and waiting until it is
// stopped. Imported by tests only (internal/testkit).
package proctest
