// Package reporting is the one shape of progress that work below the commands takes (a
// fixture's hooks, a fold's keys, a diff's keys, a tenants pass's rows, a migration's
// steps), as restic's ui/progress.Counter: how much more is done, how much there is, what
// is being done. It stands on the standard library alone, so that the packages under pkg/
// take a Reporter without importing the UI and its ANSI and terminal libraries; the UI
// (internal/ui/progress: its Progress, Counter and Scoped) implements it, and tests hand
// in Adds.
package reporting
