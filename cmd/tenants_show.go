package cmd

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/clidoc"
	"github.com/ankusa/ankusa-store/internal/cmdutil"
	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

func init() { clidoc.RegisterSchema("ankusa-store tenants show", inspect.TenantDetail{}) }

type tenantsShowOptions struct {
	tenant string
	limit  int
	store  string
}

func newTenantsShowCmd(env *Env) *cobra.Command {
	opts := &tenantsShowOptions{}
	c := &cobra.Command{
		Use:   "show [flags] TENANT STORE",
		Short: "Show one tenant in full: ordinal, counters, due, inflight, dead, markers",
		Long: `show prints one tenant: its ordinal, its six counters (pending, scheduled, inflight,
dead, bytes, archive pending), its due rows (how many, the first and last due time and the
age of the first), its first inflight rows (with their hook and its age: the store keeps
no claim time), its newest dead letters (as dlq scan lists them, with the Ref that dlq
show takes, and the dlq scan command for the rest), its archive obligations and its
active markers (how many, first and last second). The inflight rows and the dead
letters are tables of their own after the fields (TSV: a block each after a blank line).
--limit says how many of each to list.

TENANT is the tenant's id, or @N for the tenant of ordinal N (format 3; tenants ls
shows the ordinals), which names an id that is hard to type (zürich-東京-🚀 is @2 in the
sample stores). @ because no shell reads it: the first spelling, #N, starts a comment in
bash (and is a comment or a pattern in zsh with interactive_comments or extended_glob)
unless it is quoted ('#2', \#2), and still works quoted. An id that is in the store is
that tenant, even when it starts with @ or #.

On a format 3 store it reads the tenant's own ranges, one seek each, and six counters;
only the markers need a walk of the active index, which is ordered by second, not by
tenant (bounded; the output says when it stopped early). On a format 2 store the numbers
are folded from the backlog and the hooks, as tenants ls does there (a note says so).

Exit status 1 when the store has no such tenant (or ordinal); 2 for @N on a format 2
store, which has no ordinals; 3 when one of its counters could not
be read (a damaged table, a value that is not an integer): it is shown as unreadable with
the reason (null in JSON, as are the sums it is part of), never as a number. The store is
opened read-only.`,
		Example: `  ankusa-store tenants show acme /var/lib/ankusa/store
  ankusa-store tenants show @2 store-v3.tar.zst
  ankusa-store tenants show --limit 20 -o json acme store-v3.tar.zst`,
		Args: cmdutil.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			opts.tenant, opts.store = args[0], args[1]
			return runTenantsShow(c.Context(), env, opts)
		},
	}
	c.Flags().IntVar(&opts.limit, "limit", 5, "how many dead letters and inflight rows to list")
	cmdutil.DeprecatedAlias(env.IO.Err, c, "newest", "limit")
	storeArg(c)
	return c
}

func runTenantsShow(ctx context.Context, env *Env, opts *tenantsShowOptions) error {
	typed, err := parseTenant("", opts.tenant)
	if err != nil {
		return err
	}
	if opts.limit < 1 {
		return exitcode.Usagef("--limit must be >= 1, got %d", opts.limit)
	}
	st, closeStore, err := env.openStore(opts.store, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		return err
	}
	defer closeStore()
	tenant, err := env.tenant(ctx, st, opts.store, typed)
	if err != nil {
		return err
	}
	now := env.Now()
	d, err := inspect.ShowTenant(ctx, st, inspect.TenantShowOptions{Tenant: tenant, Newest: opts.limit, Now: now, Values: env.values})
	if errors.Is(err, format.ErrNoSuchTenant) {
		return noTenantErr(err, opts.store)
	}
	if err != nil {
		return err
	}
	printViewNotes(env, d.Notes)
	if err := renderTenantShow(env, d, opts.store, now); err != nil {
		return err
	}
	if c := &d.Counters; c.Err() != nil {
		return countersUnreadableErr("tenant "+strconv.Quote(d.Tenant), c.UnreadableCount(), c.Err())
	}
	return nil
}

// renderTenantShow prints the tenant: its fields, then its inflight rows and its newest
// dead letters as tables of their own, each column labelled (TSV: one block each, after a
// blank line, as status prints its families).
func renderTenantShow(env *Env, d *inspect.TenantDetail, store string, now time.Time) error {
	if env.JSON() {
		return ui.WriteJSON(env.IO.Out, d)
	}
	if err := env.renderRows(tenantShowRows(d, store, now)); err != nil {
		return err
	}
	section := func(title string, rows ui.Rows) error {
		if len(rows.Rows) == 0 {
			return nil
		}
		fmt.Fprintln(env.IO.Out)
		if env.table() {
			fmt.Fprint(env.IO.Out, env.wrap(title+":"))
		}
		return env.renderRows(rows)
	}
	if err := section(tenantInflightTitle(d), tenantInflightRows(d, now)); err != nil {
		return err
	}
	dead := dlqRows(&inspect.DLQPage{Format: d.Format, Rows: d.DeadLetters}, now)
	if err := section(tenantDeadTitle(d), dead); err != nil || d.DeadMore == nil {
		return err
	}
	// The rest is the next page of the same listing: a result, as dlq scan's paging hint,
	// after the table on a terminal and on stderr beside TSV. Never cut inside a word: wider
	// than the terminal, it goes on with the shell's own continuation lines, so that the
	// command and its cursor still paste as they are.
	words := []string{"ankusa-store", "dlq", "scan", "--tenant", shellArg(d.Tenant), "--after", d.DeadMore.NextCursor, shellArg(store)}
	// Beside TSV it goes to stderr, fitted to stderr's terminal (issue 46: 152 columns at 80).
	w, width := env.IO.Err, env.errWidth()
	if env.table() {
		w, width = env.IO.Out, env.width()
	}
	_, err := fmt.Fprintln(w, shellContinued("more dead letters: ", words, width))
	return err
}

// shellContinued joins a command's words after prefix, breaking only between words and
// ending each broken line with " \" (width 0: one line), so that a shell reads the lines
// pasted as the one command.
func shellContinued(prefix string, words []string, width int) string {
	var b strings.Builder
	b.WriteString(prefix)
	col := ansi.StringWidth(prefix)
	for i, word := range words {
		ww := ansi.StringWidth(word)
		if i > 0 {
			if width > 0 && col+1+ww+2 > width {
				b.WriteString(" \\\n    ")
				col = 4
			} else {
				b.WriteByte(' ')
				col++
			}
		}
		b.WriteString(word)
		col += ww
	}
	return b.String()
}

func tenantInflightTitle(d *inspect.TenantDetail) string {
	return fmt.Sprintf("Inflight rows, the first %d%s (age: since the hook was received)",
		len(d.InflightRows), ofTotal(len(d.InflightRows), d.InflightMore))
}

func tenantDeadTitle(d *inspect.TenantDetail) string {
	of := ""
	if m := d.DeadMore; m != nil {
		of = ofTotal(len(d.DeadLetters), m.Count)
	}
	return fmt.Sprintf("Dead letters, the newest %d%s (dlq show REF STORE shows one)", len(d.DeadLetters), of)
}

// ofTotal is " of N" for a list that shows shown rows and leaves more out.
func ofTotal(shown int, more *int64) string {
	if more == nil {
		return " (how many more is unknown: the counter is unreadable)"
	}
	if *more == 0 {
		return ""
	}
	return " of " + words.Group(int64(shown)+*more)
}

// tenantInflightRows lists the inflight rows shown, with their hook and its age.
func tenantInflightRows(d *inspect.TenantDetail, now time.Time) ui.Rows {
	rows := ui.Rows{Columns: []ui.Column{{Header: "Ref"}, {Header: "Hook id", Name: "hook_id"},
		{Header: "Received at (UTC)", Name: "received_at"}, {Header: "Age", Right: true, TableOnly: true},
		{Header: "Problem", Flex: true, OmitEmpty: true}}}
	for _, r := range d.InflightRows {
		hook, at, age := ui.Text("-"), ui.Text(""), ui.Text("-")
		if r.HookID != nil {
			hook = ui.Text(*r.HookID)
		}
		if r.ReceivedAt != nil {
			at = ui.Cell{Human: r.ReceivedAt.Format("2006-01-02 15:04:05"), Plain: r.ReceivedAt.Format(viewTimeLayout)}
			ms := now.UnixMilli() - *r.ReceivedAtMS
			age = ui.Cell{Human: words.Age(ms), Plain: fmt.Sprint(ms)}
		}
		p := ui.Text(r.Problem)
		p.Color = ui.ColorYellow
		rows.Add(ui.Text(r.Ref), hook, at, age, p)
	}
	return rows
}

// shellArg quotes s for a shell when it needs it, for a command line printed to be pasted.
func shellArg(s string) string {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._/:=@+-,", c)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

func tenantShowRows(d *inspect.TenantDetail, store string, now time.Time) ui.Rows {
	rows := ui.Rows{Columns: []ui.Column{{Header: "Field"}, {Header: "Value", Wrap: true, MinWidth: 20}}}
	add := func(k string, v ui.Cell) { rows.Add(ui.Text(k), v) }
	at := func(t *time.Time) ui.Cell {
		if t == nil {
			return ui.Text("-")
		}
		return ui.Cell{Human: t.Format(viewTimeLayout) + " (" + words.Age(now.Sub(*t).Milliseconds()) + " ago)", Plain: t.Format(viewTimeLayout)}
	}
	add("tenant", ui.Text(d.Tenant))
	ord := ui.Text("- (format 2: no ordinals)")
	if d.Ord != nil {
		ord = ui.Int(int64(*d.Ord))
	}
	add("ord", ord)
	for _, f := range format.Fields[:5] {
		add(format.FieldNames[f], counterCell(&d.Counters, f))
	}
	add("archive_pending", optCell(d.ArchivePending))
	add("counters_from", ui.Text(d.CountersFrom))
	for _, e := range d.Errors {
		add("counter_error", ui.Cell{Human: e, Plain: e, Color: ui.ColorRed})
	}
	add("due_rows", optCell(d.Due.Rows))
	add("first_due_at", at(d.Due.FirstDueAt))
	if d.Due.LastDueAt != nil || d.Format == format.Format3 {
		add("last_due_at", at(d.Due.LastDueAt))
	}
	if d.Format == format.Format3 {
		v := "none"
		if n := len(d.InflightRows); n > 0 {
			v = fmt.Sprintf("the first %d below", n)
			if m := d.InflightMore; m != nil && *m > 0 {
				v += fmt.Sprintf(", %s more", words.Group(*m))
			}
		}
		add("inflight_rows", ui.Cell{Human: v, Plain: fmt.Sprint(len(d.InflightRows))})
	}
	deadV := "none"
	if n := len(d.DeadLetters); n > 0 {
		deadV = fmt.Sprintf("the newest %d below", n)
		if m := d.DeadMore; m != nil {
			more := "more"
			if m.Count != nil {
				more = words.Group(*m.Count) + " more"
			}
			deadV += ", " + more
		}
	}
	add("dead_letters", ui.Text(deadV))
	if m := d.Markers; m != nil {
		plain, human := fmt.Sprint(m.Count), words.Group(m.Count)
		if m.First != nil {
			plain += fmt.Sprintf(", first second %s, last %s", m.First.Format(viewTimeLayout), m.Last.Format(viewTimeLayout))
			human += fmt.Sprintf(" (%s to %s UTC)", m.First.Format("2006-01-02 15:04:05"), m.Last.Format("2006-01-02 15:04:05"))
		}
		if m.Capped {
			capped := fmt.Sprintf(" (stopped after %d markers of every tenant: a lower bound)", m.Walked-1)
			plain, human = plain+capped, human+capped
		}
		add("active_markers", ui.Cell{Human: human, Plain: plain})
	}
	return rows
}
