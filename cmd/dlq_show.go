package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/clidoc"
	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

func init() { clidoc.RegisterSchema("ankusa-store dlq show", inspect.DLQDetail{}) }

type dlqShowOptions struct {
	ref   string
	id    string
	full  bool
	store string
}

// dlqBodyTerminal is how much of a body a terminal shows without --full.
const dlqBodyTerminal = 512

func newDLQShowCmd(env *Env) *cobra.Command {
	opts := &dlqShowOptions{}
	c := &cobra.Command{
		Use:   "show [flags] SEQ[:SINK] STORE",
		Short: "Show one dead letter in full: dead row, delivery row, hook and index keys",
		Long: `show prints a dead letter in full: the dead row (when it went dead, its tenant, source
and hook id), its delivery row (status, attempts, size, last error), the hook envelope
(id, source, tenant, idempotency key, received at, headers and body) and every index key
that points at it (dead, dead by tenant, an inflight key if one is left, the archive
obligation), with any problem found on the way.

SEQ:SINK is what dlq scan prints in its Ref column; SEQ alone shows the dead letters of
every sink of that hook. --id HOOK_ID finds them by hook id instead (then STORE is the
only argument). The body is shown as text when it is UTF-8, else in hex; a terminal
shows its first 512 bytes unless --full (TSV and JSON always carry all of it).
The JSON is exact as dlq export's is: a text field whose bytes are not UTF-8 also has
its bytes in hex, NAME_hex (source_id_hex, hook_id_hex, tenant_hex, the delivery's
last_error_hex, and the hook's id_hex, source_id_hex, tenant_id_hex,
idempotency_key_hex and headers_hex), present only then and named in problems.

On a terminal (and with -o table) each dead letter is a block of "Field:  value"
lines, with the delivery row, the hook and the index keys as indented sections; the
body follows its Body line as it is, neither wrapped nor indented, so that copying it
gives its bytes (only what would drive the terminal is shown escaped, e.g. \x1b).
Piped, it is TSV: one ref, field, value row per field.

Exit status 1 when no dead letter matches; 2 when SEQ:SINK is malformed. The store is
opened read-only; a store mid-migration is refused.`,
		Example: `  ankusa-store dlq show 383:1 /var/lib/ankusa/store
  ankusa-store dlq show --id hk_000000000000017f -o json store-v3.tar.zst`,
		Args: func(c *cobra.Command, args []string) error {
			want := 2
			if opts.id != "" {
				want = 1
			}
			if len(args) != want {
				if want == 1 {
					return exitcode.Usagef("%s --id HOOK_ID takes only STORE, got %d argument(s)", c.CommandPath(), len(args))
				}
				return exitcode.Usagef("%s takes SEQ[:SINK] and STORE, got %d argument(s) (see '%s --help')", c.CommandPath(), len(args), c.CommandPath())
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if opts.id != "" {
				opts.store = args[0]
			} else {
				opts.ref, opts.store = args[0], args[1]
			}
			return runDLQShow(c.Context(), env, opts)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.id, "id", "", "find the dead letters of this hook id")
	f.BoolVar(&opts.full, "full", false, "show the whole body on a terminal")
	storeArgUnless(c, "id")
	return c
}

func runDLQShow(ctx context.Context, env *Env, opts *dlqShowOptions) error {
	o := inspect.DLQShowOptions{HookID: opts.id, Values: env.values}
	if opts.id == "" {
		r, err := inspect.ParseDLQRef(opts.ref)
		if err != nil {
			return exitcode.Usagef("%v", err)
		}
		o.Ref = r
	}
	st, closeStore, err := env.openStore(opts.store, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		return err
	}
	defer closeStore()
	d, err := inspect.ShowDLQ(ctx, st, o)
	if errors.Is(err, inspect.ErrNoDeadLetter) {
		return notFoundErr(err, noDeadLetterHint(opts.store))
	}
	if err != nil {
		return err
	}
	printViewNotes(env, d.Notes)
	if env.table() {
		_, err := io.WriteString(env.IO.Out, dlqDescribe(d, !opts.full, env.width()))
		return err
	}
	return env.render(d, func() ui.Rows { return dlqShowRows(d) })
}

// dlqDescribe is the dead letters for a person (kubectl describe's shape): "Field:  value"
// lines, the delivery row and the hook as indented sections, a blank line between dead
// letters. The body is printed as it is, from column 0 and not wrapped (the terminal folds
// long lines itself), so that copying it gives the body's bytes; only what would drive the
// terminal is escaped (internal/ui/guard.go). Without --full a body is cut after its first 512
// bytes, which its Body line says.
func dlqDescribe(d *inspect.DLQDetail, truncate bool, width int) string {
	var b describer
	for i, l := range d.DeadLetters {
		if i > 0 {
			b.blank()
		}
		ord := "-"
		if l.Ord != nil {
			ord = fmt.Sprint(*l.Ord)
		}
		b.field(0, "Ref", l.Ref)
		b.field(0, "Dead at", l.DeadAt.Format(viewTimeLayout))
		b.field(0, "Tenant", l.Tenant)
		b.field(0, "Ord", ord)
		b.field(0, "Source id", l.SourceID)
		b.field(0, "Hook id", l.HookID)
		if dd := l.Delivery; dd != nil {
			b.section(0, "Delivery")
			if dd.Error != "" {
				b.field(1, "Error", dd.Error)
			} else {
				b.field(1, "Status", dd.Status)
				b.field(1, "Attempts", words.Group(dd.Attempts))
				size := words.Bytes(int64(dd.Size))
				if dd.Size >= 1024 {
					size += fmt.Sprintf(" (%d bytes)", dd.Size) // what the TSV and JSON say
				}
				b.field(1, "Size", size)
				le := "(nil)"
				if dd.LastError != nil {
					le = *dd.LastError
				}
				b.field(1, "Last error", le)
			}
		}
		if h := l.Hook; h != nil {
			b.section(0, "Hook")
			if h.Error != "" {
				b.field(1, "Error", h.Error)
			} else {
				b.field(1, "Id", h.ID)
				b.field(1, "Source id", h.SourceID)
				tenant := "(nil: default)"
				if h.TenantID != nil {
					tenant = *h.TenantID
				}
				b.field(1, "Tenant id", tenant)
				idem := "(nil)"
				if h.IdempotencyKey != nil {
					idem = *h.IdempotencyKey
				}
				b.field(1, "Idempotency key", idem)
				b.field(1, "Received at", h.ReceivedAt.Format(viewTimeLayout))
				if len(h.Headers) > 0 {
					b.section(1, "Headers")
					for _, hd := range h.Headers {
						b.item(2, hd[0]+": "+hd[1])
					}
				}
				body, kind := "", "text"
				if h.BodyText != nil {
					body = *h.BodyText
				} else if h.BodyHex != nil {
					body, kind = *h.BodyHex, "hex"
				}
				limit := dlqBodyTerminal
				if kind == "hex" {
					limit *= 2
				}
				about := fmt.Sprintf("%s, %s", kind, words.Count(int64(h.BodyBytes), "byte", "bytes"))
				cut := truncate && len(body) > limit
				if cut {
					about += fmt.Sprintf("; the first %d shown below, --full shows all", dlqBodyTerminal)
				} else if body != "" {
					about += ", below"
				}
				b.field(1, "Body", about)
				if cut {
					b.verbatim(strings.ToValidUTF8(body[:limit], ""))
					b.item(1, fmt.Sprintf("… %s more (--full shows all)", words.Count(int64(h.BodyBytes-dlqBodyTerminal), "byte", "bytes")))
				} else if body != "" {
					b.verbatim(body)
				}
			}
		}
		if len(l.IndexKeys) > 0 {
			b.section(0, "Index keys")
			for _, k := range l.IndexKeys {
				b.item(1, k.Key+" (0x"+k.Hex+")")
			}
		}
		if len(l.Problems) > 0 {
			b.section(0, "Problems")
			for _, p := range l.Problems {
				b.item(1, p)
			}
		}
	}
	return b.render(width)
}

// describer builds a describe block: fields, sections, list items, verbatim text.
type describer struct{ lines []describeLine }

type describeLine struct {
	kind   byte // 'f' field, 's' section, 'i' item, 'v' verbatim, 'b' blank
	indent int
	name   string
	value  string
}

func (d *describer) field(indent int, name, value string) {
	d.lines = append(d.lines, describeLine{kind: 'f', indent: indent, name: name, value: value})
}
func (d *describer) section(indent int, name string) {
	d.lines = append(d.lines, describeLine{kind: 's', indent: indent, name: name})
}
func (d *describer) item(indent int, value string) {
	d.lines = append(d.lines, describeLine{kind: 'i', indent: indent, value: value})
}
func (d *describer) verbatim(text string) {
	d.lines = append(d.lines, describeLine{kind: 'v', value: text})
}
func (d *describer) blank() { d.lines = append(d.lines, describeLine{kind: 'b'}) }

// render aligns every value in one column, two spaces after the longest name, and
// wraps a long value at spaces under itself (never inside a token).
func (d *describer) render(width int) string {
	col := 0
	for _, l := range d.lines {
		if l.kind == 'f' {
			col = max(col, 2*l.indent+ansi.StringWidth(l.name)+1+2)
		}
	}
	var b strings.Builder
	for _, l := range d.lines {
		pad := strings.Repeat("  ", l.indent)
		switch l.kind {
		case 'b':
			b.WriteByte('\n')
		case 's':
			b.WriteString(pad + l.name + ":\n")
		case 'v':
			body := ui.SafeLines(l.value)
			b.WriteString(body)
			if !strings.HasSuffix(body, "\n") {
				b.WriteByte('\n')
			}
		case 'i':
			b.WriteString(ui.Hanging(pad, ui.SafeLine(l.value), len(pad)+2, width, 20))
		case 'f':
			head := pad + l.name + ":"
			head += strings.Repeat(" ", col-ansi.StringWidth(head))
			b.WriteString(ui.Hanging(head, ui.SafeLine(l.value), col, width, 20))
		}
	}
	return b.String()
}

// dlqShowRows lists each dead letter as ref, field, value rows: TSV, for scripts (the
// terminal gets dlqDescribe), every value whole.
func dlqShowRows(d *inspect.DLQDetail) ui.Rows {
	rows := ui.Rows{Columns: []ui.Column{{Header: "Ref"}, {Header: "Field"}, {Header: "Value"}}}
	for _, l := range d.DeadLetters {
		add := func(k string, v ui.Cell) { rows.Add(ui.Text(l.Ref), ui.Text(k), v) }
		ord := "-"
		if l.Ord != nil {
			ord = fmt.Sprint(*l.Ord)
		}
		add("dead_at", ui.Text(l.DeadAt.Format(viewTimeLayout)))
		add("tenant", ui.Text(l.Tenant))
		add("ord", ui.Text(ord))
		add("source_id", ui.Text(l.SourceID))
		add("hook_id", ui.Text(l.HookID))
		if dd := l.Delivery; dd != nil {
			if dd.Error != "" {
				add("delivery", ui.Text("("+dd.Error+")"))
			} else {
				add("status", ui.Text(dd.Status))
				add("attempts", ui.Int(dd.Attempts))
				add("size", ui.Cell{Human: words.Bytes(int64(dd.Size)), Plain: fmt.Sprint(dd.Size)})
				le := "(nil)"
				if dd.LastError != nil {
					le = *dd.LastError
				}
				add("last_error", ui.Text(le))
			}
		}
		if h := l.Hook; h != nil {
			if h.Error != "" {
				add("hook", ui.Text("("+h.Error+")"))
			} else {
				add("hook.id", ui.Text(h.ID))
				add("hook.source_id", ui.Text(h.SourceID))
				tenant := "(nil: default)"
				if h.TenantID != nil {
					tenant = *h.TenantID
				}
				add("hook.tenant_id", ui.Text(tenant))
				idem := "(nil)"
				if h.IdempotencyKey != nil {
					idem = *h.IdempotencyKey
				}
				add("hook.idempotency_key", ui.Text(idem))
				add("hook.received_at", ui.Text(h.ReceivedAt.Format(viewTimeLayout)))
				for _, hd := range h.Headers {
					add("hook.header", ui.Text(hd[0]+": "+hd[1]))
				}
				body, kind := "", "text"
				if h.BodyText != nil {
					body = *h.BodyText
				} else if h.BodyHex != nil {
					body, kind = *h.BodyHex, "hex"
				}
				add("hook.body ("+kind+", "+fmt.Sprint(h.BodyBytes)+" bytes)", ui.Text(body))
			}
		}
		for _, k := range l.IndexKeys {
			add("index_key", ui.Text(k.Key+" (0x"+k.Hex+")"))
		}
		for _, p := range l.Problems {
			add("problem", ui.Text(p))
		}
	}
	return rows
}
