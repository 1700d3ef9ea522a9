package cmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/linxGnu/grocksdb"
	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/clidoc"
	"github.com/ankusa/ankusa-store/internal/cmdutil"
	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/timearg"
	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/diskspace"
	"github.com/ankusa/ankusa-store/pkg/fixture"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

func init() {
	clidoc.RegisterSchema("ankusa-store fixture", fixtureResult{})
}

type fixtureOptions struct {
	format  string // one of formatChoices
	seed    int64
	now     string
	tenants int
	hooks   int
	dir     bool
	out     string
	// tableFormat and compression: how the tables are written (every supported node reads
	// the defaults; 6 and zstd are for tests of stores newer nodes write).
	tableFormat int
	compression string
	// node is the erlang-rocksdb release the store is made as (nodeFor).
	node string
}

// fixtureResult is the fixture command's JSON: where the store went and
// what it holds.
type fixtureResult struct {
	Out     string `json:"out"`
	Archive bool   `json:"archive"`
	// Node is the erlang-rocksdb release whose node's OPTIONS file the store holds.
	Node string `json:"node"`
	fixture.Summary
}

func newFixtureCmd(env *Env) *cobra.Command {
	opts := &fixtureOptions{}
	c := &cobra.Command{
		Use:   "fixture [flags] OUT",
		Short: "Write a realistic sample store (format 2 or 3) as a .tar.zst",
		Long: `fixture writes a sample store made the way a node makes one: a seeded history of
the queue's transitions (ingest, claim, retry, deliver, dead-letter, revive, recovery,
expansion, purge, archive settle and drop), each committed with its counter deltas.

The store holds every case the tools must handle: several tenants (default, a unicode
one, one with only dead rows), pending, retrying and inflight rows, dead rows, archive
obligations, a hook with several sinks, compressed, missing and undecodable hooks, and
rows of the families no format changes. Part of its counters stay as unmerged operands
in the WAL and in level-0 tables, so that readers really merge.

OUT is a .tar.zst archive, or a directory with --dir. It must not exist or be empty.
The same --seed, --now and sizes give the same logical content.

The store is built aside, in .OUT.fixture-partial-<pid>-<random> beside OUT, and renamed
to OUT (or packed into it) only once it is complete: an interrupted run (kill -9, a full
disk) leaves nothing under OUT, a partial store it leaves has no m:format, so every
command refuses it, and the next fixture run in the same directory removes it. Before the
first write the free space beside OUT is checked against an estimate (about 1 KiB a
hook, 1.5 KiB for an archive, plus 8 MiB): short, it refuses with exit 3.

The store is made as a node of one erlang-rocksdb release leaves it (--node): with that
node's OPTIONS file (its RocksDB, and how each family's tables are written), so that status
names the release and the write rule reads the file. By default the tables are written as
every supported node reads them: SST format_version 5, crc32c checksums, snappy (counters
uncompressed, as the contract pins it), by the oldest node, 1.8.0. --table-format-version
and --compression write what newer nodes write; without --node the store is then the oldest
release's that reads that format_version and whose build has that compression (zstd from
2.6.0; zlib and bzip2 none, so they are refused). --node alone writes that release's
default format_version.

--tenants counts the fixture's fixed tenants too; 0 is refused, not the default.

On a terminal it prints what it wrote and a table of rows per key family; piped or with
-o tsv, field and value rows (wrote, format, tenants, hooks, delivery_rows), a blank
line, then the cf, family and rows rows; -q drops neither.`,
		Example: `  ankusa-store fixture --format 3 --seed 1 --now 2026-11-30T10:00:00Z store-v3.tar.zst
  ankusa-store fixture --format 2 --tenants 1000 --hooks 20000 --dir /tmp/store-v2`,
		Args: cmdutil.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.out = args[0]
			// 0 would silently mean the default to fixture.Options: a fixture always has
			// its fixed tenants, so 0 is refused like any count below them.
			if c.Flags().Changed("tenants") && opts.tenants <= 0 {
				return exitcode.Usagef("--tenants %d: at least %d are needed (default, acme, a unicode tenant, a dead-only tenant, globex); 0 is not the default", opts.tenants, fixture.MinTenants)
			}
			if c.Flags().Changed("hooks") && opts.hooks <= 0 {
				return exitcode.Usagef("--hooks %d: give a positive number of hooks", opts.hooks)
			}
			if c.Flags().Changed("table-format-version") && opts.tableFormat == 0 {
				return exitcode.Usagef("--table-format-version 0: this tool's RocksDB %s writes 2 to %d; without the flag, the node's own", rocks.LibraryVersion(), rocks.MaxTableFormatVersion)
			}
			return runFixture(c.Context(), env, opts)
		},
	}
	f := c.Flags()
	cmdutil.EnumFlag(c, f, &opts.format, cmdutil.Enum{Name: "format", Default: formatChoices[len(formatChoices)-1].Name, Noun: "store format", Choices: formatChoices, Usage: "store format: %s",
		Refuse: refuseFormat})
	f.Int64Var(&opts.seed, "seed", 1, "seed of the history")
	f.StringVar(&opts.now, "now", fixture.DefaultNow.Format("2006-01-02T15:04:05Z07:00"), "the fixture's clock, where its history ends: Unix ms or RFC 3339")
	f.IntVar(&opts.tenants, "tenants", fixture.DefaultTenants, fmt.Sprintf("tenants, default included (at least %d)", fixture.MinTenants))
	f.IntVar(&opts.hooks, "hooks", fixture.DefaultHooks, "hooks to ingest (each has 1 to 3 deliveries)")
	f.BoolVar(&opts.dir, "dir", false, "write a store directory instead of an archive")
	f.IntVar(&opts.tableFormat, "table-format-version", 0, fmt.Sprintf("SST format_version of the tables, 2 to %d; default: --node's (5 without it)", rocks.MaxTableFormatVersion))
	// --compression's and --node's refusals name what the release asked for has, whichever
	// flag comes first: they are worded once the line is parsed (cmdutil.Refusal).
	cmdutil.EnumFlag(c, f, &opts.compression, cmdutil.Enum{Name: "compression", Default: "snappy", Noun: "compression", Choices: compressionChoices(), Usage: "compression of every family but counters: %s",
		Refuse: func(v string) error { return refuseCompression(v, opts.node) }})
	cmdutil.EnumFlag(c, f, &opts.node, cmdutil.Enum{Name: "node", Noun: "erlang-rocksdb release", Choices: cmdutil.Values(rocks.SupportedReleases().Releases...),
		Usage:  "the erlang-rocksdb release the store is made as: %s; default: the oldest that writes --table-format-version and --compression",
		Refuse: refuseNode})
	return c
}

// formatChoices are --format's values: the store formats a fixture is made in, the newest
// (the default) last.
var formatChoices = cmdutil.Values(strconv.Itoa(int(format.Format2)), strconv.Itoa(int(format.Format3)))

// compressionChoices are --compression's values: none and every codec some erlang-rocksdb
// release's build has (nodeFor then refuses one the --node given lacks).
func compressionChoices() cmdutil.Choices {
	names := []string{"none"}
	for _, r := range rocks.BindingReleases {
		for _, c := range r.CodecList() {
			if !slices.Contains(names, c) {
				names = append(names, c)
			}
		}
	}
	return cmdutil.Values(names...)
}

// refuseFormat is --format's refusal of a number that is no format a fixture is made in;
// any other word is refused in the one shape.
func refuseFormat(v string) error {
	if _, err := strconv.ParseUint(v, 10, 32); err != nil {
		return nil
	}
	return fmt.Errorf("--format %s: only %s can be generated", v, strings.Join(formatChoices.Names(), " and "))
}

// refuseCompression is --compression's refusal of a codec outside its list; a word that
// names no codec RocksDB has is refused in the one shape.
func refuseCompression(v, node string) error {
	comp, err := rocks.ParseCompression(v)
	if err != nil {
		return nil
	}
	return compressionRefusal(comp, node)
}

// compressionRefusal is the refusal of comp, which the build of erlang-rocksdb node lacks
// or, without a release this tool knows, every build lacks (the flag's and nodeFor's).
func compressionRefusal(comp grocksdb.CompressionType, node string) error {
	name := strings.ToLower(rocks.CompressionName(comp))
	if r, ok := rocks.FindRelease(node); ok {
		return fmt.Errorf("--compression %s: the build of erlang-rocksdb %s has none, %s", name, node, r.CodecNames())
	}
	return fmt.Errorf("--compression %s: no erlang-rocksdb release's build has it (each has %s at most), so no node would read the store",
		name, rocks.BindingReleases[len(rocks.BindingReleases)-1].CodecNames())
}

// refuseNode is --node's refusal of a release this tool does not know.
func refuseNode(v string) error {
	return fmt.Errorf("--node %s: no erlang-rocksdb release this tool knows (%s to %s)", v, rocks.SupportedReleases().Releases[0], lastRelease())
}

func runFixture(ctx context.Context, env *Env, opts *fixtureOptions) error {
	env.setWrites(true)
	now, err := timearg.Instant(opts.now)
	if err != nil {
		return exitcode.Usagef("--now: %v", err)
	}
	comp, err := rocks.ParseCompression(opts.compression)
	if err != nil {
		return exitcode.Usagef("--compression: %v", err)
	}
	node, fv, err := nodeFor(opts.node, opts.tableFormat, comp)
	if err != nil {
		return err
	}
	tables := rocks.NewStoreRule(fv, comp)
	tables.Node = node
	storeFormat, err := strconv.ParseUint(opts.format, 10, 32)
	if err != nil {
		return exitcode.Usagef("--format %s: %v", opts.format, err)
	}
	o := fixture.Options{Format: uint32(storeFormat), Seed: opts.seed, Now: now, Tenants: opts.tenants, Hooks: opts.hooks, Tables: &tables}
	if err := o.Normalize(); err != nil {
		return exitcode.Usagef("%v", err)
	}
	if err := checkFixtureOut(opts.out, opts.dir); err != nil {
		return err
	}
	if err := diskspace.Check("the fixture", filepath.Dir(filepath.Clean(opts.out)), fixture.EstimateSpace(o, !opts.dir)); err != nil {
		return &exitcode.Error{Code: exitcode.Store, Err: err}
	}

	p := env.Progress(fmt.Sprintf("fixture %s: format %d, %s", opts.out, o.Format, words.Count(int64(o.Tenants), "tenant", "tenants")), "hooks", int64(o.Hooks))
	o.Progress = p
	var sum fixture.Summary
	if opts.dir {
		sum, err = fixture.Generate(ctx, opts.out, o)
	} else {
		sum, err = fixture.GenerateArchive(ctx, opts.out, o)
	}
	p.Done()
	if errors.Is(err, context.Canceled) {
		return interrupted("nothing was written at %s (the partial store was removed); run the same command again", opts.out)
	}
	if err != nil {
		return err
	}
	// The summary is part of the result: on a terminal its line above the table; piped or
	// with -o tsv, field and value rows, a blank line, then the family rows (as migrate's
	// summary and phases), so that -q, which drops notes, never drops it.
	res := fixtureResult{Out: opts.out, Archive: !opts.dir, Node: node, Summary: sum}
	families := func() ui.Rows {
		rows := ui.Rows{Columns: []ui.Column{{Header: "CF"}, {Header: "Family"}, {Header: "Rows", Right: true}}}
		for _, f := range sum.Families {
			rows.Add(ui.Text(f.CF), ui.Text(f.Family), ui.Int(f.Rows))
		}
		return rows
	}
	switch {
	case env.JSON():
		return ui.WriteJSON(env.IO.Out, res)
	case env.table():
		// The path is the operator's argument, which may hold anything (internal/ui/guard.go).
		fmt.Fprintln(env.IO.Out, ui.SafeLine(fmt.Sprintf("wrote %s: format %d, %s, %s, %s", opts.out, sum.Format, words.Count(int64(sum.Tenants), "tenant", "tenants"),
			words.Count(int64(sum.Hooks), "hook", "hooks"), words.Count(int64(sum.Rows), "delivery row", "delivery rows"))))
		return env.renderRows(families())
	}
	head := ui.Rows{Columns: []ui.Column{{Header: "Field"}, {Header: "Value"}}}
	head.Add(ui.Text("wrote"), ui.Text(opts.out))
	head.Add(ui.Text("format"), ui.ID(sum.Format))
	head.Add(ui.Text("tenants"), ui.Int(int64(sum.Tenants)))
	head.Add(ui.Text("hooks"), ui.Int(int64(sum.Hooks)))
	head.Add(ui.Text("delivery_rows"), ui.Int(int64(sum.Rows)))
	if err := ui.WriteTSV(env.IO.Out, head, !env.NoHeaders); err != nil {
		return err
	}
	fmt.Fprintln(env.IO.Out)
	return env.renderRows(families())
}

// nodeFor is the release a fixture is made as and the table format_version it writes: the
// release asked for (its default format_version when fv is 0), or the oldest whose RocksDB
// reads fv (5 when 0) and whose build has comp. What no node of that release could have
// written (a format_version its RocksDB does not read, a codec its build lacks) is refused:
// the store would be one no node reads.
func nodeFor(name string, fv int, comp grocksdb.CompressionType) (string, int, error) {
	if name == "" {
		if fv == 0 {
			fv = rocks.OldestNodeRule("").Default.FormatVersion
		}
		if fv < 2 || fv > rocks.MaxTableFormatVersion {
			return "", 0, exitcode.Usagef("--table-format-version %d: this tool's RocksDB %s writes 2 to %d", fv, rocks.LibraryVersion(), rocks.MaxTableFormatVersion)
		}
		for _, r := range rocks.BindingReleases {
			if fv <= r.ReadsTableFormat() && r.Has(comp) {
				return r.Releases[0], fv, nil
			}
		}
		return "", 0, &exitcode.Error{Code: exitcode.Usage, Err: compressionRefusal(comp, "")}
	}
	r, ok := rocks.FindRelease(name)
	if !ok {
		return "", 0, &exitcode.Error{Code: exitcode.Usage, Err: refuseNode(name)}
	}
	if fv == 0 {
		fv = r.WritesTableFormat
	}
	if limit := min(r.ReadsTableFormat(), rocks.MaxTableFormatVersion); fv < 2 || fv > limit {
		return "", 0, exitcode.Usagef("--table-format-version %d: a node on erlang-rocksdb %s (RocksDB %s) writes 2 to %d", fv, name, r.RocksDB, limit)
	}
	if !r.Has(comp) {
		return "", 0, &exitcode.Error{Code: exitcode.Usage, Err: compressionRefusal(comp, name)}
	}
	return name, fv, nil
}

// lastRelease is the newest release the tool knows.
func lastRelease() string {
	all := rocks.SupportedReleases().Releases
	return all[len(all)-1]
}

// checkFixtureOut refuses an OUT that holds something: a fixture never
// replaces a store or an archive.
func checkFixtureOut(out string, dir bool) error {
	if !dir && !isArchive(out) {
		return exitcode.Usagef("%s: OUT must end in .tar.zst (or give --dir to write a directory)", out)
	}
	if parent, err := os.Stat(filepath.Dir(out)); err != nil || !parent.IsDir() {
		return exitcode.Usagef("%s: directory %s does not exist", out, filepath.Dir(out))
	}
	st, err := os.Stat(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case dir && !st.IsDir():
		return exitcode.Usagef("%s exists and is not a directory", out)
	case dir:
		ents, err := os.ReadDir(out)
		if err != nil {
			return err
		}
		if len(ents) > 0 {
			return exitcode.Usagef("%s is not empty; a fixture never overwrites a store", out)
		}
	case st.IsDir():
		return exitcode.Usagef("%s is a directory; give --dir to write a store directory", out)
	case st.Size() > 0:
		return exitcode.Usagef("%s exists; a fixture never overwrites an archive", out)
	}
	return nil
}
