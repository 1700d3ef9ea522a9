package exitcode

import (
	"fmt"
	"strings"
)

// Exit codes, documented in docs/commands.md; scripts and CI depend on them.
const (
	OK          = 0
	Findings    = 1   // the command ran and found problems (verify)
	Usage       = 2   // bad flags, arguments or input values; nothing was written
	Store       = 3   // not a store, newer format, corruption, no space, I/O or archive error
	Locked      = 4   // the store is held by a running node
	Interrupted = 130 // SIGINT/SIGTERM/SIGHUP; long work stopped at a safe point
)

// What a command does when the reader of its stdout or stderr goes away (`| head`, a pager
// quit early, a closed ssh session; the mechanism is ui.Pipe):
//
//   - a listing (every read-only command) stops at its next write to stdout, and exits
//     ReaderGone, quietly: its reader has what it wanted, and the store was only read;
//   - work that writes a store (migrate, fixture, counters verify --repair; finishWork)
//     never stops for it: its writes to a closed stdout or stderr are dropped, and it ends
//     with the exit status of the work. A migration that stopped because `2>&1 | head -1`
//     read its first line would leave the store mid-migration for no reason;
//   - a line to a closed stderr (a note, progress, a warning) stops nothing.

// ReaderGone is the exit status of a listing whose reader went away: 0, because the
// pipeline did what it asked (`tenants ls | head -5` shows five tenants), and a
// `set -o pipefail` script would otherwise fail on a pipeline that worked. A crash code
// (141) stays a crash's.
const ReaderGone = OK

// Status is one exit status as the documents say it.
type Status struct {
	Code  string
	Help  string // --help's line
	Table string // docs/commands.md's cell; "" is Help
}

// Statuses is the one statement of the exit statuses: every --help's footer and the man
// pages' EXIT STATUS (Help), and docs/commands.md (Table) are made from it;
// cmd's TestExitStatusTexts holds README.md and docs/migration.md to the same facts.
var Statuses = []Status{
	{"0", "ok", ""},
	{"1", "findings: the check ran and found problems", ""},
	{"2", "usage: bad flags, arguments or values; nothing was written (or, with \"fatal error:\" on\n       stderr, the Go runtime could not start, e.g. under ulimit -v: nothing ran)",
		"usage: bad flags, arguments or values; nothing was written. " + RuntimeStartText},
	{"3", "store error: not a store, a newer format, mid-migration, corruption, I/O, permission, no space",
		"store error: not a store, a newer format, mid-migration where not allowed, corruption, a bad archive, I/O, permission denied, no space left on device (also refused before the first write when the free space is short of the estimate)"},
	{"4", "the store is locked by a running node", "the store is locked (a running node holds it)"},
	{"130", "interrupted; long work stopped at a safe point and resumes when run again",
		"interrupted (SIGINT, SIGTERM or SIGHUP); long work stopped at a safe point and resumes when run again"},
}

// RuntimeStartText is the one 2 that is not a usage error, and that no code of ours can change:
// the Go runtime exits 2 itself when it cannot start (it could not reserve its heap's address
// space, as under a low ulimit -v), in its own initialisation, before main, any init function
// or even GOTRACEBACK is read (runtime.schedinit calls mallocinit before it parses the
// environment), so neither debug.SetTraceback in main.go nor GOTRACEBACK=crash turns it into
// a crash. Nothing of the tool ran, so nothing was written.
const RuntimeStartText = "2 is also the Go runtime failing to start, with `fatal error:` on stderr " +
	"(it could not reserve memory, as under a low `ulimit -v`): that happens before the tool runs, so " +
	"nothing was written either; no code of the tool can change that status. Raise the limit."

// CrashHelp and CrashText say what a crash exits with, as a run shows it (TestPanicExitStatus
// in internal/faults panics the real binary): main.go sets the traceback to "crash", so a Go
// panic prints its stack trace and the process ends by SIGABRT, which a shell reports as 134,
// as it does a RocksDB abort; never 2, Go's own exit status after a panic, which is usage here.
const (
	CrashHelp = `A crash is a bug: a Go panic or a RocksDB abort prints a stack trace and ends by SIGABRT
(exit 134 in a shell); kill -9 or the OOM killer, 137. Report it.`
	CrashText = "Any other status is a crash: the process was killed by a signal, which a shell reports as " +
		"128+signal: 134 for SIGABRT (a Go panic or an abort in RocksDB, each with a stack trace on stderr), 137 for SIGKILL " +
		"(kill -9 or the OOM killer). A crash of the tool itself is a bug: report it with the command, its stderr and the " +
		"store's LOG. Long work is committed in steps, so rerunning the same command resumes it."
)

// Help ends every command's --help (fitted to the terminal by internal/clidoc) and is the
// man pages' EXIT STATUS.
var Help = func() string {
	var b strings.Builder
	b.WriteString("Exit status:\n")
	for _, s := range Statuses {
		fmt.Fprintf(&b, "  %-4s %s\n", s.Code, s.Help)
	}
	b.WriteString(HelpTail)
	return b.String()
}()

// HelpTail follows the statuses.
const HelpTail = `A listing whose reader goes away (| head) stops and exits 0, quietly; migrate, fixture
and --repair finish their work whatever becomes of stdout and stderr.
` + CrashHelp

// Table is docs/commands.md's table of the exit statuses.
func Table() string {
	var b strings.Builder
	b.WriteString("| code | meaning |\n|---|---|\n")
	for _, s := range Statuses {
		t := s.Table
		if t == "" {
			t = s.Help
		}
		fmt.Fprintf(&b, "| %s | %s |\n", s.Code, t)
	}
	return b.String()
}
