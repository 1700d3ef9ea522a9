package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/pkg/checkpoint"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// Exit codes, documented in docs/commands.md; scripts and CI depend on them.
const (
	ExitOK          = 0
	ExitFindings    = 1   // the command ran and found problems (verify)
	ExitUsage       = 2   // bad flags, arguments or input values; nothing was written
	ExitStore       = 3   // not a store, newer format, corruption, no space, I/O or archive error
	ExitLocked      = 4   // the store is held by a running node
	ExitInterrupted = 130 // SIGINT/SIGTERM/SIGHUP; long work stopped at a safe point
)

// What a command does when the reader of its stdout or stderr goes away (`| head`, a pager
// quit early, a closed ssh session; the mechanism is ui.Pipe):
//
//   - a listing (every read-only command) stops at its next write to stdout, and exits
//     ExitReaderGone, quietly: its reader has what it wanted, and the store was only read;
//   - work that writes a store (migrate, fixture, counters verify --repair; finishWork)
//     never stops for it: its writes to a closed stdout or stderr are dropped, and it ends
//     with the exit status of the work. A migration that stopped because `2>&1 | head -1`
//     read its first line would leave the store mid-migration for no reason;
//   - a line to a closed stderr (a note, progress, a warning) stops nothing.

// ExitReaderGone is the exit status of a listing whose reader went away: 0, because the
// pipeline did what it asked (`tenants ls | head -5` shows five tenants), and a
// `set -o pipefail` script would otherwise fail on a pipeline that worked. A crash code
// (141) stays a crash's.
const ExitReaderGone = ExitOK

// exitStatuses is the one statement of the exit statuses: every --help's footer and the man
// pages' EXIT STATUS (exitCodeHelp), and docs/commands.md (exitCodesMarkdown) are made from
// it; TestExitStatusTexts holds README.md and docs/migration.md to the same facts.
var exitStatuses = []struct {
	code  string
	help  string // --help's line
	table string // docs/commands.md's cell; "" is help
}{
	{"0", "ok", ""},
	{"1", "findings: the check ran and found problems", ""},
	{"2", "usage: bad flags, arguments or values; nothing was written (or, with \"fatal error:\" on\n       stderr, the Go runtime could not start, e.g. under ulimit -v: nothing ran)",
		"usage: bad flags, arguments or values; nothing was written. " + runtimeStartText},
	{"3", "store error: not a store, a newer format, mid-migration, corruption, I/O, permission, no space",
		"store error: not a store, a newer format, mid-migration where not allowed, corruption, a bad archive, I/O, permission denied, no space left on device (also refused before the first write when the free space is short of the estimate)"},
	{"4", "the store is locked by a running node", "the store is locked (a running node holds it)"},
	{"130", "interrupted; long work stopped at a safe point and resumes when run again",
		"interrupted (SIGINT, SIGTERM or SIGHUP); long work stopped at a safe point and resumes when run again"},
}

// runtimeStartText is the one 2 that is not a usage error, and that no code of ours can change:
// the Go runtime exits 2 itself when it cannot start (it could not reserve its heap's address
// space, as under a low ulimit -v), in its own initialisation, before main, any init function
// or even GOTRACEBACK is read (runtime.schedinit calls mallocinit before it parses the
// environment), so neither debug.SetTraceback in main.go nor GOTRACEBACK=crash turns it into
// a crash. Nothing of the tool ran, so nothing was written.
const runtimeStartText = "2 is also the Go runtime failing to start, with `fatal error:` on stderr " +
	"(it could not reserve memory, as under a low `ulimit -v`): that happens before the tool runs, so " +
	"nothing was written either; no code of the tool can change that status. Raise the limit."

// crashHelp and crashText say what a crash exits with, as a run shows it (TestPanicExitStatus
// in internal/faults panics the real binary): main.go sets the traceback to "crash", so a Go
// panic prints its stack trace and the process ends by SIGABRT, which a shell reports as 134,
// as it does a RocksDB abort; never 2, Go's own exit status after a panic, which is usage here.
const (
	crashHelp = `A crash is a bug: a Go panic or a RocksDB abort prints a stack trace and ends by SIGABRT
(exit 134 in a shell); kill -9 or the OOM killer, 137. Report it.`
	crashText = "Any other status is a crash: the process was killed by a signal, which a shell reports as " +
		"128+signal: 134 for SIGABRT (a Go panic or an abort in RocksDB, each with a stack trace on stderr), 137 for SIGKILL " +
		"(kill -9 or the OOM killer). A crash of the tool itself is a bug: report it with the command, its stderr and the " +
		"store's LOG. Long work is committed in steps, so rerunning the same command resumes it."
)

// exitCodeHelp ends every command's --help and is the man pages' EXIT STATUS.
var exitCodeHelp = func() string {
	var b strings.Builder
	b.WriteString("Exit status:\n")
	for _, s := range exitStatuses {
		fmt.Fprintf(&b, "  %-4s %s\n", s.code, s.help)
	}
	b.WriteString(exitCodeHelpTail)
	return b.String()
}()

// exitCodeHelpTail follows the statuses.
const exitCodeHelpTail = `A listing whose reader goes away (| head) stops and exits 0, quietly; migrate, fixture
and --repair finish their work whatever becomes of stdout and stderr.
` + crashHelp

// exitCodesTable is docs/commands.md's table of the exit statuses.
func exitCodesTable() string {
	var b strings.Builder
	b.WriteString("| code | meaning |\n|---|---|\n")
	for _, s := range exitStatuses {
		t := s.table
		if t == "" {
			t = s.help
		}
		fmt.Fprintf(&b, "| %s | %s |\n", s.code, t)
	}
	return b.String()
}

// ExitError attaches an exit code to an error.
type ExitError struct {
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

// notFoundErr is exit 1 for a thing the store does not have: err, and hint when err has
// no suggestion of its own (withHint).
func notFoundErr(err error, hint string) error {
	if hint != "" {
		err = withHint(err, hint)
	}
	return &ExitError{Code: ExitFindings, Err: err, Failed: true}
}

// withHint is an error in the one shape every error has: the reason, then what to do
// ("no tenant nobody; the store's tenants: `ankusa-store tenants ls STORE`"). A command in
// the hint is in backticks, which wrapping never breaks (ui.WrapTo): it pastes as it is.
func withHint(err error, hint string) error { return fmt.Errorf("%w; %s", err, hint) }

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
	e.Schema = ui.JSONSchema
	e.Error.Code = ExitCode(err)
	e.Error.Class = ErrorClass(err)
	e.Error.Message = err.Error()
	return e
}

// interruptedError is what a command stopped by SIGINT, SIGTERM or SIGHUP returns: what it
// left and what to do, one sentence, said once (it is context.Canceled for errors.Is, and
// ExitCode maps it to 130; the "context canceled" it stands for is not repeated).
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

// checkpointErr maps what package checkpoint returns to the exit codes: a refusal is the
// caller's (exit 2), a held LOCK exit 4, anything else the store's or the file system's
// (exit 3). The message is the error's own.
func checkpointErr(err error) error {
	var refused *checkpoint.Refused
	var inUse *checkpoint.InUse
	switch {
	case err == nil:
		return nil
	case errors.As(err, &refused):
		return &ExitError{Code: ExitUsage, Err: err}
	case errors.As(err, &inUse):
		return &ExitError{Code: ExitLocked, Err: err}
	}
	return &ExitError{Code: ExitStore, Err: err}
}
