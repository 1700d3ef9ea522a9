package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// Exit codes, documented in docs/commands.md; scripts and CI depend on them.
const (
	ExitOK          = 0
	ExitFindings    = 1   // the command ran and found problems (verify)
	ExitUsage       = 2   // bad flags, arguments or input values; nothing was written
	ExitStore       = 3   // not a store, newer format, corruption, no space, I/O or archive error
	ExitLocked      = 4   // the store is held by a running node
	ExitInterrupted = 130 // SIGINT/SIGTERM; long work stopped at a safe point
)

// ExitError attaches an exit code to an error.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// usageErr marks an error as the caller's mistake (exit 2).
func usageErr(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// findingsErr is returned by checks that ran cleanly but found problems (exit 1).
// Its message is printed after the report.
func findingsErr(format string, args ...any) error {
	return &ExitError{Code: ExitFindings, Err: fmt.Errorf(format, args...)}
}

// ExitCode maps an error returned by a command to the process exit code.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	switch {
	case errors.Is(err, rocks.ErrLocked):
		return ExitLocked
	case errors.Is(err, rocks.ErrNoSpace), errors.Is(err, rocks.ErrCorrupt):
		// Classified by RocksDB's status in pkg/rocks (never by the message's words).
		return ExitStore
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	}
	// Everything else a command returns comes from the store, the archive or the file system.
	return ExitStore
}
