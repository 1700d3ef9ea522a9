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
	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

func init() { clidoc.RegisterSchema("ankusa-store dlq scan", inspect.DLQPage{}) }

type dlqScanOptions struct {
	dlqSelectFlags
	limit int
	after string
	join  string
	store string
}

func newDLQScanCmd(env *Env) *cobra.Command {
	opts := &dlqScanOptions{}
	c := &cobra.Command{
		Use:   "scan [flags] STORE",
		Short: "List dead letters, newest first",
		Long: `scan lists dead letters newest first: when each went dead, its tenant, source id,
hook id, seq and sink, and from its delivery row the size and the last error. The
last column, Ref (SEQ:SINK), is what dlq show takes to show one row in full.

With --tenant on a format 3 store it reads one range of the dead-by-tenant index and
joins it to the dead rows, so a page costs the same however long the queue is. A
tenant the store does not have is exit 1, with the ids nearest to it ("no tenant acmee;
did you mean acme?"), on either format. Without --tenant it walks the dead
rows from the newest. On a format 2 store the tenant of each row comes from its hook,
and --tenant reads the hook of every row it passes (a note says so).

--since (inclusive) and --until (exclusive) take Unix milliseconds (a bare number,
however spelled: 0 is the epoch), RFC 3339, or a duration back from now with its unit
(90m, 2h, 1d; 0s is now). A full page ends with a cursor: pass it to --after
for the next page, with the same --tenant. The cursor follows the table on a terminal;
beside piped TSV it goes to stderr, even with -q (next_cursor in JSON). Rows with a problem (a missing delivery row, a dead-by-tenant key without its
dead row) are shown with it. The store is opened read-only; a store the 2 -> 3
migration has not finished is refused.

A long listing (--limit 0, or more than 1,024 rows, as JSON or piped TSV) is written
as it is read, a page at a time. On format 3, one of more than 65,536 dead letters
that died out of their hooks' order reads their delivery rows and tenant names as
dlq export does, as a sorted join through a file with no name in $TMPDIR, in key
order rather than one lookup a row (without the room, a note says so and each is read
by key). --join by-key always reads by key;
--join sorted joins whatever the size.`,
		Example: `  ankusa-store dlq scan --tenant acme --limit 50 /var/lib/ankusa/store
  ankusa-store dlq scan --since 2h --sink 2 -o json store-v3.tar.zst
  ankusa-store dlq scan --limit 10 --until 2026-11-30T10:00:00Z store/`,
		Args: cmdutil.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.store = args[0]
			opts.sinkSet = c.Flags().Changed("sink")
			return runDLQScan(c.Context(), env, opts)
		},
	}
	opts.add(c, "only this tenant's dead letters: its id, or @N for the tenant of ordinal N")
	f := c.Flags()
	f.IntVar(&opts.limit, "limit", 100, "rows per page; 0 lists all")
	f.StringVar(&opts.after, "after", "", "continue after the cursor a previous page printed")
	cmdutil.EnumFlag(c, f, &opts.join, cmdutil.Enum{Name: "join", Default: "auto", Noun: "join", Choices: joinChoices, Usage: "how a long listing reads delivery rows: %s"})
	storeArg(c)
	return c
}

func runDLQScan(ctx context.Context, env *Env, opts *dlqScanOptions) error {
	o := inspect.DLQOptions{Limit: opts.limit, Values: env.values}
	if opts.limit < 0 {
		return exitcode.Usagef("--limit must be >= 0, got %d", opts.limit)
	}
	join, err := dlqJoin(opts.join)
	if err != nil {
		return err
	}
	o.Join = join
	sel, err := opts.parse(env)
	if err != nil {
		return err
	}
	if opts.after != "" {
		c, err := inspect.ParseDLQCursor(opts.after)
		if err != nil {
			return exitcode.Usagef("--after: %v", err)
		}
		o.After = &c
	}
	// Each dead row's delivery row is looked up: the tables' indexes stay on the heap
	// (rocks.Options.RandomLookups, some 170 MiB at 10^8 rows). A long listing that joins
	// reads in key order and keeps them in the block cache, as dlq export does, and opens
	// the store again with them on the heap if it reads by key after all (o.Lookups).
	streamed := inspect.DLQStreamable(o.Limit) && !env.table()
	byKey := !streamed || join == inspect.ExportJoinByKey
	h, err := env.openHandle(opts.store, rocks.Options{Mode: rocks.ReadOnly, RandomLookups: byKey})
	if err != nil {
		return err
	}
	defer h.Close()
	st := h.Store
	if err := sel.resolveTenant(ctx, env, st, opts.store); err != nil {
		return err
	}
	o.Tenant, o.Since, o.Until, o.Sink = sel.Tenant, sel.Since, sel.Until, sel.Sink
	if !byKey {
		o.Lookups = h
	}
	if streamed {
		err := streamDLQScan(ctx, env, st, o)
		if errors.Is(err, inspect.ErrBadCursor) {
			return exitcode.Usagef("--after: %v", err)
		}
		return err
	}
	page, err := inspect.ScanDLQ(ctx, st, o)
	if errors.Is(err, inspect.ErrBadCursor) {
		return exitcode.Usagef("--after: %v", err)
	}
	if err != nil {
		return err
	}
	printViewNotes(env, page.Notes)
	now := env.Now()
	return env.render(page, func() ui.Rows { return dlqRows(page, now) })
}

func dlqRows(p *inspect.DLQPage, now time.Time) ui.Rows {
	rows := ui.Rows{Columns: dlqColumns()}
	rows.Empty = "no dead letters match"
	for i := range p.Rows {
		rows.Add(dlqCells(&p.Rows[i], now)...)
	}
	if p.NextCursor != "" {
		rows.Next = dlqNext(p.NextCursor)
	}
	return rows
}

func dlqNext(cursor string) string { return "more rows: next page with --after " + cursor }

// dlqErrorWant is how much of a last error a table keeps while it can hide a column
// instead: a node's errors ("HTTP 410 from sink 2: gone", "connect: connection refused")
// say what they are in their first 40 columns.
const dlqErrorWant = 40

func dlqColumns() []ui.Column {
	return []ui.Column{
		{Header: "Dead at (UTC)", Name: "dead_at"}, {Header: "Age", Right: true, Drop: 5, TableOnly: true},
		{Header: "Tenant"}, {Header: "Source", Drop: 6},
		{Header: "Hook id", Name: "hook_id", Drop: 2},
		// Ref is SEQ:SINK: Seq and Sink are the first to go.
		{Header: "Seq", Right: true, Drop: 3, Redundant: true}, {Header: "Sink", Right: true, Drop: 7, Redundant: true}, {Header: "Size", Name: "size_bytes", Right: true, Drop: 4},
		// Last error is why one opens the dead letters: every droppable column goes before
		// it is cut below dlqErrorWant.
		{Header: "Last error", Name: "last_error", Flex: true, MinWidth: 12, Want: dlqErrorWant}, {Header: "Problems", Flex: true, OmitEmpty: true},
		{Header: "Ref"},
	}
}

// dlqCells is the one row builder of the table and the TSV, built or streamed.
func dlqCells(r *inspect.DLQRow, now time.Time) []ui.Cell {
	at := ui.Cell{Human: r.DeadAt.UTC().Format("2006-01-02 15:04:05"), Plain: r.DeadAt.Format(viewTimeLayout)}
	ageMS := now.UnixMilli() - int64(r.At)
	age := ui.Cell{Human: words.Age(ageMS), Plain: fmt.Sprint(ageMS)}
	lastErr := ui.Cell{}
	if r.LastError != nil {
		lastErr = ui.Text(*r.LastError)
	}
	problems := ui.Text(strings.Join(r.Problems, "; "))
	problems.Color = ui.ColorYellow
	return []ui.Cell{at, age, ui.Text(r.Tenant), ui.Text(r.SourceID), ui.Text(r.HookID), ui.ID(r.Seq), ui.ID(r.Sink),
		ui.Cell{Human: words.Bytes(int64(r.Size)), Plain: fmt.Sprint(r.Size)}, lastErr, problems, ui.Text(r.Ref)}
}
