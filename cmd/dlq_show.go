package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

func init() { registerSchema("ankusa-store dlq show", inspect.DLQDetail{}) }

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
					return usageErr("%s --id HOOK_ID takes only STORE, got %d argument(s)", c.CommandPath(), len(args))
				}
				return usageErr("%s takes SEQ[:SINK] and STORE, got %d argument(s) (see '%s --help')", c.CommandPath(), len(args), c.CommandPath())
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
	o := inspect.DLQShowOptions{HookID: opts.id}
	if opts.id == "" {
		r, err := inspect.ParseDLQRef(opts.ref)
		if err != nil {
			return usageErr("%v", err)
		}
		o.Ref = r
	}
	st, closeStore, err := openStore(opts.store, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		return err
	}
	defer closeStore()
	d, err := inspect.ShowDLQ(ctx, st, o)
	if errors.Is(err, inspect.ErrNoDeadLetter) {
		return findingsErr("%v", err)
	}
	if err != nil {
		return err
	}
	printViewNotes(env, d.Notes)
	terminal := env.Output == "table" || (env.Output == "" && env.IO.OutIsTerminal)
	return env.render(d, func() Rows { return dlqShowRows(d, terminal && !opts.full) })
}

// dlqShowRows lists each dead letter as field, value rows (kubectl describe's
// shape), one block per dead letter.
func dlqShowRows(d *inspect.DLQDetail, truncate bool) Rows {
	rows := Rows{Columns: []Column{{Header: "Ref"}, {Header: "Field"}, {Header: "Value"}}}
	for _, l := range d.DeadLetters {
		add := func(k string, v Cell) { rows.Add(Text(l.Ref), Text(k), v) }
		ord := "-"
		if l.Ord != nil {
			ord = fmt.Sprint(*l.Ord)
		}
		add("dead_at", Text(l.DeadAt.Format(viewTimeLayout)))
		add("tenant", Text(l.Tenant))
		add("ord", Text(ord))
		add("source_id", Text(l.SourceID))
		add("hook_id", Text(l.HookID))
		if dd := l.Delivery; dd != nil {
			if dd.Error != "" {
				add("delivery", Text("("+dd.Error+")"))
			} else {
				add("status", Text(dd.Status))
				add("attempts", Int(dd.Attempts))
				add("size", Cell{Human: HumanBytes(dd.Size), Plain: fmt.Sprint(dd.Size)})
				le := "(nil)"
				if dd.LastError != nil {
					le = *dd.LastError
				}
				add("last_error", Text(le))
			}
		}
		if h := l.Hook; h != nil {
			if h.Error != "" {
				add("hook", Text("("+h.Error+")"))
			} else {
				add("hook.id", Text(h.ID))
				add("hook.source_id", Text(h.SourceID))
				tenant := "(nil: default)"
				if h.TenantID != nil {
					tenant = *h.TenantID
				}
				add("hook.tenant_id", Text(tenant))
				idem := "(nil)"
				if h.IdempotencyKey != nil {
					idem = *h.IdempotencyKey
				}
				add("hook.idempotency_key", Text(idem))
				add("hook.received_at", Text(h.ReceivedAt.Format(viewTimeLayout)))
				for _, hd := range h.Headers {
					add("hook.header", Text(hd[0]+": "+hd[1]))
				}
				body, kind := "", "text"
				if h.BodyText != nil {
					body = *h.BodyText
				} else if h.BodyHex != nil {
					body, kind = *h.BodyHex, "hex"
				}
				cell := Text(body)
				limit := dlqBodyTerminal
				if kind == "hex" {
					limit *= 2
				}
				if truncate && len(body) > limit {
					cell.Human = strings.ToValidUTF8(body[:limit], "") + fmt.Sprintf("… (%d bytes; --full shows all)", h.BodyBytes)
				}
				add("hook.body ("+kind+", "+fmt.Sprint(h.BodyBytes)+" bytes)", cell)
			}
		}
		for _, k := range l.IndexKeys {
			add("index_key", Text(k.Key+" (0x"+k.Hex+")"))
		}
		for _, p := range l.Problems {
			add("problem", Text(p))
		}
	}
	return rows
}
