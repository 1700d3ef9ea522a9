package cmd

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// BuildInfo is stamped into the binary by the release build.
type BuildInfo struct {
	Version string
	Commit  string
}

// Env is what every command gets: the streams, the global flags and the clock.
type Env struct {
	IO    IOStreams
	Build BuildInfo
	// Output is "", "table", "tsv" or "json"; "" picks table on a terminal and TSV when piped.
	Output string
	Quiet  bool
	Now    func() time.Time
}

// JSON reports whether machine output was asked for.
func (e *Env) JSON() bool { return e.Output == "json" }

var constructors []func(*Env) *cobra.Command

// register adds a top-level command; each command file calls it from init.
func register(f func(*Env) *cobra.Command) { constructors = append(constructors, f) }

// NewRootCmd builds the command tree around env.
func NewRootCmd(env *Env) *cobra.Command {
	root := &cobra.Command{
		Use:   "ankusa-store",
		Short: "Inspect, verify and migrate the RocksDB store of an Ankusa node",
		Long: `ankusa-store is the operator CLI for the RocksDB store of an Ankusa node.

It says what a store is (status), upgrades a store from format 2 to format 3 (migrate),
checks every counter and invariant (counters verify), shows tenants and dead letters
(tenants ls/show, dlq scan/show), decodes any key (keys decode, scan) and writes sample
stores (fixture).

Read-only commands accept a store directory or a .tar.zst archive of one and never
write to it; they work while a node holds the store open.`,
		Version:       env.Build.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(c *cobra.Command, _ []string) error {
			switch env.Output {
			case "", "table", "tsv", "json":
				return nil
			}
			return usageErr("-o must be table, tsv or json, not %q", env.Output)
		},
	}
	root.SetVersionTemplate("ankusa-store {{.Version}}\n")
	root.PersistentFlags().StringVarP(&env.Output, "output", "o", "", "output format: table, tsv or json (default: table on a terminal, tsv when piped)")
	root.PersistentFlags().BoolVarP(&env.Quiet, "quiet", "q", false, "no progress or notes on stderr")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &ExitError{Code: ExitUsage, Err: err}
	})
	root.SetIn(env.IO.In)
	root.SetOut(env.IO.Out)
	root.SetErr(env.IO.Err)
	cmds := make([]*cobra.Command, 0, len(constructors))
	for _, f := range constructors {
		cmds = append(cmds, f(env))
	}
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name() < cmds[j].Name() })
	root.AddCommand(cmds...)
	return root
}

// Execute runs the CLI with args and returns the process exit code.
func Execute(ctx context.Context, io IOStreams, build BuildInfo, args []string) int {
	env := &Env{IO: io, Build: build, Now: time.Now}
	root := NewRootCmd(env)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	if isCobraUsageError(err) {
		err = &ExitError{Code: ExitUsage, Err: err}
	}
	code := ExitCode(err)
	var ee *ExitError
	// Findings were already reported in full; their error is the one-line verdict.
	if errors.As(err, &ee) && ee.Code == ExitFindings {
		fmt.Fprintln(io.Err, err)
	} else {
		fmt.Fprintln(io.Err, "Error:", err)
	}
	if code == ExitUsage && !errors.Is(err, errNoUsageHint) {
		fmt.Fprintln(io.Err, "Run 'ankusa-store --help' for usage.")
	}
	return code
}

var errNoUsageHint = errors.New("no usage hint")

// cobra reports these itself, as plain errors, before any RunE runs.
func isCobraUsageError(err error) bool {
	var ee *ExitError
	if errors.As(err, &ee) {
		return false
	}
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "required flag", "accepts ", "requires at least", "requires at most", "invalid argument", "flag needs an argument"} {
		if strings.HasPrefix(msg, p) || strings.Contains(msg, " "+p) {
			return true
		}
	}
	return false
}

// exactArgs is cobra.ExactArgs with the usage exit code.
func exactArgs(n int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErr("%s takes %d argument(s), got %d (see '%s --help')", c.CommandPath(), n, len(args), c.CommandPath())
		}
		return nil
	}
}
