package cmd

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/clidoc"
	"github.com/ankusa/ankusa-store/internal/cmdutil"
	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

func init() {
	clidoc.RegisterSchema("ankusa-store scan", inspect.ScanResult{})
}

type scanOptions struct {
	target string
	from   string
	to     string
	after  string
	limit  int
	tenant string
	store  string
}

func newScanCmd(env *Env) *cobra.Command {
	opts := &scanOptions{}
	c := &cobra.Command{
		Use:   "scan [flags] FAMILY STORE",
		Short: "List the keys and values of a key family or column family, decoded",
		Long: `scan lists keys in key order, like ldb scan, with every key and value of the store
contract decoded: due rows with their ordinal, time, seq, sink, size and kind; dead
rows with source and hook id; tenants; counters as RocksDB merges them (a counter
whose merge fails shows the error on its row, and the scan goes on). Sentinels are
marked as such; keys that do not decode are shown with what is wrong with them.

FAMILY is a key family (` + "due, inflight, dead, dead_by_tenant, archive, active, tenant_by_ord,\nord_by_tenant, counters, due_v2, inflight_v2" + `), which scans it from its lo sentinel to
its hi sentinel, or a column family (hooks, deliveries, audit, quarantine, default,
index, tenants), which scans all of it. archive and counters name the key families;
cf:archive and cf:counters the column families.

--from (inclusive) and --to (exclusive) narrow the range; they and --after take keys
in hex, or as an Elixir node logs a binary (<<68, 0, 0, 0, 1, ...>>). At most --limit
rows are printed (0: all); when there are more, a cursor follows the table (beside
piped TSV: on stderr, even with -q; next_cursor in JSON): pass it to --after for the
next page, as with dlq scan. A family of the other format (due on a format 2 store,
due_v2 on format 3) is scanned with a warning that names the family to use (exit 0; a
key found there is a stray); where the store lacks even its column family (counters on
format 2) that is exit 2. --tenant T scans
the range of one tenant's ordinal in a tenant-keyed family (due, inflight,
dead_by_tenant, counters, tenant_by_ord), resolved from its n row; an unknown tenant
is exit 1. The store is opened read-only.`,
		Example: `  ankusa-store scan dead_by_tenant store/
  ankusa-store scan counters --limit 0 -o json store-v3.tar.zst
  ankusa-store scan due --from 0x4400000002 --to 0x4400000003 store/
  ankusa-store scan due --tenant acme store/`,
		Args: cmdutil.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			opts.target, opts.store = args[0], args[1]
			return runScan(c.Context(), env, opts)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.from, "from", "", "first key, in hex (inclusive)")
	f.StringVar(&opts.to, "to", "", "end key, in hex (exclusive)")
	f.StringVar(&opts.after, "after", "", "continue after the cursor a previous page printed (a key in hex, exclusive)")
	f.IntVar(&opts.limit, "limit", 100, "most rows to print; 0 prints all")
	f.StringVar(&opts.tenant, "tenant", "", "only this tenant's keys: its id, or @N for the tenant of ordinal N (format 3, tenant-keyed families)")
	storeArg(c)
	return c
}

func runScan(ctx context.Context, env *Env, opts *scanOptions) error {
	o := inspect.ScanOptions{Target: opts.target, Limit: opts.limit}
	if opts.limit < 0 {
		return exitcode.Usagef("--limit must be >= 0, got %d", opts.limit)
	}
	if err := inspect.CheckScanTarget(opts.target); err != nil {
		return exitcode.Usagef("%v", err)
	}
	var err error
	if opts.from != "" {
		if o.From, err = inspect.ParseKeyHex(opts.from); err != nil {
			return exitcode.Usagef("--from: %v", err)
		}
	}
	if opts.to != "" {
		if o.To, err = inspect.ParseKeyHex(opts.to); err != nil {
			return exitcode.Usagef("--to: %v", err)
		}
	}
	if opts.after != "" {
		if o.After, err = inspect.ParseKeyHex(opts.after); err != nil {
			return exitcode.Usagef("--after: %v", err)
		}
	}
	if err := checkScanTenant(opts); err != nil {
		return err
	}
	st, closeStore, err := env.openStore(opts.store, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		return err
	}
	defer closeStore()
	if opts.tenant != "" {
		if err := scanTenantRange(env, st, opts, &o); err != nil {
			return err
		}
	}
	res, err := inspect.ScanKeys(ctx, st, o)
	if errors.Is(err, inspect.ErrOtherFormat) {
		return exitcode.Usagef("%v", err)
	}
	if err != nil {
		return err
	}
	printViewNotes(env, res.Notes)
	return env.render(res, func() ui.Rows {
		rows := ui.Rows{Columns: []ui.Column{{Header: "Key"}, {Header: "Family", Drop: 1}, {Header: "Decoded", Flex: true},
			{Header: "Value", Flex: true}, {Header: "Error", Flex: true, OmitEmpty: true}}}
		rows.Empty = "no keys in this range"
		for _, r := range res.Rows {
			decoded := r.FieldList.String()
			if r.Sentinel != "" {
				decoded = r.Sentinel + " sentinel"
			}
			e := ui.Text(r.Error)
			e.Color = ui.ColorYellow
			rows.Add(ui.Text(r.Key), ui.Text(r.Family), ui.Text(decoded), ui.Text(r.Value), e)
		}
		if res.NextCursor != "" {
			rows.Next = "more rows: next page with --after " + res.NextCursor
		}
		return rows
	})
}

// What the on-call views (tenants ls, dlq scan, keys decode, scan) share.

// printViewNotes writes a view's notes to stderr: warnings always (they are
// findings), plain notes unless --quiet.
func printViewNotes(env *Env, notes []inspect.ViewNote) {
	for _, n := range notes {
		if n.Warning {
			env.warn("%s", n.Text)
		} else {
			env.note("%s", n.Text)
		}
	}
}

// viewTimeLayout is how the views print a point in time for scripts: RFC 3339
// in UTC with milliseconds, the resolution of every time in a store.
const viewTimeLayout = "2006-01-02T15:04:05.000Z07:00"
