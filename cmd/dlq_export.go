package cmd

import (
	"bufio"
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

func init() { registerSchema("ankusa-store dlq export", dlqExportLine{}) }

// dlqExportLine is one line of dlq export's JSON Lines: the schema version, then the
// dead letter.
type dlqExportLine struct {
	Schema int `json:"schema"`
	inspect.DLQExportRow
}

type dlqExportOptions struct {
	dlqSelectFlags
	limit int
	store string
}

func newDLQExportCmd(env *Env) *cobra.Command {
	opts := &dlqExportOptions{}
	c := &cobra.Command{
		Use:   "export [flags] STORE",
		Short: "Write dead letters as JSON Lines, hook body and headers included",
		Long: `export writes the dead letters of one tenant (--tenant) or of all, newest first, as
JSON Lines on stdout: one object per line, each a whole dead letter, for handing to
the tenant or to a replay tool. Each line has its ref (SEQ:SINK, what dlq show
takes), when it went dead, its tenant, source id, hook id and sink, from its
delivery row the attempts, size and last error, and the hook: its id, tenant id,
idempotency key, received at, headers and body (body_text when the body is UTF-8,
else body_hex). A dead letter whose delivery row or hook is missing or does not
decode is written with what could be read and says so in problems.

--tenant, --since, --until and --sink select as dlq scan does (times in Unix ms,
RFC 3339, or a duration ago: 90m, 2h, 1d); --limit stops after that many (0: all).
The rows are read a page at a time, as dlq scan pages, with the hooks of a page
read together, so memory stays flat however many dead letters there are.
The output is always JSON Lines, each line one object of the schema below (JSON
output), "schema" first (-o json is accepted; -o table and tsv are not).
Notes and warnings go to stderr. The store is opened read-only; a store
mid-migration is refused.`,
		Example: `  ankusa-store dlq export --tenant acme /var/lib/ankusa/store
  ankusa-store dlq export --since 1d --limit 100 store-v3.tar.zst`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.store = args[0]
			opts.sinkSet = c.Flags().Changed("sink")
			return runDLQExport(c.Context(), env, opts)
		},
	}
	opts.add(c, "only this tenant's dead letters (default: every tenant's)")
	f := c.Flags()
	f.IntVar(&opts.limit, "limit", 0, "most dead letters to write; 0 writes all")
	storeArg(c)
	return c
}

func runDLQExport(ctx context.Context, env *Env, opts *dlqExportOptions) error {
	if env.Output != "" && !env.JSON() {
		return usageErr("dlq export writes JSON Lines; -o %s is not for it (leave -o out, or -o json)", env.Output)
	}
	if opts.limit < 0 {
		return usageErr("--limit must be >= 0, got %d", opts.limit)
	}
	sel, err := opts.parse(env)
	if err != nil {
		return err
	}
	st, closeStore, err := env.openStore(opts.store, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		return err
	}
	defer closeStore()
	if err := sel.resolveTenant(ctx, env, st); err != nil {
		return err
	}
	o := inspect.DLQExportOptions{Tenant: sel.Tenant, Since: sel.Since, Until: sel.Until, Sink: sel.Sink, Limit: opts.limit}
	scope := "every tenant"
	if opts.tenant != "" {
		scope = "tenant " + o.Tenant
	}
	p := env.Progress(fmt.Sprintf("dlq export %s: %s", opts.store, scope), "dead letters", 0)
	w := bufio.NewWriterSize(env.IO.Out, 256<<10)
	var b []byte
	sum, err := inspect.ExportDLQ(ctx, st, o, func(r *inspect.DLQExportRow) error {
		b = appendDLQExportLine(b[:0], r)
		p.Add(1)
		_, err := w.Write(b)
		return err
	})
	p.Done()
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	printViewNotes(env, sum.Notes)
	if sum.Exported == 0 && !env.Quiet {
		fmt.Fprintln(env.IO.Err, "note: no dead letters match")
	}
	return nil
}

// appendDLQExportLine appends one line of the export: the bytes encoding/json writes for
// dlqExportLine (HTML escaping off, then a newline), which the test holds them to, written
// by hand: bodies are most of an export, and encoding them by reflection cost as much as
// reading them.
func appendDLQExportLine(b []byte, r *inspect.DLQExportRow) []byte {
	// Each field is its name with its comma and colon, `,"name":`, then its value.
	str := func(b []byte, field, v string) []byte { return appendJSONString(append(b, field...), v) }
	opt := func(b []byte, field string, v *string) []byte {
		if v == nil {
			return append(append(b, field...), "null"...)
		}
		return str(b, field, *v)
	}
	num := func(b []byte, field string, v int64) []byte { return strconv.AppendInt(append(b, field...), v, 10) }
	b = strconv.AppendInt(append(b, `{"schema":`...), JSONSchema, 10)
	b = str(b, `,"ref":`, r.Ref)
	b = strconv.AppendUint(append(b, `,"seq":`...), r.Seq, 10)
	b = num(b, `,"sink":`, int64(r.Sink))
	b = appendJSONTime(append(append(b, `,"dead_at":`...), '"'), r.DeadAt)
	b = strconv.AppendUint(append(b, `","at":`...), r.At, 10)
	b = str(b, `,"tenant":`, r.Tenant)
	if r.Ord == nil {
		b = append(b, `,"ord":null`...)
	} else {
		b = num(b, `,"ord":`, int64(*r.Ord))
	}
	b = str(b, `,"source_id":`, r.SourceID)
	b = str(b, `,"hook_id":`, r.HookID)
	b = strconv.AppendUint(append(b, `,"size":`...), r.Size, 10)
	b = num(b, `,"attempts":`, r.Attempts)
	b = opt(b, `,"last_error":`, r.LastError)
	if h := r.Hook; h == nil {
		b = append(b, `,"hook":null`...)
	} else {
		b = appendJSONString(append(b, `,"hook":{"key":{"cf":`...), h.Key.CF)
		b = str(b, `,"family":`, h.Key.Family)
		b = str(b, `,"key":`, h.Key.Key)
		b = str(b, `,"hex":`, h.Key.Hex)
		b = append(b, '}')
		b = str(b, `,"id":`, h.ID)
		b = str(b, `,"source_id":`, h.SourceID)
		b = opt(b, `,"tenant_id":`, h.TenantID)
		b = opt(b, `,"idempotency_key":`, h.IdempotencyKey)
		b = appendJSONTime(append(append(b, `,"received_at":`...), '"'), h.ReceivedAt)
		b = num(append(b, '"'), `,"received_at_ms":`, h.ReceivedAtMS)
		b = append(b, `,"headers":[`...)
		for i, hd := range h.Headers {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(append(b, '['), hd[0])
			b = append(appendJSONString(append(b, ','), hd[1]), ']')
		}
		b = append(b, ']')
		b = num(b, `,"body_bytes":`, int64(h.BodyBytes))
		b = opt(b, `,"body_text":`, h.BodyText)
		b = opt(b, `,"body_hex":`, h.BodyHex)
		if h.Error != "" {
			b = str(b, `,"error":`, h.Error)
		}
		b = append(b, '}')
	}
	b = append(b, `,"problems":`...)
	if r.Problems == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, p := range r.Problems {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, p)
		}
		b = append(b, ']')
	}
	return append(b, "}\n"...)
}
