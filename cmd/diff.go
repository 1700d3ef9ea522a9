package cmd

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/clidoc"
	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

func init() {
	clidoc.RegisterSchema("ankusa-store diff", inspect.DiffResult{})
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
	var res *inspect.DiffResult
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
func diffPass(ctx context.Context, env *Env, opts *diffOptions, a, b *rocks.Store, o inspect.DiffOptions) (*inspect.DiffResult, error) {
	p := env.Progress(fmt.Sprintf("diff %s %s: comparing every key", opts.a, opts.b), "keys", 0)
	o.Progress = p
	res, err := inspect.DiffStores(ctx, a, b, o)
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
func diffTSVStream(ctx context.Context, env *Env, opts *diffOptions, a, b *rocks.Store) (*inspect.DiffResult, error) {
	t := ui.NewTSVStream(env.IO.Out, diffColumns(), !env.NoHeaders)
	res, err := diffPass(ctx, env, opts, a, b, inspect.DiffOptions{Limit: opts.limit,
		Key: func(run *inspect.DiffFamily, k *inspect.DiffKey) error {
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
func diffTable(ctx context.Context, env *Env, opts *diffOptions, a, b *rocks.Store) (*inspect.DiffResult, error) {
	color := env.IO.ColorOn(env.IO.OutIsTerminal)
	if opts.limit > 0 {
		res, err := diffPass(ctx, env, opts, a, b, inspect.DiffOptions{Limit: opts.limit})
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
	counts, err := diffPass(ctx, env, opts, a, b, inspect.DiffOptions{
		Key: func(*inspect.DiffFamily, *inspect.DiffKey) error { return nil }})
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
	res, err := diffPass(ctx, env, opts, a, b, inspect.DiffOptions{
		Key: func(run *inspect.DiffFamily, k *inspect.DiffKey) error { r.write(run.CF, run.Family, k); return r.err }})
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

// diffRecords prints differing keys for a terminal too narrow for their table, a few
// lines each whatever the values weigh (a hook body is kilobytes: -o json has it whole):
//
//	only in B  index due  bucket=1796032600 bucket_time=2026-11-30T09:56:40Z ord=3 seq=7
//	  B: sink=1 kind=first_attempt
//
// The first line is the change, the family and the key, whole (wrapped at its spaces
// where it is wider than the terminal, never cut); then the value of each side that has
// the key, cut to the line.
type diffRecords struct {
	env   *Env
	w     *bufio.Writer
	color bool
	n     int
	cut   bool
	err   error
}

func (r *diffRecords) write(cf, family string, k *inspect.DiffKey) {
	if r.err != nil {
		return
	}
	cells := diffCells(cf, family, k)
	width := r.env.width()
	if r.n > 0 {
		r.w.WriteByte('\n')
	}
	r.n++
	change := ui.SafeLine(cells[2].Human)
	head := change + "  " + ui.SafeLine(cf+" "+family) + "  "
	first := ui.Hanging(head, ui.SafeLine(cells[3].Human), 4, width, 20)
	if r.color {
		first = strings.Replace(first, change, ui.SGR(cells[2].Color, change), 1)
	}
	r.w.WriteString(first)
	for _, side := range []struct {
		name string
		v    *inspect.DiffValue
		cell ui.Cell
	}{{"A", k.A, cells[4]}, {"B", k.B, cells[5]}} {
		if side.v == nil {
			continue // the side does not have the key: the change says so
		}
		text := ui.SafeLine(side.cell.Human)
		if text == "" && side.v.Error == "" {
			text = "(empty)" // a sentinel's value
		}
		v := "  " + side.name + ": " + text
		if width > 0 && ansi.StringWidth(v) > width {
			if side.cell.Cut != "" {
				v = "  " + side.name + ": " + ui.SafeLine(side.cell.Cut)
			}
			v = ui.TruncateWidth(v, width)
			r.cut = true
		}
		r.w.WriteString(v + "\n")
	}
	_, r.err = r.w.WriteString("")
}

// end flushes the records, with a note where a value was cut.
func (r *diffRecords) end() error {
	if r.err != nil {
		return r.err
	}
	if r.cut {
		r.w.WriteString("\n" + r.env.wrap("(values cut to a line: -o json or TSV has them whole, and the keys in hex)"))
	}
	return r.w.Flush()
}

// diffLead is what a terminal shows first: how many keys differ in each
// family, as a table, so that the whole difference is read before its first
// keys.
func diffLead(env *Env, res *inspect.DiffResult) {
	rows := ui.Rows{Columns: []ui.Column{{Header: "CF"}, {Header: "Family"}, {Header: "Only in A", Right: true},
		{Header: "Only in B", Right: true}, {Header: "Changed", Right: true}, {Header: "Unreadable", Right: true, OmitEmpty: true},
		{Header: "Not shown", Right: true, OmitEmpty: true}}}
	for i := range res.Families {
		f := &res.Families[i]
		cells := []ui.Cell{ui.Text(f.CF), ui.Text(f.Family), ui.Int(f.OnlyA), ui.Int(f.OnlyB), ui.Int(f.Changed), {}, {}}
		if f.Unreadable > 0 {
			cells[5] = ui.Int(f.Unreadable)
			cells[5].Color = ui.ColorRed
		}
		if f.Omitted > 0 {
			cells[6] = ui.Int(f.Omitted)
		}
		rows.Add(cells...)
	}
	if res.Families != nil && omittedAny(res) {
		rows.Notes = []string{"(Not shown: past --limit per family; --limit 0 shows every key)"}
	}
	_ = env.writeTable(env.IO.Out, rows)
	fmt.Fprintln(env.IO.Out)
}

func omittedAny(res *inspect.DiffResult) bool {
	for _, f := range res.Families {
		if f.Omitted > 0 {
			return true
		}
	}
	return false
}

// diffFamilyNotes are the whole counts of each family that differs.
func diffFamilyNotes(res *inspect.DiffResult) []string {
	var notes []string
	for i := range res.Families {
		f := &res.Families[i]
		note := fmt.Sprintf("%s %s: %s", f.CF, f.Family, diffCounts(f.OnlyA, f.OnlyB, f.Changed, f.Unreadable))
		if f.Omitted > 0 {
			note += fmt.Sprintf("; %d more not shown (--limit)", f.Omitted)
		}
		notes = append(notes, note)
	}
	return notes
}

// diffColumns are the columns of the one row builder (diffCells). Keys are
// ids: never cut (a table too narrow for them is records, diffRecords). The
// values are free text, cut to fit.
func diffColumns() []ui.Column {
	return []ui.Column{
		{Header: "CF", Drop: 3}, {Header: "Family"}, {Header: "Change"},
		{Header: "Key", Name: "decoded"},
		{Header: "A", Name: "a_value", Flex: true, MinWidth: diffFar + 8}, {Header: "B", Name: "b_value", Flex: true, MinWidth: diffFar + 8},
		{Header: "Key (hex)", Name: "key", Drop: 2},
	}
}

func diffRows(res *inspect.DiffResult) ui.Rows {
	rows := ui.Rows{Columns: diffColumns()}
	for _, f := range res.Families {
		for i := range f.Keys {
			rows.Add(diffCells(f.CF, f.Family, &f.Keys[i])...)
		}
	}
	rows.Notes = diffFamilyNotes(res)
	return rows
}

// diffCells is the one row of a differing key, for the table, the records
// and the TSV.
func diffCells(cf, family string, k *inspect.DiffKey) []ui.Cell {
	// Decoded as scan's Decoded column shows a key; one that does not decode says why.
	key := k.FieldList.String()
	switch {
	case k.Sentinel != "":
		key = k.Sentinel + " sentinel"
	case k.KeyError != "":
		key = k.KeyText
	}
	a, b := diffValueCell(k.A), diffValueCell(k.B)
	if k.A != nil && k.B != nil && k.A.Error == "" && k.B.Error == "" {
		a.Cut, b.Cut = diffAround(k.A.Value, k.B.Value)
	}
	return []ui.Cell{ui.Text(cf), ui.Text(family), diffChangeCell(k.Change, k.Unreadable), ui.Text(key),
		a, b, ui.Text(k.Key)}
}

// diffBefore is how much of a changed value a terminal keeps before the first byte where
// the two sides differ, and diffFar how far into the values that byte must be for the
// rest before it to go: a cut cell (diffColumns' MinWidth) still shows the difference.
const (
	diffBefore = 6
	diffFar    = 16
)

// diffAround is what a terminal shows of a changed key's two values where they are cut
// (ui.Cell.Cut): "" (the values cut as any text is) when they differ within their first
// diffFar bytes; else each from diffBefore bytes before the first byte where they differ,
// after that byte's offset: "byte 1043: …s":410,…" against "byte 1043: …s":503,…". Cut
// from the right, two long values that differ far in looked the same (issue 46). Whole
// where they fit; TSV and -o json always have them whole (Plain).
func diffAround(a, b string) (string, string) {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	if i <= diffFar || a == b {
		return "", "" // or the two differ only in bytes their text does not show
	}
	from := i - diffBefore
	for from > 0 && !utf8.RuneStart(a[from]) {
		from-- // the same bytes in both up to i: a rune starts at from in b too
	}
	at := fmt.Sprintf("byte %d: …", i)
	return at + a[from:], at + b[from:]
}

func diffChangeCell(change, unreadable string) ui.Cell {
	c := ui.Cell{Human: strings.ReplaceAll(change, "_", " "), Plain: change}
	c.Human = strings.NewReplacer("in a", "in A", "in b", "in B").Replace(c.Human)
	c.Color = ui.ColorYellow
	if unreadable != "" {
		// "unreadable in A", "in B", "in both".
		side := strings.ToUpper(unreadable)
		if unreadable == "both" {
			side = unreadable
		}
		c.Human += " in " + side
		c.Color = ui.ColorRed
	}
	return c
}

func diffValueCell(v *inspect.DiffValue) ui.Cell {
	switch {
	case v == nil:
		return ui.Cell{Human: "-", Plain: ""}
	case v.Error != "" && v.ValueHex == "" && v.Value == "":
		return ui.Text("(" + v.Error + ")")
	case v.Error != "":
		return ui.Text(v.Value + " (" + v.Error + ")")
	}
	return ui.Text(v.Value)
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
