// Package progress shows long work on stderr, as restic's internal/ui/progress does: a
// Counter holds the state (what is being done, how much of how much, since when) apart
// from how it is shown, and a Progress draws it: one live line on a terminal, fitted to
// its width (what matters kept longest: the phase and done/total), a start line and a
// line every interval in a log, nothing with --progress=none or -q. Notes printed through
// a Progress do not collide with its live line.
//
// Progress and Counter implement reporting.Reporter, the one shape of progress that work
// below the commands takes (a fixture's hooks, a fold's keys, a diff's keys, a tenants
// pass's rows, a migration's steps), in a package of its own so that those layers do not
// import this one; the command turns the work's phase names into its own words with
// Progress.Scoped.
package progress
