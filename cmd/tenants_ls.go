package cmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/clidoc"
	"github.com/ankusa/ankusa-store/internal/cmdutil"
	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/internal/ui/progress"
	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/migration"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

func init() { clidoc.RegisterSchema("ankusa-store tenants ls", inspect.TenantList{}) }

type tenantsLsOptions struct {
	sort   string
	limit  int
	prefix string
	all    bool
	store  string
}

func newTenantsLsCmd(env *Env) *cobra.Command {
	opts := &tenantsLsOptions{}
	sorts := make([]string, len(inspect.TenantSorts))
	for i, s := range inspect.TenantSorts {
		sorts[i] = string(s)
	}
	c := &cobra.Command{
		Use:   "ls [flags] STORE",
		Short: "List tenants with their counters and the age of their oldest due row",
		Long: `ls prints one row per tenant: its ordinal, its id, its six counters (pending,
scheduled, inflight, dead, bytes, archive pending) and the age of its oldest due row.

On a format 3 store it reads the tenants and counters families, one pass each, and
takes the oldest due row from the active index as the node's oldest-due gauge does
(the first marker of each tenant, checked against its due rows). A format 2 store has
no ordinals and no counters: the same numbers are folded from the whole backlog and
the hook behind every row, which a note on stderr says; pending and scheduled are
then split at the current time, as the migration would split them.

Numeric sorts put the biggest first; ord and name sort ascending; oldest puts the
tenant that has waited longest first. Erased tenants (tombstones) are listed only with
--all. A table on a terminal shows sizes and ages for people; TSV gives bytes and
ages in milliseconds (negative: not due yet). A counter that could not be read (a
damaged table, a value that is not an integer) is shown as unreadable (null in JSON,
with the reason in the row's errors or in aggregate_errors), never as a number, and the
listing then exits 3. The store is opened read-only.`,
		Example: `  ankusa-store tenants ls --sort pending --limit 10 /var/lib/ankusa/store
  ankusa-store tenants ls --prefix acme- -o json store-v3.tar.zst`,
		Args: cmdutil.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.store = args[0]
			return runTenantsLs(c.Context(), env, opts)
		},
	}
	f := c.Flags()
	cmdutil.EnumFlag(c, f, &opts.sort, cmdutil.Enum{Name: "sort", Default: "ord", Noun: "sort", Choices: cmdutil.Values(sorts...), Usage: "order: %s"})
	f.IntVar(&opts.limit, "limit", 0, "show only the first N tenants after sorting; 0 shows all")
	cmdutil.DeprecatedAlias(env.IO.Err, c, "top", "limit")
	f.StringVar(&opts.prefix, "prefix", "", "only tenants whose id starts with this")
	f.BoolVar(&opts.all, "all", false, "include erased tenants (tombstones)")
	storeArg(c)
	return c
}

func runTenantsLs(ctx context.Context, env *Env, opts *tenantsLsOptions) error {
	sort, err := inspect.ParseTenantSort(opts.sort)
	if err != nil {
		return exitcode.Usagef("--sort: %v", err)
	}
	if opts.limit < 0 {
		return exitcode.Usagef("--limit must be >= 0, got %d", opts.limit)
	}
	st, closeStore, err := env.openStore(opts.store, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		return err
	}
	defer closeStore()
	o := inspect.TenantsOptions{Sort: sort, Top: opts.limit, Prefix: opts.prefix, All: opts.all, Now: env.Now(), Values: env.values}
	if inspect.TenantsStreamable(st, o) && !env.table() {
		return streamTenantsLs(ctx, env, st, o)
	}
	var p *progress.Progress
	stopCount := func() {}
	if st.Format == format.Format2 {
		p = env.Progress("tenants ls "+opts.store+": backlog pass (format 2)", "rows", 0)
		o.Progress = p
		stopCount = countBacklog(ctx, st, p)
	}
	l, err := inspect.ListTenants(ctx, st, o)
	stopCount()
	if p != nil {
		p.Done()
	}
	if err != nil {
		return err
	}
	printViewNotes(env, l.Notes)
	if env.JSON() {
		err = writeTenantsJSON(env.IO.Out, l)
	} else {
		err = env.render(l, func() ui.Rows { return tenantRows(l) })
	}
	if err != nil {
		return err
	}
	var u tenantsUnreadable
	for i := range l.Tenants {
		u.row(&l.Tenants[i])
	}
	return u.err(l)
}

// countBacklog gives a format 2 listing's progress its total: the rows its pass reads,
// counted as status and migrate count them (keys and values in order, no hook lookups:
// a small part of what the pass costs), beside the pass. RocksDB's own estimate of the
// keys is free but no total: on a store with many deletions it is a fraction of the
// rows. The returned stop ends the count and waits for it, before the store closes.
func countBacklog(ctx context.Context, st *rocks.Store, p *progress.Progress) (stop func()) {
	if p.Mode() == progress.None {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		left, err := migration.CountLeft(ctx, st, format.MigrationCursor{Phase: uint8(migration.PhaseDue)})
		if err != nil {
			return // the pass reports what is wrong with the store; progress just has no total
		}
		var n int64
		for _, v := range left {
			n += v
		}
		p.SetTotal(n)
	}()
	return func() { cancel(); <-done }
}

// tenantsUnreadable counts the listing's counters that could not be read, row by row as
// they are shown, for the exit status: 3 when the listing showed one as unreadable.
type tenantsUnreadable struct {
	tenants, counters int
	first             error
}

func (u *tenantsUnreadable) row(r *inspect.TenantRow) {
	if n := r.UnreadableCount(); n > 0 {
		u.tenants++
		u.counters += n
		if u.first == nil {
			u.first = fmt.Errorf("tenant %s: %w", strconv.Quote(r.Tenant), r.Err())
		}
	}
}

func (u *tenantsUnreadable) err(l *inspect.TenantList) error {
	if a := l.Aggregate; a != nil && a.Err() != nil {
		return countersUnreadableErr("the node aggregate", a.UnreadableCount(), a.Err())
	}
	if u.first == nil {
		return nil
	}
	return countersUnreadableErr(words.Count(int64(u.tenants), "tenant", "tenants"), u.counters, u.first)
}

// streamTenantsLs writes every tenant as it is read (JSON or TSV, the same
// bytes as a built listing): a node's 10^6 tenants cost a chunk of each family
// read, not hundreds of bytes each. A table needs every row to size its
// columns, so it is built. The notes are known at the end.
func streamTenantsLs(ctx context.Context, env *Env, st *rocks.Store, o inspect.TenantsOptions) error {
	var (
		begin func(*inspect.TenantList) error
		each  func(*inspect.TenantRow) error
		end   func(*inspect.TenantList) error
	)
	var u tenantsUnreadable
	if env.JSON() {
		j := newTenantsJSON(env.IO.Out)
		begin, end = j.head, j.tail
		each = func(r *inspect.TenantRow) error { u.row(r); return j.row(r) }
	} else {
		t := ui.NewTSVStream(env.IO.Out, tenantColumns(), !env.NoHeaders)
		rows := 0
		begin = func(*inspect.TenantList) error { return nil }
		each = func(r *inspect.TenantRow) error { rows++; u.row(r); return t.Row(tenantCells(r)) }
		end = func(l *inspect.TenantList) error {
			if err := t.Flush(); err != nil {
				return err
			}
			if rows == 0 {
				env.note("no tenants match")
			}
			if n := tenantsShowing(rows, l.Matched); n != "" {
				env.note("%s", n)
			}
			return nil
		}
	}
	l, err := inspect.StreamTenants(ctx, st, o, begin, each)
	if err != nil {
		return err
	}
	printViewNotes(env, l.Notes)
	if err := end(l); err != nil {
		return err
	}
	return u.err(l)
}

// writeTenantsJSON writes l exactly as ui.WriteJSON would (the test holds them
// byte for byte), but row by row: at 10^5 tenants the listing is tens of
// megabytes, and encoding it by reflection and then re-indenting the whole
// buffer costs several times what reading the store does.
func writeTenantsJSON(w io.Writer, l *inspect.TenantList) error {
	j := newTenantsJSON(w)
	if err := j.head(l); err != nil {
		return err
	}
	for i := range l.Tenants {
		if err := j.row(&l.Tenants[i]); err != nil {
			return err
		}
	}
	return j.tail(l)
}

// tenantsJSON writes a listing's JSON in three parts: its head, its rows one
// at a time (streamed as they are read, or from a built list), and its tail.
type tenantsJSON struct {
	bw   *bufio.Writer
	b    []byte
	rows int
}

func newTenantsJSON(w io.Writer) *tenantsJSON {
	return &tenantsJSON{bw: bufio.NewWriterSize(w, 256<<10)}
}

func (j *tenantsJSON) head(l *inspect.TenantList) error {
	head := struct {
		Schema  int                `json:"schema"`
		Format  uint32             `json:"format"`
		Now     time.Time          `json:"now"`
		Sort    inspect.TenantSort `json:"sort"`
		Matched int                `json:"matched"`
	}{ui.JSONSchema, l.Format, l.Now, l.Sort, l.Matched}
	b, err := json.MarshalIndent(head, "", "  ")
	if err != nil {
		return err
	}
	j.b = append(b[:len(b)-2], ",\n  \"tenants\": ["...) // drop "\n}"
	return nil
}

func (j *tenantsJSON) row(r *inspect.TenantRow) error {
	if j.rows > 0 {
		j.b = append(j.b, ',')
	}
	j.rows++
	j.b = appendTenantRowJSON(j.b, r)
	if len(j.b) > 128<<10 {
		if _, err := j.bw.Write(j.b); err != nil {
			return err
		}
		j.b = j.b[:0]
	}
	return nil
}

func (j *tenantsJSON) tail(l *inspect.TenantList) error {
	if j.rows == 0 {
		j.b = append(j.b, ']')
	} else {
		j.b = append(j.b, "\n  ]"...)
	}
	// The rest is small: let encoding/json write it, and splice it in.
	tail := struct {
		Aggregate       *inspect.TenantCounters `json:"aggregate,omitempty"`
		AggregateErrors []string                `json:"aggregate_errors,omitempty"`
		Backlog         *inspect.Backlog2       `json:"backlog_pass,omitempty"`
		Notes           []inspect.ViewNote      `json:"notes"`
	}{l.Aggregate, l.AggregateErrors, l.Backlog, l.Notes}
	var t bytes.Buffer
	enc := json.NewEncoder(&t)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tail); err != nil {
		return err
	}
	j.b = append(j.b, ',')
	j.b = append(j.b, t.Bytes()[1:]...) // drop "{"
	if _, err := j.bw.Write(j.b); err != nil {
		return err
	}
	return j.bw.Flush()
}

// appendTenantRowJSON appends one row as ui.WriteJSON indents it in the list.
func appendTenantRowJSON(b []byte, r *inspect.TenantRow) []byte {
	const in = "\n      "
	b = append(b, "\n    {"+in+`"ord": `...)
	if r.Ord == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendUint(b, uint64(*r.Ord), 10)
	}
	b = append(b, ","+in+`"tenant": `...)
	b = ui.AppendJSONString(b, r.Tenant)
	if r.Erased {
		b = append(b, ","+in+`"erased": true`...)
	}
	for _, f := range format.Fields {
		b = append(b, ","+in+`"`...)
		b = append(b, format.FieldNames[f]...)
		b = append(b, `": `...)
		if r.Unreadable(f) {
			b = append(b, "null"...) // never the zero it was left at
		} else {
			b = strconv.AppendInt(b, r.Get(f), 10)
		}
	}
	b = append(b, ","+in+`"oldest_due_at": `...)
	if r.OldestDueAt == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '"')
		b = ui.AppendJSONTime(b, *r.OldestDueAt)
		b = append(b, '"')
	}
	b = append(b, ","+in+`"oldest_due_age_ms": `...)
	if r.OldestDueAgeMS == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, *r.OldestDueAgeMS, 10)
	}
	if len(r.Errors) > 0 {
		b = append(b, ","+in+`"errors": [`...)
		for i, e := range r.Errors {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, in+"  "...)
			b = ui.AppendJSONString(b, e)
		}
		b = append(b, in+"]"...)
	}
	return append(b, "\n    }"...)
}

func tenantRows(l *inspect.TenantList) ui.Rows {
	rows := ui.Rows{Columns: tenantColumns()}
	rows.Empty = "no tenants match"
	for i := range l.Tenants {
		rows.Add(tenantCells(&l.Tenants[i])...)
	}
	if n := tenantsShowing(len(l.Tenants), l.Matched); n != "" {
		rows.Notes = append(rows.Notes, n)
	}
	return rows
}

// tenantsShowing is the note of a listing cut to shown of its matched rows, "" when it is not cut.
func tenantsShowing(shown, matched int) string {
	if shown == 0 || matched <= shown {
		return ""
	}
	return fmt.Sprintf("showing %s of %s", words.Group(int64(shown)), words.Count(int64(matched), "tenant", "tenants"))
}

func tenantColumns() []ui.Column {
	return []ui.Column{
		{Header: "Ord", Right: true}, {Header: "Tenant"},
		{Header: "Pending", Right: true}, {Header: "Sched", Name: "scheduled", Right: true, Drop: 1},
		{Header: "Inflight", Right: true, Drop: 2},
		{Header: "Dead", Right: true}, {Header: "Bytes", Right: true, Drop: 3}, {Header: "Archive", Name: "archive_pending", Right: true, Drop: 4},
		{Header: "Oldest due", Name: "oldest_due_age_ms", Right: true},
	}
}

// tenantCells is the one row builder of the table and the TSV, built or streamed.
func tenantCells(r *inspect.TenantRow) []ui.Cell {
	ord := ui.Text("-")
	if r.Ord != nil {
		ord = ui.ID(*r.Ord)
	}
	tenant := ui.Text(r.Tenant)
	if r.Erased {
		tenant.Human = "(erased)"
	}
	if len(r.Errors) > 0 {
		tenant.Human += " (" + fmt.Sprint(len(r.Errors)) + " unreadable)"
		tenant.Color = ui.ColorYellow
	}
	age := ui.Cell{Human: "-"}
	if r.OldestDueAgeMS != nil {
		age = ui.Cell{Human: words.Age(*r.OldestDueAgeMS), Plain: fmt.Sprint(*r.OldestDueAgeMS)}
	}
	c := &r.TenantCounters
	return []ui.Cell{ord, tenant, counterCell(c, format.FieldPending), counterCell(c, format.FieldScheduled), counterCell(c, format.FieldInflight),
		counterCell(c, format.FieldDead), counterCell(c, format.FieldBytes), counterCell(c, format.FieldArchivePending), age}
}
