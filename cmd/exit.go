package cmd

import (
	"context"
	"errors"
	"fmt"
	"syscall"

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

// exitCodeHelp ends every command's --help and is the man pages' EXIT STATUS.
const exitCodeHelp = `Exit status:
  0    ok
  1    findings: the check ran and found problems
  2    usage: bad flags, arguments or values; nothing was written
  3    store error: not a store, a newer format, mid-migration, corruption, I/O, no space
  4    the store is locked by a running node
  130  interrupted; long work stopped at a safe point and resumes when run again
A listing whose reader goes away (| head) stops and exits 0, quietly; migrate, fixture
and --repair finish their work whatever becomes of stdout and stderr.
A crash (a Go panic, exit 2 with a stack trace; a RocksDB abort, exit 134) is a bug: report it.`

// ExitError attaches an exit code to an error.
type ExitError struct {
	Code int
	Err  error
	// Reported: the command already printed this (a verdict on stdout); Execute does not
	// repeat it on stderr.
	Reported bool
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

// ErrorClass names what kind of failure err is, for the JSON error object: a pipeline can
// branch on it without reading the message. Classified by the sentinel errors the store
// layer returns (from RocksDB's status codes), never by the message's words.
func ErrorClass(err error) string {
	switch code := ExitCode(err); {
	case code == ExitUsage:
		return "usage"
	case code == ExitFindings:
		return "findings"
	case code == ExitLocked:
		return "locked"
	case code == ExitInterrupted:
		return "interrupted"
	}
	switch {
	case errors.Is(err, rocks.ErrCorrupt):
		return "corruption"
	case errors.Is(err, rocks.ErrNotStore):
		return "not_a_store"
	case errors.Is(err, rocks.ErrNewerFormat), errors.Is(err, rocks.ErrUnknownFamily):
		return "newer_format"
	case errors.Is(err, rocks.ErrNewerTable):
		return "newer_table_format"
	case errors.Is(err, rocks.ErrMidMigration):
		return "mid_migration"
	case errors.Is(err, syscall.ENOSPC):
		return "no_space"
	}
	return "store"
}

// errorJSON is the document -o json writes on stdout when a command fails before writing
// its result, so that jq never reads empty input.
type errorJSON struct {
	Schema int `json:"schema"`
	Error  struct {
		Code    int    `json:"code"`
		Class   string `json:"class"`
		Message string `json:"message"`
	} `json:"error"`
}

func newErrorJSON(err error) errorJSON {
	var e errorJSON
	e.Schema = JSONSchema
	e.Error.Code = ExitCode(err)
	e.Error.Class = ErrorClass(err)
	e.Error.Message = err.Error()
	return e
}
