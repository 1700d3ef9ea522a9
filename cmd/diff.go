package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

func init() {
	register(newDiffCmd)
	registerSchema("ankusa-store diff", inspect.DiffResult{})
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
not grow with the stores.

Equal stores print nothing and exit 0 (-o json prints "equal": true). Otherwise the
differing keys, decoded as scan decodes them, grouped by key family (a key that fits
none is under its column family): whether each is only in A, only in B or changed,
and its value in each. At most --limit keys are shown per family (0: all); the counts
of each family are always whole, after the table (beside piped TSV on stderr; in
the JSON). Then exit 1.

A key that could not be read in A, B or both (a counter whose merge fails, a damaged
block) is never equal, whatever the two failures say: it is shown as "unreadable in
A", "in B" or "in both" (change unreadable, and "unreadable": "a", "b" or "both" in
the JSON) with each side's reason, the rest of the difference is still shown, and the
exit is 3 (a store error, classed by the first failed read: corruption for a merge).`,
		Example: `  ankusa-store diff store-v3.tar.zst /var/lib/ankusa/store
  ankusa-store diff --limit 0 -o json store-v3.tar.zst store/`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageErr("%s takes two stores, A and B, got %d argument(s) (see '%s --help')", c.CommandPath(), len(args), c.CommandPath())
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
		return usageErr("--limit must be >= 0, got %d", opts.limit)
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
	p := env.Progress(fmt.Sprintf("diff %s %s: comparing every key", opts.a, opts.b), "keys", 0)
	res, err := inspect.DiffStores(ctx, a, b, inspect.DiffOptions{Limit: opts.limit, Progress: p.Add})
	p.Done()
	if err != nil {
		return err
	}
	res.A.Store, res.B.Store = opts.a, opts.b
	printViewNotes(env, res.Notes)
	if res.Equal {
		if env.JSON() {
			return writeJSON(env.IO.Out, res)
		}
		return nil
	}
	if err := env.render(res, func() Rows { return diffRows(res) }); err != nil {
		return err
	}
	counts := diffCounts(res.OnlyA, res.OnlyB, res.Changed, res.Unreadable)
	if res.Unreadable > 0 {
		// Not a finding: what those keys hold is unknown, so the stores may be equal or not.
		return &ExitError{Code: ExitStore, Err: fmt.Errorf("%s and %s cannot be compared: %s could not be read (%s); first: %w",
			opts.a, opts.b, plural(res.Unreadable, "key", "keys"), counts, res.FirstUnreadable)}
	}
	return findingsErr("%s and %s differ: %s", opts.a, opts.b, counts)
}

func diffRows(res *inspect.DiffResult) Rows {
	rows := Rows{Columns: []Column{
		{Header: "CF", Drop: 2}, {Header: "Family"}, {Header: "Change"},
		{Header: "Key", Name: "decoded", Flex: true, MinWidth: 24},
		{Header: "A", Name: "a_value", Flex: true}, {Header: "B", Name: "b_value", Flex: true},
		{Header: "Key (hex)", Name: "key", Drop: 1},
	}}
	for _, f := range res.Families {
		for _, k := range f.Keys {
			// Decoded as scan's Decoded column shows a key; one that does not decode says why.
			key := k.FieldList.String()
			switch {
			case k.Sentinel != "":
				key = k.Sentinel + " sentinel"
			case k.KeyError != "":
				key = k.KeyText
			}
			rows.Add(Text(f.CF), Text(f.Family), diffChangeCell(k.Change, k.Unreadable), Text(key),
				diffValueCell(k.A), diffValueCell(k.B), Text(k.Key))
		}
		note := fmt.Sprintf("%s %s: %s", f.CF, f.Family, diffCounts(f.OnlyA, f.OnlyB, f.Changed, f.Unreadable))
		if f.Omitted > 0 {
			note += fmt.Sprintf("; %d more not shown (--limit)", f.Omitted)
		}
		rows.Notes = append(rows.Notes, note)
	}
	return rows
}

func diffChangeCell(change, unreadable string) Cell {
	c := Cell{Human: strings.ReplaceAll(change, "_", " "), Plain: change}
	c.Human = strings.NewReplacer("in a", "in A", "in b", "in B").Replace(c.Human)
	c.Color = colorYellow
	if unreadable != "" {
		// "unreadable in A", "in B", "in both".
		side := strings.ToUpper(unreadable)
		if unreadable == "both" {
			side = unreadable
		}
		c.Human += " in " + side
		c.Color = colorRed
	}
	return c
}

func diffValueCell(v *inspect.DiffValue) Cell {
	switch {
	case v == nil:
		return Cell{Human: "-", Plain: ""}
	case v.Error != "" && v.ValueHex == "" && v.Value == "":
		return Text("(" + v.Error + ")")
	case v.Error != "":
		return Text(v.Value + " (" + v.Error + ")")
	}
	return Text(v.Value)
}

// diffCounts says "1 only in A, 0 only in B, 2 changed", and how many keys could not be
// read where any could not.
func diffCounts(onlyA, onlyB, changed, unreadable int64) string {
	s := fmt.Sprintf("%d only in A, %d only in B, %d changed", onlyA, onlyB, changed)
	if unreadable > 0 {
		s += fmt.Sprintf(", %d unreadable", unreadable)
	}
	return s
}
