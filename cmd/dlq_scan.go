package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

func init() { registerSchema("ankusa-store dlq scan", inspect.DLQPage{}) }

type dlqScanOptions struct {
	tenant string
	since  string
	until  string
	sink   uint16
	limit  int
	after  string
	store  string
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
joins it to the dead rows, so a page costs the same however long the queue is; an
unknown tenant is an empty listing and a note. Without --tenant it walks the dead
rows from the newest. On a format 2 store the tenant of each row comes from its hook,
and --tenant reads the hook of every row it passes (a note says so).

--since (inclusive) and --until (exclusive) take Unix milliseconds (a bare number,
however spelled: 0 is the epoch), RFC 3339, or a duration back from now with its unit
(90m, 2h, 1d; 0s is now). A full page ends with a cursor: pass it to --after
for the next page, with the same --tenant. The cursor follows the table on a terminal;
beside piped TSV it goes to stderr, even with -q (next_cursor in JSON). Rows with a problem (a missing delivery row, a dead-by-tenant key without its
dead row) are shown with it. The store is opened read-only; a store the 2 -> 3
migration has not finished is refused.`,
		Example: `  ankusa-store dlq scan --tenant acme --limit 50 /var/lib/ankusa/store
  ankusa-store dlq scan --since 2h --sink 2 -o json store-v3.tar.zst
  ankusa-store dlq scan --limit 10 --until 2026-11-30T10:00:00Z store/`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.store = args[0]
			var sink *uint16
			if c.Flags().Changed("sink") {
				sink = &opts.sink
			}
			return runDLQScan(c.Context(), env, opts, sink)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.tenant, "tenant", "", "only this tenant's dead letters")
	f.StringVar(&opts.since, "since", "", "only rows dead at or after this time (Unix ms, 0 the epoch; RFC 3339; or a duration ago: 90m, 1d, 0s)")
	f.StringVar(&opts.until, "until", "", "only rows dead before this time (Unix ms, RFC 3339, or a duration ago)")
	f.Uint16Var(&opts.sink, "sink", 0, "only this sink's deliveries")
	f.IntVar(&opts.limit, "limit", 100, "rows per page; 0 lists all")
	f.StringVar(&opts.after, "after", "", "continue after the cursor a previous page printed")
	c.ValidArgsFunction = storeArgs(0, nil)
	storeArg(c)
	return c
}

func runDLQScan(ctx context.Context, env *Env, opts *dlqScanOptions, sink *uint16) error {
	o := inspect.DLQOptions{Tenant: opts.tenant, Limit: opts.limit, Sink: sink}
	if opts.limit < 0 {
		return usageErr("--limit must be >= 0, got %d", opts.limit)
	}
	if opts.tenant != "" && !format.ValidTenantID([]byte(opts.tenant)) {
		return usageErr("--tenant %q is not a tenant id (1 to %d bytes of UTF-8)", opts.tenant, format.MaxTenantIDLen)
	}
	var err error
	if o.Since, err = parseViewTime(env, opts.since); err != nil {
		return usageErr("--since: %v", err)
	}
	if o.Until, err = parseViewTime(env, opts.until); err != nil {
		return usageErr("--until: %v", err)
	}
	if !o.Since.IsZero() && !o.Until.IsZero() && !o.Since.Before(o.Until) {
		return usageErr("--since %s is not before --until %s", o.Since.Format(viewTimeLayout), o.Until.Format(viewTimeLayout))
	}
	if opts.after != "" {
		c, err := inspect.ParseDLQCursor(opts.after)
		if err != nil {
			return usageErr("--after: %v", err)
		}
		o.After = &c
	}
	st, closeStore, err := env.openStore(opts.store, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		return err
	}
	defer closeStore()
	if o.Tenant != "" {
		if o.Tenant, err = env.tenant(ctx, st, o.Tenant); err != nil {
			return err
		}
	}
	page, err := inspect.ScanDLQ(ctx, st, o)
	if errors.Is(err, inspect.ErrBadCursor) {
		return usageErr("--after: %v", err)
	}
	if err != nil {
		return err
	}
	printViewNotes(env, page.Notes)
	now := env.Now()
	return env.render(page, func() Rows { return dlqRows(page, now) })
}

func dlqRows(p *inspect.DLQPage, now time.Time) Rows {
	rows := Rows{Columns: []Column{
		{Header: "Dead at (UTC)", Name: "dead_at"}, {Header: "Age", Right: true, Drop: 5, TableOnly: true},
		{Header: "Tenant"}, {Header: "Source", Drop: 6},
		{Header: "Hook id", Name: "hook_id", Drop: 2},
		{Header: "Seq", Right: true, Drop: 3}, {Header: "Sink", Right: true, Drop: 7}, {Header: "Size", Name: "size_bytes", Right: true, Drop: 4},
		{Header: "Last error", Name: "last_error", Flex: true, MinWidth: 12}, {Header: "Problems", Flex: true, OmitEmpty: true},
		{Header: "Ref"},
	}}
	rows.Empty = "no dead letters match"
	for _, r := range p.Rows {
		at := Cell{Human: r.DeadAt.UTC().Format("2006-01-02 15:04:05"), Plain: r.DeadAt.Format(viewTimeLayout)}
		ageMS := now.UnixMilli() - int64(r.At)
		age := Cell{Human: humanAge(ageMS), Plain: fmt.Sprint(ageMS)}
		lastErr := Cell{}
		if r.LastError != nil {
			lastErr = Text(*r.LastError)
		}
		problems := Text(strings.Join(r.Problems, "; "))
		problems.Color = colorYellow
		rows.Add(at, age, Text(r.Tenant), Text(r.SourceID), Text(r.HookID), ID(r.Seq), ID(r.Sink),
			Cell{Human: HumanBytes(r.Size), Plain: fmt.Sprint(r.Size)}, lastErr, problems, Text(r.Ref))
	}
	if p.NextCursor != "" {
		rows.Next = "more rows: next page with --after " + p.NextCursor
	}
	return rows
}

// dlqTruncate shortens an error text for a terminal cell to n columns, ending in an
// ellipsis; TSV and JSON keep it whole.
func dlqTruncate(s string, n int) string { return truncateWidth(s, n) }
