package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/ankusa/ankusa-store/internal/exitcode"
)

// The commands' errors, each with its exit status (the statuses and the mapping of every
// other error are internal/exitcode's).

// findingsErr is returned by checks that ran cleanly but found problems (exit 1).
// Its message is printed after the report.
func findingsErr(format string, args ...any) error {
	return &exitcode.Error{Code: exitcode.Findings, Err: fmt.Errorf(format, args...)}
}

// notFoundErr is exit 1 for a thing the store does not have: err, and hint when err has
// no suggestion of its own (withHint).
func notFoundErr(err error, hint string) error {
	if hint != "" {
		err = withHint(err, hint)
	}
	return &exitcode.Error{Code: exitcode.Findings, Err: err, Failed: true}
}

// withHint is an error in the one shape every error has: the reason, then what to do
// ("no tenant nobody; the store's tenants: `ankusa-store tenants ls STORE`"). A command in
// the hint is in backticks, which wrapping never breaks (ui.WrapTo): it pastes as it is.
func withHint(err error, hint string) error { return fmt.Errorf("%w; %s", err, hint) }

// interruptedError is what a command stopped by SIGINT, SIGTERM or SIGHUP returns: what it
// left and what to do, one sentence, said once (it is context.Canceled for errors.Is, and
// exitcode.Of maps it to 130; the "context canceled" it stands for is not repeated).
type interruptedError struct{ state string }

func (e *interruptedError) Error() string { return "interrupted: " + e.state }

func (e *interruptedError) Is(target error) bool { return target == context.Canceled }

// interrupted is an interruptedError saying state.
func interrupted(format string, args ...any) error {
	return &interruptedError{state: fmt.Sprintf(format, args...)}
}

// interruptErr is the one error Execute reports for an interrupt (exit 130): the command's
// own, when it said what state it left (migrate, fixture, --repair); else, for a command
// that wrote nothing, that the store is as it was.
func (e *Env) interruptErr(err error) error {
	var ie *interruptedError
	if errors.As(err, &ie) {
		return ie
	}
	if !e.wrote {
		return interrupted("nothing was written, the store is as it was; run the command again for its answer")
	}
	return interrupted("%v", err)
}
