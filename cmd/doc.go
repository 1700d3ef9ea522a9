// Package cmd holds the cobra commands of ankusa-store.
//
// Each command lives in its own file: a constructor returning *cobra.Command, an options
// struct, and a RunE that calls a plain runX(ctx, opts) writing to the injected streams, so
// tests drive commands without a process and without global state. The top-level commands
// are one visible list (commands.go), as gh's root and bbolt's main keep theirs.
//
// Errors carry their exit code (exit.go; the statuses and the mapping of every other error
// are internal/exitcode's); only main.go calls os.Exit. The toolkit the commands stand on
// is internal: the flags and command lines they share (internal/cmdutil), help, docs and
// man pages (internal/clidoc), the completion scripts (internal/shellcomp).
package cmd
