package cmd

import (
	"bufio"
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/clidoc"
	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/storediff"
)

func init() {
	clidoc.RegisterSchema("ankusa-store diff", storediff.Result{})
}

type diffOptions struct {
	a, b  string
	limit int
}

func newDiffCmd(env *Env) *cobra.Command {
	opts := &diffOptions{}
	c := &cobra.Command{
		Use:   "diff [flags] A B",
		Short: "Compare two stores key by key: what only one has, and what changed",
		Long: `diff compares the logical content of two stores: every key of every column family,
with its value as a reader sees it, counters merged (and compared as numbers). What
RocksDB keeps besides (table files, levels, WAL, unmerged counter operands, its own
files) is not compared: two stores written by the same writes differ in those byte for
byte and are equal here. Uses: is a committed fixture what its seed makes today, is
the restored backup the live store, did two builds of the tool migrate alike.

A and B are each a store directory or a .tar.zst archive of one, opened read-only (a
running node may hold them). Both are read in key order side by side, so memory does
not grow with the stores, nor with their difference.

Equal stores print nothing and exit 0 (-o json prints "equal": true). Otherwise the
differing keys, decoded as scan decodes them, grouped by key family (a key that fits
none is under its column family): whether each is only in A, only in B or changed,
and its value in each. At most --limit keys are shown per family (0: all); the counts
of each family are always whole: on a terminal first, as a table, then the keys;
beside piped TSV on stderr, after the rows; in the JSON. Then exit 1.

Keys are never cut: on a terminal too narrow for the table with them whole, each key
is a record of a few lines, the change, family and key (wrapped at its spaces) on the
first, then each side's value cut to a line (TSV and -o json have the values whole).
A changed key's two values too wide for the terminal are shown from just before the
first byte where they differ, after its offset in the value ("byte 1043: …"), when
that is past their first 16 bytes: cut from their end, they would look the same.
--limit counts keys, not lines. Memory stays a few chunks of each store whatever
--limit says: TSV and JSON are written as the keys are found (in -o json each
family's counts follow its keys and the totals follow the families); on a terminal
--limit 0 reads the stores twice, the counts first, then prints each key as it is
found.

A key that could not be read in A, B or both (a counter whose merge fails, a damaged
block) is never equal, whatever the two failures say: it is shown as "unreadable in
A", "in B" or "in both" (change unreadable, and "unreadable": "a", "b" or "both" in
the JSON) with each side's reason, the rest of the difference is still shown, and the
exit is 3 (a store error, classed by the first failed read: corruption for a merge).`,
		Example: `  ankusa-store diff store-v3.tar.zst /var/lib/ankusa/store
  ankusa-store diff --limit 0 -o json store-v3.tar.zst store/`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 2 {
				return exitcode.Usagef("%s takes two stores, A and B, got %d argument(s) (see '%s --help')", c.CommandPath(), len(args), c.CommandPath())
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.a, opts.b = args[0], args[1]
			return runDiff(c.Context(), env, opts)
		},
	}
	c.Flags().IntVar(&opts.limit, "limit", 20, "most differing keys to show per family; 0 shows all")
	c.ValidArgsFunction = func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) < 2 {
			return nil, cobra.ShellCompDirectiveFilterDirs
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return c
}

func runDiff(ctx context.Context, env *Env, opts *diffOptions) error {
	if opts.limit < 0 {
		return exitcode.Usagef("--limit must be >= 0, got %d", opts.limit)
	}
	a, closeA, err := env.openStore(opts.a, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		return err
	}
	defer closeA()
	b, closeB, err := env.openStore(opts.b, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		return err
	}
	defer closeB()
	var res *storediff.Result
	switch {
	case env.JSON():
		res, err = diffJSONStream(ctx, env, opts, a, b)
	case !env.table():
		res, err = diffTSVStream(ctx, env, opts, a, b)
	default:
		res, err = diffTable(ctx, env, opts, a, b)
	}
	if err != nil {
		return err
	}
	if res.Equal {
		return nil
	}
	counts := diffCounts(res.OnlyA, res.OnlyB, res.Changed, res.Unreadable)
	if res.Unreadable > 0 {
		// Not a finding: what those keys hold is unknown, so the stores may be equal or not.
		return &exitcode.Error{Code: exitcode.Store, Err: fmt.Errorf("%s and %s cannot be compared: %s could not be read (%s); first: %w",
			opts.a, opts.b, words.Count(res.Unreadable, "key", "keys"), counts, res.FirstUnreadable)}
	}
	return findingsErr("%s and %s differ: %s", opts.a, opts.b, counts)
}

// diffPass is one comparison of the two stores, with progress on stderr.
func diffPass(ctx context.Context, env *Env, opts *diffOptions, a, b *rocks.Store, o storediff.Options) (*storediff.Result, error) {
	p := env.Progress(fmt.Sprintf("diff %s %s: comparing every key", opts.a, opts.b), "keys", 0)
	o.Progress = p
	res, err := storediff.Stores(ctx, a, b, o)
	p.Done()
	if err != nil {
		return nil, err
	}
	res.A.Store, res.B.Store = opts.a, opts.b
	return res, nil
}

// diffTSVStream writes each differing key as a TSV row as it is found (the
// counts of each family, known at the end, go to stderr): memory stays a
// few chunks of each store whatever --limit says.
func diffTSVStream(ctx context.Context, env *Env, opts *diffOptions, a, b *rocks.Store) (*storediff.Result, error) {
	t := ui.NewTSVStream(env.IO.Out, diffColumns(), !env.NoHeaders)
	res, err := diffPass(ctx, env, opts, a, b, storediff.Options{Limit: opts.limit,
		Key: func(run *storediff.Family, k *storediff.Key) error {
			return t.Row(diffCells(run.CF, run.Family, k))
		}})
	if err != nil {
		return nil, err
	}
	printViewNotes(env, res.Notes)
	if res.Equal {
		// Not even a header: equal stores print nothing.
		return res, nil
	}
	if err := t.Flush(); err != nil {
		return nil, err
	}
	if !env.Quiet {
		for _, n := range diffFamilyNotes(res) {
			env.note("%s", n)
		}
	}
	return res, nil
}

// diffTable draws the difference for a person: the counts of each family
// first, then the keys kept (at most --limit per family) as a table, keys
// whole, or, where the table cannot fit, as records of a few lines each (the
// key whole, then each side's value cut to a line). With --limit 0 every key
// is shown: the stores are compared twice (the counts, then each key printed
// as a record as it is found), so that memory does not grow with the
// difference.
func diffTable(ctx context.Context, env *Env, opts *diffOptions, a, b *rocks.Store) (*storediff.Result, error) {
	color := env.IO.ColorOn(env.IO.OutIsTerminal)
	if opts.limit > 0 {
		res, err := diffPass(ctx, env, opts, a, b, storediff.Options{Limit: opts.limit})
		if err != nil {
			return nil, err
		}
		printViewNotes(env, res.Notes)
		if res.Equal {
			return res, nil
		}
		diffLead(env, res)
		rows := diffRows(res)
		rows.Notes = nil
		if env.printer().Fits(rows) {
			return res, env.writeTable(env.IO.Out, rows)
		}
		bw := bufio.NewWriterSize(env.IO.Out, 64<<10)
		r := diffRecords{env: env, w: bw, color: color}
		for _, f := range res.Families {
			for i := range f.Keys {
				r.write(f.CF, f.Family, &f.Keys[i])
			}
		}
		return res, r.end()
	}
	counts, err := diffPass(ctx, env, opts, a, b, storediff.Options{
		Key: func(*storediff.Family, *storediff.Key) error { return nil }})
	if err != nil {
		return nil, err
	}
	printViewNotes(env, counts.Notes)
	if counts.Equal {
		return counts, nil
	}
	diffLead(env, counts)
	bw := bufio.NewWriterSize(env.IO.Out, 64<<10)
	r := diffRecords{env: env, w: bw, color: color}
	res, err := diffPass(ctx, env, opts, a, b, storediff.Options{
		Key: func(run *storediff.Family, k *storediff.Key) error { r.write(run.CF, run.Family, k); return r.err }})
	if err != nil {
		return nil, err
	}
	if err := r.end(); err != nil {
		return nil, err
	}
	// The stores were read twice: say so if they moved in between.
	if res.OnlyA != counts.OnlyA || res.OnlyB != counts.OnlyB || res.Changed != counts.Changed || res.Unreadable != counts.Unreadable {
		env.warn("the stores changed while they were compared: the counts above are %s, the keys shown %s",
			diffCounts(counts.OnlyA, counts.OnlyB, counts.Changed, counts.Unreadable), diffCounts(res.OnlyA, res.OnlyB, res.Changed, res.Unreadable))
	}
	return res, nil
}
