package progress

import (
	"slices"
	"time"
)

// Modes, as --progress names them.
const (
	Auto  = "auto"  // tty on a terminal, plain otherwise (a dumb terminal included)
	TTY   = "tty"   // one live line, redrawn in place (plain on TERM=dumb, which cannot erase a line)
	Plain = "plain" // a start line, then a line every interval: for logs
	None  = "none"
)

// Modes are the values of --progress.
var Modes = []string{Auto, TTY, Plain, None}

// plainInterval is how often plain progress prints a line; a log then shows that a job
// lives. IntervalEnv (a Go duration) overrides it, so tests need not wait.
const plainInterval = 10 * time.Second

// IntervalEnv names the environment variable that overrides the plain interval.
const IntervalEnv = "ANKUSA_STORE_PROGRESS_INTERVAL"

// Env sets --progress's default (for a whole CI job, or a test suite whose checks of
// stderr must not depend on how loaded the machine is).
const Env = "ANKUSA_STORE_PROGRESS"

// Default is --progress's default: Env's value when it names a mode, else Auto.
func Default(getenv func(string) string) string {
	if v := getenv(Env); slices.Contains(Modes, v) {
		return v
	}
	return Auto
}

// Resolve is the mode a --progress flag means: quiet (-q) silences it, auto follows
// stderr. A dumb terminal (TERM=dumb: an editor's shell buffer, a serial console) gets
// plain lines, never the live line's carriage return and erase sequence, which it would
// print as they are.
func Resolve(flag string, quiet, errIsTerminal, dumb bool) string {
	if quiet {
		return None
	}
	switch flag {
	case TTY:
		if dumb {
			return Plain
		}
		return TTY
	case Plain, None:
		return flag
	}
	if errIsTerminal && !dumb {
		return TTY
	}
	return Plain
}
