package cmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/timearg"
	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/diskspace"
	"github.com/ankusa/ankusa-store/pkg/fixture"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

func init() {
	register(newFixtureCmd)
	registerSchema("ankusa-store fixture", fixtureResult{})
}

type fixtureOptions struct {
	format  uint32
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
}

// fixtureResult is the fixture command's JSON: where the store went and
// what it holds.
type fixtureResult struct {
	Out     string `json:"out"`
	Archive bool   `json:"archive"`
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

The tables are written as every supported node reads them: SST format_version 5,
crc32c checksums, snappy (counters uncompressed, as the contract pins it).
--table-format-version 6 writes what a node on RocksDB 9.0 or later writes by default,
and --compression chooses another compression (zstd only for a node built with it).

--tenants counts the fixture's fixed tenants too; 0 is refused, not the default.

On a terminal it prints what it wrote and a table of rows per key family; piped or with
-o tsv, field and value rows (wrote, format, tenants, hooks, delivery_rows), a blank
line, then the cf, family and rows rows; -q drops neither.`,
		Example: `  ankusa-store fixture --format 3 --seed 1 --now 2026-11-30T10:00:00Z store-v3.tar.zst
  ankusa-store fixture --format 2 --tenants 1000 --hooks 20000 --dir /tmp/store-v2`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.out = args[0]
			// 0 would silently mean the default to fixture.Options: a fixture always has
			// its fixed tenants, so 0 is refused like any count below them.
			if c.Flags().Changed("tenants") && opts.tenants <= 0 {
				return usageErr("--tenants %d: at least %d are needed (default, acme, a unicode tenant, a dead-only tenant, globex); 0 is not the default", opts.tenants, fixture.MinTenants)
			}
			if c.Flags().Changed("hooks") && opts.hooks <= 0 {
				return usageErr("--hooks %d: give a positive number of hooks", opts.hooks)
			}
			return runFixture(c.Context(), env, opts)
		},
	}
	f := c.Flags()
	f.Uint32Var(&opts.format, "format", 3, "store format: 2 or 3")
	f.Int64Var(&opts.seed, "seed", 1, "seed of the history")
	f.StringVar(&opts.now, "now", fixture.DefaultNow.Format("2006-01-02T15:04:05Z07:00"), "the fixture's clock, where its history ends: Unix ms or RFC 3339")
	f.IntVar(&opts.tenants, "tenants", fixture.DefaultTenants, fmt.Sprintf("tenants, default included (at least %d)", fixture.MinTenants))
	f.IntVar(&opts.hooks, "hooks", fixture.DefaultHooks, "hooks to ingest (each has 1 to 3 deliveries)")
	f.BoolVar(&opts.dir, "dir", false, "write a store directory instead of an archive")
	f.IntVar(&opts.tableFormat, "table-format-version", 5, fmt.Sprintf("SST format_version of the tables, 2 to %d", rocks.MaxTableFormatVersion))
	f.StringVar(&opts.compression, "compression", "snappy", "compression of every family but counters: none, snappy, lz4, lz4hc, zlib, bzip2 or zstd")
	_ = c.RegisterFlagCompletionFunc("format", fixedValues("2", "3"))
	return c
}

func runFixture(ctx context.Context, env *Env, opts *fixtureOptions) error {
	env.setWrites(true)
	now, err := timearg.Instant(opts.now)
	if err != nil {
		return usageErr("--now: %v", err)
	}
	if opts.tableFormat < 2 || opts.tableFormat > rocks.MaxTableFormatVersion {
		return usageErr("--table-format-version %d: this tool's RocksDB %s writes 2 to %d", opts.tableFormat, rocks.LibraryVersion(), rocks.MaxTableFormatVersion)
	}
	comp, err := rocks.ParseCompression(opts.compression)
	if err != nil {
		return usageErr("--compression: %v", err)
	}
	tables := rocks.NewStoreRule(opts.tableFormat, comp)
	o := fixture.Options{Format: opts.format, Seed: opts.seed, Now: now, Tenants: opts.tenants, Hooks: opts.hooks, Tables: &tables}
	if err := o.Normalize(); err != nil {
		return usageErr("%v", err)
	}
	if err := checkFixtureOut(opts.out, opts.dir); err != nil {
		return err
	}
	if err := diskspace.Check("the fixture", filepath.Dir(filepath.Clean(opts.out)), fixture.EstimateSpace(o, !opts.dir)); err != nil {
		return &ExitError{Code: ExitStore, Err: err}
	}

	p := env.Progress(fmt.Sprintf("fixture %s: format %d, %d tenants", opts.out, o.Format, o.Tenants), "hooks", int64(o.Hooks))
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
	res := fixtureResult{Out: opts.out, Archive: !opts.dir, Summary: sum}
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

// checkFixtureOut refuses an OUT that holds something: a fixture never
// replaces a store or an archive.
func checkFixtureOut(out string, dir bool) error {
	if !dir && !isArchive(out) {
		return usageErr("%s: OUT must end in .tar.zst (or give --dir to write a directory)", out)
	}
	if parent, err := os.Stat(filepath.Dir(out)); err != nil || !parent.IsDir() {
		return usageErr("%s: directory %s does not exist", out, filepath.Dir(out))
	}
	st, err := os.Stat(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case dir && !st.IsDir():
		return usageErr("%s exists and is not a directory", out)
	case dir:
		ents, err := os.ReadDir(out)
		if err != nil {
			return err
		}
		if len(ents) > 0 {
			return usageErr("%s is not empty; a fixture never overwrites a store", out)
		}
	case st.IsDir():
		return usageErr("%s is a directory; give --dir to write a store directory", out)
	case st.Size() > 0:
		return usageErr("%s exists; a fixture never overwrites an archive", out)
	}
	return nil
}
