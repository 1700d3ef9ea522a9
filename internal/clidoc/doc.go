// Package clidoc is how the command tree is written down for people: --help laid out for
// the terminal that reads it (SetHelp: prose re-flowed, flags and command summaries hanging
// under their column, long examples continued with a backslash, the exit statuses at the
// end), docs/commands.md (Markdown) and the man pages (ManPages), and the JSON schemas the
// commands register for them (RegisterSchema). What the pages say of each command is the
// command's, in cmd; the exit statuses are internal/exitcode's.
package clidoc
