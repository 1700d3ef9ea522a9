package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/clidoc"
	"github.com/ankusa/ankusa-store/internal/cmdutil"
	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/shellcomp"
	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
	"github.com/ankusa/ankusa-store/internal/ui/progress"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// BuildInfo is stamped into the binary by the release build.
type BuildInfo struct {
	Version string
	Commit  string
}

// Env is what every command gets: the streams, the global flags and the clock.
type Env struct {
	IO    iostreams.IOStreams
	Build BuildInfo
	// Output is "", "table", "tsv" or "json"; "" picks table on a terminal and TSV when piped.
	Output string
	Quiet  bool
	// ProgressMode is --progress: auto, tty, plain or none.
	ProgressMode string
	// Wide draws tables whole, however wide; NoHeaders drops TSV's header line.
	Wide      bool
	NoHeaders bool
	Now       func() time.Time

	// wrote records that the command opened a store read-write, so that an interrupt can
	// say what state it left it in (interruptErr).
	wrote bool
	// finishWork: the command writes a store, and a closed stdout or stderr must not stop
	// it (internal/exitcode, ui.Pipe). Set with setWrites, which also tells an interrupt to wait for
	// it (writes, read beside the command: interrupt_stuck.go).
	finishWork bool
	// replayShown: the waits an open said in a log (onceWaits), by their label.
	replayShown map[string]bool
	writes      writesFlag
	// closing, when set (by tests), sees every store a command opened just
	// before it is closed: what RocksDB did for the command (the iterators a
	// view opened) is known only then.
	closing func(*rocks.Store)
	// walShown, when set (by tests), is the WAL size from which an open is shown
	// (store.Options.WALShown).
	walShown int64
	// completion, when set (by tests), bounds a completion from a store (the zero value:
	// defaultCompletionBounds).
	completion completionBounds
	// values, when set (by tests), is how the views and migrate read a node's
	// values (the zero value reads them in place; the commands' tests compare
	// it with the whole decode, format.ValueReader.Whole, for one run).
	values format.ValueReader
	// live is the progress whose live line is drawn on stderr (--progress tty), the last
	// one started: notes and warnings are written above it.
	live *progress.Progress
}

// outputChoices are -o's values ("", the default, picks table or TSV).
var outputChoices = cmdutil.Values("table", "tsv", "json")

// progressChoices are --progress's values (progress.Modes), with what auto does.
var progressChoices = cmdutil.Choices{
	{Name: progress.Auto, Means: "a live line on a terminal, a line every 10s otherwise and on TERM=dumb"},
	{Name: progress.TTY}, {Name: progress.Plain}, {Name: progress.None},
}

// helpWidth is what help fits: the terminal's width ($COLUMNS beside a pipe), else 79.
func (e *Env) helpWidth() int {
	if w := e.IO.OutWidth; w > 0 {
		return w
	}
	return clidoc.DefaultWidth
}

// JSON reports whether machine output was asked for.
func (e *Env) JSON() bool { return e.Output == "json" }

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

` + storeRule + `

Read-only commands accept a store directory or a .tar.zst archive of one and never
write to it; they work while a node holds the store open.

Upgrading a node: the runbook is docs/migration.md (in the release archive, beside
docs/monitoring.md for the scheduled check); each command's page is its --help, its man
page (man ankusa-store-migrate) and docs/commands.md.`,
		Version:       env.Build.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(c *cobra.Command, _ []string) error {
			// A completion's bounds (__complete, which has no pre-run of its own, is the
			// command run): its functions get the command, whose context carries them.
			c.SetContext(withCompletionBounds(c.Context(), env.completion))
			// A choice flag whose refusal reads other flags is refused once all are parsed.
			return cmdutil.Refusal(c.Flags())
		},
	}
	root.SetVersionTemplate("ankusa-store {{.Version}}\n")
	// Every --help ends with the exit codes: what a script branches on. Help fits the
	// terminal (clidoc). cobra prints a help template's write error itself: help whose
	// reader went away (`--help | head -1`) drops the rest instead, as work does (ui.Pipe).
	clidoc.SetHelp(root, env.helpWidth, func() { env.finishWork = true })
	cmdutil.EnumFlag(root, root.PersistentFlags(), &env.Output, cmdutil.Enum{Name: "output", Short: "o", Noun: "output format", Choices: outputChoices, Usage: "output format: %s (default: table on a terminal, tsv when piped)"})
	root.PersistentFlags().BoolVarP(&env.Quiet, "quiet", "q", false, "no progress or notes on stderr (results, warnings and paging hints stay)")
	cmdutil.EnumFlag(root, root.PersistentFlags(), &env.ProgressMode, cmdutil.Enum{Name: "progress", Default: progress.Default(env.IO.Getenv), Noun: "progress mode", Choices: progressChoices, Usage: "progress on stderr: %s"})
	root.PersistentFlags().BoolVar(&env.Wide, "wide", false, "draw tables whole, however wide the terminal")
	root.PersistentFlags().BoolVar(&env.NoHeaders, "no-headers", false, "TSV without its header line")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &exitcode.Error{Code: exitcode.Usage, Err: cmdutil.SuggestFlag(c, cmdutil.FlagValueErr(err))}
	})
	root.SetIn(env.IO.In)
	root.SetOut(env.IO.Out)
	root.SetErr(env.IO.Err)
	root.AddCommand(commands(env)...)
	shellcomp.QuotedWords(root)
	return root
}

// Execute runs the CLI with args and returns the process exit code.
func Execute(ctx context.Context, streams iostreams.IOStreams, build BuildInfo, args []string) int {
	return execute(ctx, &Env{Build: build, Now: time.Now}, streams, args)
}

// execute is Execute with an Env a test may have given fields of its own
// (Env.values, Env.closing): what the command line sets is set on it.
func execute(ctx context.Context, env *Env, streams iostreams.IOStreams, args []string) int {
	pout := &ui.Pipe{W: streams.Out, Finish: &env.finishWork}
	streams.Err = &ui.Pipe{W: streams.Err, Drop: true}
	out := &cmdutil.CountingWriter{W: pout}
	streams.Out = out
	guards := guardStreams(&streams, env, args) // terminal safety (output.go)
	defer guards.Flush()
	env.IO = streams
	root := NewRootCmd(env)
	root.SetArgs(args)
	ran, stuck := runUntilInterrupted(ctx, env, root)
	if stuck {
		// Nothing of the command is read here but what it cannot be changing: it writes
		// nothing (interrupt_stuck.go).
		err := interrupted("nothing was written, the store is as it was; run the command again for its answer")
		if cmdutil.JSONAsked(args) {
			_ = ui.WriteJSON(streams.Out, exitcode.JSON(err))
		}
		fmt.Fprint(streams.Err, env.errorLine("Error:", ui.ColorRed, err.Error()))
		return exitcode.Interrupted
	}
	c, err := ran.c, ran.err
	if err == nil {
		return exitcode.OK
	}
	if pout.ReaderGone(err) {
		return exitcode.ReaderGone
	}
	if c == nil {
		c = root
	}
	err = cmdutil.CobraUsage(c, err)
	code := exitcode.Of(err)
	if code == exitcode.Interrupted {
		err = env.interruptErr(err)
	}
	// A usage error is one line: what is wrong, and the help of the command it was for.
	if code == exitcode.Usage && !strings.Contains(err.Error(), "--help'") {
		err = &exitcode.Error{Code: exitcode.Usage, Err: fmt.Errorf("%w (see '%s --help')", err, c.CommandPath())}
	}
	// With -o json a failure is a document too, unless the command wrote its own result
	// (verify's report with verdict "corrupt"): jq never reads empty input.
	if (env.JSON() || cmdutil.JSONAsked(args)) && out.N == 0 {
		if c.Annotations[cmdutil.JSONLinesAnnotation] != "" {
			_ = ui.WriteJSONLine(streams.Out, exitcode.JSON(err))
		} else {
			_ = ui.WriteJSON(streams.Out, exitcode.JSON(err))
		}
	}
	var ee *exitcode.Error
	// Findings were already reported in full; their error is the one-line verdict.
	switch {
	case errors.As(err, &ee) && ee.Code == exitcode.Findings && !ee.Failed:
		if !ee.Reported {
			fmt.Fprint(streams.Err, env.errorLine("", "", err.Error()))
		}
	default:
		fmt.Fprint(streams.Err, env.errorLine("Error:", ui.ColorRed, err.Error()))
	}
	return code
}
