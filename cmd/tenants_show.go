package cmd

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

func init() { registerSchema("ankusa-store tenants show", inspect.TenantDetail{}) }

type tenantsShowOptions struct {
	tenant string
	newest int
	store  string
}

func newTenantsShowCmd(env *Env) *cobra.Command {
	opts := &tenantsShowOptions{}
	c := &cobra.Command{
		Use:   "show [flags] TENANT STORE",
		Short: "Show one tenant in full: ordinal, counters, due, inflight, dead, markers",
		Long: `show prints one tenant: its ordinal, its six counters (pending, scheduled, inflight,
dead, bytes, archive pending), its due rows (how many, the first and last due time and the
age of the first), its first inflight rows, its newest dead letters (with the Ref that dlq
show takes), its archive obligations and its active markers (how many, first and last
second).

On a format 3 store it reads the tenant's own ranges, one seek each, and six counters;
only the markers need a walk of the active index, which is ordered by second, not by
tenant (bounded; the output says when it stopped early). On a format 2 store the numbers
are folded from the backlog and the hooks, as tenants ls does there (a note says so).

Exit status 1 when the store has no such tenant; 3 when one of its counters could not
be read (a damaged table, a value that is not an integer): it is shown as unreadable with
the reason (null in JSON, as are the sums it is part of), never as a number. The store is
opened read-only.`,
		Example: `  ankusa-store tenants show acme /var/lib/ankusa/store
  ankusa-store tenants show --newest 20 -o json acme store-v3.tar.zst`,
		Args: exactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			opts.tenant, opts.store = args[0], args[1]
			return runTenantsShow(c.Context(), env, opts)
		},
	}
	c.Flags().IntVar(&opts.newest, "newest", 5, "how many dead letters and inflight rows to list")
	storeArg(c)
	return c
}

func runTenantsShow(ctx context.Context, env *Env, opts *tenantsShowOptions) error {
	if !format.ValidTenantID([]byte(opts.tenant)) {
		return usageErr("%q is not a tenant id (1 to %d bytes of UTF-8)", opts.tenant, format.MaxTenantIDLen)
	}
	if opts.newest < 1 {
		return usageErr("--newest must be >= 1, got %d", opts.newest)
	}
	st, closeStore, err := openStore(opts.store, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		return err
	}
	defer closeStore()
	if opts.tenant, err = env.tenant(ctx, st, opts.tenant); err != nil {
		return err
	}
	now := env.Now()
	d, err := inspect.ShowTenant(ctx, st, inspect.TenantShowOptions{Tenant: opts.tenant, Newest: opts.newest, Now: now})
	if errors.Is(err, inspect.ErrNoSuchTenant) {
		return findingsErr("%v", err)
	}
	if err != nil {
		return err
	}
	printViewNotes(env, d.Notes)
	if err := env.render(d, func() Rows { return tenantShowRows(d, now) }); err != nil {
		return err
	}
	if c := &d.Counters; c.Err() != nil {
		return countersUnreadableErr("tenant "+strconv.Quote(d.Tenant), c.UnreadableCount(), c.Err())
	}
	return nil
}

func tenantShowRows(d *inspect.TenantDetail, now time.Time) Rows {
	rows := Rows{Columns: []Column{{Header: "Field"}, {Header: "Value", Wrap: true, MinWidth: 20}}}
	add := func(k string, v Cell) { rows.Add(Text(k), v) }
	at := func(t *time.Time) Cell {
		if t == nil {
			return Text("-")
		}
		return Cell{Human: t.Format(viewTimeLayout) + " (" + humanAge(now.Sub(*t).Milliseconds()) + " ago)", Plain: t.Format(viewTimeLayout)}
	}
	add("tenant", Text(d.Tenant))
	ord := Text("- (format 2: no ordinals)")
	if d.Ord != nil {
		ord = Int(int64(*d.Ord))
	}
	add("ord", ord)
	for _, f := range format.Fields[:5] {
		add(format.FieldNames[f], counterCell(&d.Counters, f))
	}
	add("archive_pending", optCell(d.ArchivePending))
	add("counters_from", Text(d.CountersFrom))
	for _, e := range d.Errors {
		add("counter_error", Cell{Human: e, Plain: e, Color: colorRed})
	}
	add("due_rows", optCell(d.Due.Rows))
	add("first_due_at", at(d.Due.FirstDueAt))
	if d.Due.LastDueAt != nil || d.Format == format.Format3 {
		add("last_due_at", at(d.Due.LastDueAt))
	}
	if d.Format == format.Format3 {
		add("inflight_first", Text(strings.Join(d.Inflight, " ")))
	}
	for _, r := range d.Dead {
		le := ""
		if r.LastError != nil {
			le = *r.LastError
		}
		add("dead", Cell{Human: fmt.Sprintf("%s  %s  %s  %s", r.Ref, r.DeadAt.Format(viewTimeLayout), r.HookID, dlqTruncate(le, 60)),
			Plain: fmt.Sprintf("%s %s %s %s", r.Ref, r.DeadAt.Format(viewTimeLayout), r.HookID, le)})
	}
	if m := d.Markers; m != nil {
		v := fmt.Sprintf("%d", m.Count)
		if m.First != nil {
			v += fmt.Sprintf(", first second %s, last %s", m.First.Format(viewTimeLayout), m.Last.Format(viewTimeLayout))
		}
		if m.Capped {
			v += fmt.Sprintf(" (stopped after %d markers of every tenant: a lower bound)", m.Walked-1)
		}
		add("active_markers", Text(v))
	}
	return rows
}
