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

--since (inclusive) and --until (exclusive) take Unix milliseconds, RFC 3339, or a
duration back from now (90m, 2h). A full page ends with a cursor: pass it to --after
for the next page, with the same --tenant. The cursor goes to stderr (next_cursor in
JSON). Rows with a problem (a missing delivery row, a dead-by-tenant key without its
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
	f.StringVar(&opts.since, "since", "", "only rows dead at or after this time (Unix ms, RFC 3339, or a duration ago)")
	f.StringVar(&opts.until, "until", "", "only rows dead before this time (Unix ms, RFC 3339, or a duration ago)")
	f.Uint16Var(&opts.sink, "sink", 0, "only this sink's deliveries")
	f.IntVar(&opts.limit, "limit", 100, "rows per page; 0 lists all")
	f.StringVar(&opts.after, "after", "", "continue after the cursor a previous page printed")
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
	st, closeStore, err := openStore(opts.store, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		return err
	}
	defer closeStore()
	page, err := inspect.ScanDLQ(ctx, st, o)
	if errors.Is(err, inspect.ErrBadCursor) {
		return usageErr("--after: %v", err)
	}
	if err != nil {
		return err
	}
	printViewNotes(env, page.Notes)
	if page.NextCursor != "" && !env.JSON() && !env.Quiet {
		fmt.Fprintf(env.IO.Err, "more rows: next page with --after %s\n", page.NextCursor)
	}
	now := env.Now()
	return env.render(page, func() Rows { return dlqRows(page, now) })
}

func dlqRows(p *inspect.DLQPage, now time.Time) Rows {
	rows := Rows{Columns: []Column{
		{Header: "Dead at"}, {Header: "Tenant"}, {Header: "Source"}, {Header: "Hook id"},
		{Header: "Seq", Right: true}, {Header: "Sink", Right: true}, {Header: "Size", Right: true},
		{Header: "Last error"}, {Header: "Problems"}, {Header: "Ref"},
	}}
	for _, r := range p.Rows {
		at := Cell{
			Human: r.DeadAt.Format("2006-01-02 15:04:05") + " (" + humanAge(now.UnixMilli()-int64(r.At)) + " ago)",
			Plain: r.DeadAt.Format(viewTimeLayout),
		}
		if int64(r.At) > now.UnixMilli() {
			at.Human = r.DeadAt.Format("2006-01-02 15:04:05")
		}
		lastErr := Cell{}
		if r.LastError != nil {
			lastErr = Text(*r.LastError)
			lastErr.Human = dlqTruncate(*r.LastError, 60)
		}
		rows.Add(at, Text(r.Tenant), Text(r.SourceID), Text(r.HookID), Int(int64(r.Seq)), Int(int64(r.Sink)),
			Cell{Human: HumanBytes(r.Size), Plain: fmt.Sprint(r.Size)}, lastErr, Text(strings.Join(r.Problems, "; ")), Text(r.Ref))
	}
	return rows
}

// dlqTruncate shortens an error text for a terminal cell; TSV and JSON keep
// it whole.
func dlqTruncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// parseViewTime reads a --since/--until value: Unix milliseconds or RFC 3339
// (as everywhere in this tool), or a duration back from now ("90m", "2h"),
// which is what an operator means at 3 a.m. "" is the zero time: no bound.
func parseViewTime(env *Env, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil && !strings.HasPrefix(s, "-") {
		t := env.Now().Add(-d)
		if t.UnixMilli() < 0 {
			return time.Time{}, fmt.Errorf("%s ago is before the Unix epoch", s)
		}
		return time.UnixMilli(t.UnixMilli()).UTC(), nil
	}
	t, err := parseTime(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%v, nor a duration ago (90m, 2h)", err)
	}
	return t, nil
}
