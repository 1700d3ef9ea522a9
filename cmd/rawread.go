package cmd

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/cmdutil"
	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// rawread is the benchmarks' reference read, hidden from users: it reads
// whole families with the batched iterator and only counts what it reads.
// It lives in the binary so that the reference uses the very RocksDB build
// (the development library or the release one) the command it is compared
// with does (bench/scale_bench.sh).
type rawReadOptions struct {
	families []string
	// firsts are ordinal-led families of which only the first row of each
	// tenant is read, the rest skipped by a seek: what a listing of every
	// tenant's oldest due row must read (tenants ls).
	firsts []string
	cfs    []string // column families read whole; "all" is every one the store has
	store  string
}

// rawReadResult is its JSON; hidden, so no stable schema is published.
type rawReadResult struct {
	Families   []rawReadFamily `json:"families"`
	Keys       int64           `json:"keys"`
	Bytes      int64           `json:"bytes"`     // keys and values
	KeyBytes   int64           `json:"key_bytes"` // keys alone
	DurationMS int64           `json:"duration_ms"`
}

type rawReadFamily struct {
	Family   string `json:"family"`
	Keys     int64  `json:"keys"`
	Bytes    int64  `json:"bytes"`
	KeyBytes int64  `json:"key_bytes"`
}

func newRawReadCmd(env *Env) *cobra.Command {
	opts := &rawReadOptions{}
	c := &cobra.Command{
		Use:    "rawread --families F[,F...] --cfs CF[,CF...] STORE",
		Short:  "Read whole families and count their keys (a benchmark reference): either flag, or both",
		Hidden: true,
		Args:   cmdutil.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.store = args[0]
			return runRawRead(c.Context(), env, opts)
		},
	}
	c.Flags().StringSliceVar(&opts.families, "families", nil, "families to read, by name (tenant_by_ord, counters, ..., hooks, deliveries)")
	c.Flags().StringSliceVar(&opts.firsts, "first-of-each-tenant", nil, "ordinal-led families to read the first row of each tenant of (due: what tenants ls reads for the oldest due row)")
	c.Flags().StringSliceVar(&opts.cfs, "cfs", nil, "column families to read whole, by name (default, index, hooks, ...), or all: every key of the store (bench/fixture_bench.sh's reference)")
	storeArg(c)
	return c
}

func runRawRead(ctx context.Context, env *Env, opts *rawReadOptions) error {
	type rng struct {
		name, cf string
		lo, hi   []byte
		// first is rocks.ReadOpts.FirstOfEachPrefix: 0 reads every row.
		first int
	}
	var rs []rng
	for _, name := range opts.firsts {
		f, ok := format.FamilyByName(name)
		if !ok || f.TenantPrefixLen() == 0 {
			return exitcode.Usagef("--first-of-each-tenant: %q is not a family led by the ordinal", name)
		}
		rs = append(rs, rng{name: name + " (first of each tenant)", cf: f.CF, lo: f.Lo, hi: format.Successor(f.Hi), first: f.TenantPrefixLen()})
	}
	for _, name := range opts.families {
		switch name {
		case format.FamilyNameHooks:
			rs = append(rs, rng{name: name, cf: format.CFHooks})
		case format.FamilyNameDeliveries:
			rs = append(rs, rng{name: name, cf: format.CFDeliveries})
		default:
			f, ok := format.FamilyByName(name)
			if !ok {
				return exitcode.Usagef("--families: unknown family %q", name)
			}
			rs = append(rs, rng{name: name, cf: f.CF, lo: f.Lo, hi: format.Successor(f.Hi)})
		}
	}
	if len(rs) == 0 && len(opts.cfs) == 0 {
		return exitcode.Usagef("--families, --first-of-each-tenant or --cfs: name at least one family")
	}
	st, closeStore, err := env.openStore(opts.store, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		return err
	}
	defer closeStore()
	for _, cf := range opts.cfs {
		if cf == "all" {
			for _, name := range st.Families() {
				rs = append(rs, rng{name: name, cf: name})
			}
			continue
		}
		rs = append(rs, rng{name: cf, cf: cf})
	}
	began := time.Now()
	res := rawReadResult{Families: []rawReadFamily{}}
	for _, r := range rs {
		if !st.HasFamily(r.cf) {
			return exitcode.Usagef("--families or --cfs: %s has no column family %s", opts.store, r.cf)
		}
		fam := rawReadFamily{Family: r.name}
		err := st.Scan(r.cf, r.lo, r.hi, rocks.ReadOpts{FirstOfEachPrefix: r.first}, func(k, v []byte) error {
			fam.Keys++
			fam.Bytes += int64(len(k) + len(v))
			fam.KeyBytes += int64(len(k))
			return ctx.Err()
		})
		if err != nil {
			return err
		}
		res.Families = append(res.Families, fam)
		res.Keys += fam.Keys
		res.Bytes += fam.Bytes
		res.KeyBytes += fam.KeyBytes
	}
	res.DurationMS = time.Since(began).Milliseconds()
	return env.render(res, func() ui.Rows {
		rows := ui.Rows{Columns: []ui.Column{{Header: "Family"}, {Header: "Keys", Right: true}, {Header: "Bytes", Right: true}}}
		for _, f := range res.Families {
			rows.Add(ui.Text(f.Family), ui.Int(f.Keys), ui.Int(f.Bytes))
		}
		return rows
	})
}
