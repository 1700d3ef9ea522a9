// Package cmd holds the cobra commands of ankusa-store.
//
// Each command lives in its own file: a constructor returning *cobra.Command, an options
// struct, and a RunE that calls a plain runX(ctx, opts) writing to the injected streams, so
// tests drive commands without a process and without global state. Commands register
// themselves with register() so that adding one never touches another command's file.
//
// Errors carry their exit code (exit.go); only main.go calls os.Exit.
package cmd
