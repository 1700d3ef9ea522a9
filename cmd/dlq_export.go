package cmd

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/clidoc"
	"github.com/ankusa/ankusa-store/internal/cmdutil"
	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/internal/ui/progress"
	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

func init() { clidoc.RegisterSchema("ankusa-store dlq export", dlqExportLine{}) }

// dlqExportLine is one line of dlq export's JSON Lines: the schema version, then the
// dead letter.
type dlqExportLine struct {
	Schema int `json:"schema"`
	inspect.DLQExportRow
}

type dlqExportOptions struct {
	dlqSelectFlags
	limit int
	join  string
	store string
}

// joinChoices are --join's values (dlq export, dlq scan), in the order of dlqJoins.
var joinChoices = cmdutil.Choices{
	{Name: "auto"}, {Name: "sorted", Means: "a sorted join through $TMPDIR"}, {Name: "by-key"},
}

var dlqJoins = []inspect.ExportJoin{inspect.ExportJoinAuto, inspect.ExportJoinSorted, inspect.ExportJoinByKey}

// dlqJoin is the join a --join value names; the flag refused any other value already,
// and a test's options are refused alike.
func dlqJoin(s string) (inspect.ExportJoin, error) {
	for i, c := range joinChoices {
		if c.Name == s {
			return dlqJoins[i], nil
		}
	}
	return 0, &exitcode.Error{Code: exitcode.Usage, Err: &cmdutil.EnumError{Flag: "--join", Value: s, Choices: joinChoices}}
}

func newDLQExportCmd(env *Env) *cobra.Command {
	opts := &dlqExportOptions{}
	c := &cobra.Command{
		Use:   "export [flags] STORE",
		Short: "Write dead letters as JSON Lines, hook body and headers included",
		Long: `export writes the dead letters of one tenant (--tenant) or of all, newest first, as
JSON Lines on stdout: one object per line, each a whole dead letter, for handing to
the tenant or to a replay tool. Each line has its ref (SEQ:SINK, what dlq show
takes), when it went dead (dead_at, and at_ms in Unix ms), its tenant, source id,
hook id and sink, from its delivery row the attempts, size and last error, and the
hook: its id, tenant id, idempotency key, received at, headers and body (body_text
when the body is UTF-8, else body_hex). A dead letter whose delivery row or hook is
missing or does not decode is written with what could be read and says so in
problems.

The export is exact: JSON text cannot hold bytes that are not UTF-8, so a text
field that has some keeps its text (each bad byte as U+FFFD) and gets a twin with
its bytes in hex, NAME_hex (source_id_hex, hook_id_hex, last_error_hex, tenant_hex;
in the hook id_hex, source_id_hex, tenant_id_hex, idempotency_key_hex, and
headers_hex, every header as [name, value] in hex), present only then; the line's
problems name each such field. Decode a field from its _hex twin when there is one.

--tenant, --since, --until and --sink select as dlq scan does (times in Unix ms,
RFC 3339, or a duration ago: 90m, 2h, 1d); --limit stops after that many (0: all).
The rows are read a page at a time, as dlq scan pages, so memory stays flat however
many dead letters there are. On format 3, an export of more than 65,536 dead
letters that died out of their hooks' order (its first pages tell) reads their
delivery rows and hooks as a sorted join, in key order rather than one lookup a row
(as dlq scan's does): the export's walk runs
once to record what it will read, those rows are read in key order into a
file with no name in $TMPDIR (about the size of the hooks and delivery rows read;
it is gone when the command ends, however it ends), and the walk runs again,
served from it. When $TMPDIR has not the room, the export says so on stderr and
reads each row by key. --join by-key always reads by key; --join sorted joins
whatever the size. The
progress line on stderr has the total: the dead letters selected, counted from the
index keys beside the export (none with --tenant on format 2, where that count would
read every hook).
The output is always JSON Lines, each line one object of the schema below (JSON
output), "schema" first (-o json is accepted; -o table and tsv are not); with -o json
a failure is one line too, {"schema":1,"error":{...}}. On a terminal, without -o json,
it refuses (exit 2): redirect it to a file or a program, or read with dlq scan and
dlq show.
Notes and warnings go to stderr. The store is opened read-only; a store
mid-migration is refused. Interrupted (SIGINT, SIGTERM: exit 130), it stops after
a whole line and says how many lines it wrote to stdout: they are the newest dead
letters of the selection, the export not complete.`,
		Example: `  ankusa-store dlq export --tenant acme /var/lib/ankusa/store
  ankusa-store dlq export --since 1d --limit 100 store-v3.tar.zst`,
		Args: cmdutil.ExactArgs(1),
		// A failure is one line of JSON too, in a JSON Lines stream (Execute).
		Annotations: map[string]string{cmdutil.JSONLinesAnnotation: "true"},
		RunE: func(c *cobra.Command, args []string) error {
			opts.store = args[0]
			opts.sinkSet = c.Flags().Changed("sink")
			return runDLQExport(c.Context(), env, opts)
		},
	}
	opts.add(c, "only this tenant's dead letters: its id, or @N for the tenant of ordinal N (default: every tenant's)")
	f := c.Flags()
	f.IntVar(&opts.limit, "limit", 0, "most dead letters to write; 0 writes all")
	cmdutil.EnumFlag(c, f, &opts.join, cmdutil.Enum{Name: "join", Default: "auto", Noun: "join", Choices: joinChoices, Usage: "how delivery rows and hooks are read: %s"})
	storeArg(c)
	return c
}

func runDLQExport(ctx context.Context, env *Env, opts *dlqExportOptions) error {
	if env.Output != "" && !env.JSON() {
		return exitcode.Usagef("dlq export writes JSON Lines; -o %s is not for it (leave -o out, or -o json)", env.Output)
	}
	if env.IO.OutIsTerminal && env.Output == "" {
		// Kilobytes of escaped bodies are no way to read dead letters, and nothing to paste.
		return exitcode.Usagef("stdout is a terminal: dlq export writes JSON Lines for a file or a program (> dead.jsonl, | jq); " +
			"-o json writes them here anyway; dlq scan and dlq show are for reading dead letters")
	}
	if opts.limit < 0 {
		return exitcode.Usagef("--limit must be >= 0, got %d", opts.limit)
	}
	join, err := dlqJoin(opts.join)
	if err != nil {
		return err
	}
	sel, err := opts.parse(env)
	if err != nil {
		return err
	}
	// Rows read by key are looked up at random: their tables' indexes stay on the heap
	// (rocks.Options.RandomLookups, some 170 MiB at 10^8 rows). A sorted join reads in key
	// order and keeps them in the block cache; whether an export is joined (format 3, its
	// size, its order) the export tells once it has looked, and opens the store again
	// with them on the heap if it is not (o.Lookups).
	byKey := join == inspect.ExportJoinByKey
	h, err := env.openHandle(opts.store, rocks.Options{Mode: rocks.ReadOnly, RandomLookups: byKey})
	if err != nil {
		return err
	}
	defer h.Close()
	st := h.Store
	if err := sel.resolveTenant(ctx, env, st, opts.store); err != nil {
		return err
	}
	o := inspect.DLQExportOptions{Tenant: sel.Tenant, Since: sel.Since, Until: sel.Until, Sink: sel.Sink, Limit: opts.limit, Join: join, Values: env.values}
	if !byKey {
		o.Lookups = h
	}
	scope := "every tenant"
	if opts.tenant != "" {
		scope = "tenant " + o.Tenant.ID
	}
	label := fmt.Sprintf("dlq export %s: %s", opts.store, scope)
	p := env.Progress(label, "dead letters", 0)
	// A sorted join reads for minutes at 10^8 rows before the first line: the line says so.
	o.Progress = p.Scoped(func(phase string) string {
		switch phase {
		case inspect.ExportJoinPlan:
			return label + " (sorted join: recording the rows to read)"
		case inspect.ExportJoinGather:
			return label + " (sorted join: reading hooks and delivery rows in key order)"
		}
		return label
	}, true)
	defer countExportAsync(ctx, st, inspect.DLQOptions{Tenant: o.Tenant, Since: o.Since, Until: o.Until, Sink: o.Sink}, opts.limit, p)() // before closeStore
	lines := &lineCounter{w: env.IO.Out}
	w := bufio.NewWriterSize(lines, 256<<10)
	var b []byte
	line := &dlqExportLine{Schema: ui.JSONSchema} // one for the export: a line's copy would escape to the heap
	sum, err := inspect.ExportDLQ(ctx, st, o, func(r *inspect.DLQExportRow) error {
		line.DLQExportRow = *r
		b = appendDLQExportLine(b[:0], line)
		p.Add(1)
		_, err := w.Write(b)
		return err
	})
	p.Done()
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if errors.Is(err, context.Canceled) {
		// The lines before the interrupt are on stdout, each a whole dead letter: what the
		// reader has is a prefix of the export, and it must know how long.
		return interrupted("%s written to stdout, the newest dead letters first (the export is not complete); the store is as it was; run the command again for the whole export",
			words.Count(lines.n, "line", "lines"))
	}
	if err != nil {
		return err
	}
	printViewNotes(env, sum.Notes)
	if sum.Exported == 0 {
		env.note("no dead letters match")
	}
	return nil
}

// countExportAsync gives the export's progress line its total: the dead letters it
// selects, counted from their index keys beside the export (the keys alone, a small part
// of what the export reads), at most --limit. On format 2 with --tenant, where the count
// would read every hook, the line has no total. The returned stop ends the count and
// waits for it, before the store closes.
func countExportAsync(ctx context.Context, st *rocks.Store, o inspect.DLQOptions, limit int, p *progress.Progress) (stop func()) {
	if p.Mode() == progress.None {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if n, ok := exportTotal(ctx, st, o, limit); ok {
			p.SetTotal(n)
		}
	}()
	return func() { cancel(); <-done }
}

// exportTotal is how many lines the export of o writes, at most limit (0: all); false
// when it cannot be counted from the index keys, or the count failed (the export reports
// what is wrong with the store).
func exportTotal(ctx context.Context, st *rocks.Store, o inspect.DLQOptions, limit int) (int64, bool) {
	n, known, err := inspect.CountDLQ(ctx, st, o)
	if err != nil || !known {
		return 0, false
	}
	if limit > 0 {
		n = min(n, int64(limit))
	}
	return n, true
}

// dlqExportPlan writes dlqExportLine as encoding/json does (HTML escaping off), from the
// type: the line's shape is stated once, by dlqExportLine and inspect.DLQExportRow's
// fields. Bodies are most of an export, and encoding them by reflection cost as much as
// reading them; the plan is compiled once (ui.JSONPlan).
var dlqExportPlan = ui.NewJSONPlan[dlqExportLine]()

// appendDLQExportLine appends one line of the export, with its newline.
func appendDLQExportLine(b []byte, line *dlqExportLine) []byte {
	return append(dlqExportPlan.Append(b, line), '\n')
}

// lineCounter counts the lines its writer took whole (up to their newline).
type lineCounter struct {
	w io.Writer
	n int64
}

func (c *lineCounter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(bytes.Count(b[:n], []byte{'\n'}))
	return n, err
}
