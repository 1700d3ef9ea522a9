package exitcode

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/pkg/checkpoint"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// Error attaches an exit code to an error.
type Error struct {
	Code int
	Err  error
	// Reported: the command already printed this (a verdict on stdout); Execute does not
	// repeat it on stderr.
	Reported bool
	// Failed: exit 1 for a thing the store does not have (a tenant, a dead letter), which
	// is said as every error is ("Error:", the reason, what to do), where other findings
	// are a verdict that follows a report.
	Failed bool
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Of maps an error returned by a command to the process exit code.
func Of(err error) int {
	if err == nil {
		return OK
	}
	var ee *Error
	if errors.As(err, &ee) {
		return ee.Code
	}
	switch {
	case errors.Is(err, rocks.ErrLocked):
		return Locked
	case errors.Is(err, rocks.ErrNoSpace), errors.Is(err, rocks.ErrCorrupt):
		// Classified by RocksDB's status in pkg/rocks (never by the message's words).
		return Store
	case errors.Is(err, context.Canceled):
		return Interrupted
	}
	// Everything else a command returns comes from the store, the archive or the file system.
	return Store
}

// Class names what kind of failure err is, for the JSON error object: a pipeline can
// branch on it without reading the message. Classified by the sentinel errors the store
// layer returns (from RocksDB's status codes), never by the message's words.
func Class(err error) string {
	switch code := Of(err); {
	case code == Usage:
		return "usage"
	case code == Findings:
		return "findings"
	case code == Locked:
		return "locked"
	case code == Interrupted:
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

// ErrorJSON is the document -o json writes on stdout when a command fails before writing
// its result, so that jq never reads empty input.
type ErrorJSON struct {
	Schema int `json:"schema"`
	Error  struct {
		Code    int    `json:"code"`
		Class   string `json:"class"`
		Message string `json:"message"`
	} `json:"error"`
}

// JSON is err's document.
func JSON(err error) ErrorJSON {
	var e ErrorJSON
	e.Schema = ui.JSONSchema
	e.Error.Code = Of(err)
	e.Error.Class = Class(err)
	e.Error.Message = err.Error()
	return e
}

// Checkpoint maps what package checkpoint returns to the exit codes: a refusal is the
// caller's (exit 2), a held LOCK exit 4, anything else the store's or the file system's
// (exit 3). The message is the error's own.
func Checkpoint(err error) error {
	var refused *checkpoint.Refused
	var inUse *checkpoint.InUse
	switch {
	case err == nil:
		return nil
	case errors.As(err, &refused):
		return &Error{Code: Usage, Err: err}
	case errors.As(err, &inUse):
		return &Error{Code: Locked, Err: err}
	}
	return &Error{Code: Store, Err: err}
}

// Usagef is an error that is the caller's mistake (exit 2): bad flags, arguments or values.
func Usagef(format string, args ...any) error {
	return &Error{Code: Usage, Err: fmt.Errorf(format, args...)}
}
