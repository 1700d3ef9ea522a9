package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/ankusa/ankusa-store/internal/runs"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/store"
)

// options are a run's flags, and the sizes the test makes small (runElems, runLimits,
// tableBytes) so that a store of a few thousand rows spills its runs and cuts its tables.
type options struct {
	dir              string
	method           string
	rows, tenants    int
	seed, now        uint64
	bodyMin, bodyMax int
	// deadOnly and tenantBytes make the stores of rows far larger than a node's usual,
	// for bench/memory_bench.sh: 3,000 dead letters of 100 KB bodies, 300 of one tenant
	// whose id is a MiB.
	deadOnly    bool
	tenantBytes int
	// runElems is the due or dead keys radix-sorted at a time into a run: 24 bytes each,
	// twice (the sort's scratch), for each of the two.
	runElems  int
	runLimits runs.Limits
	// tableBytes is the size a table file is cut at.
	tableBytes uint64
}

// The tables method's sizes: runs of 2^19 keys (four buffers of 12 MiB), and table
// files of RocksDB's target_file_size_base.
const (
	defaultRunElems   = 1 << 19
	defaultTableBytes = 64 << 20
)

func main() {
	o := options{runElems: defaultRunElems, tableBytes: defaultTableBytes}
	flag.StringVar(&o.dir, "dir", "", "store directory to create (must not exist)")
	flag.StringVar(&o.method, "method", "tables", "tables (sorted table files and one ingest) or batches (RocksDB's write path, the slow path)")
	flag.IntVar(&o.rows, "rows", 1_000_000, "index rows to write (due, inflight, dead, archive)")
	flag.IntVar(&o.tenants, "tenants", 10_000, "tenants the hooks are spread over")
	flag.Uint64Var(&o.seed, "seed", 1, "random seed")
	now := flag.Int64("now", 1_796_032_800_000, "the store's clock, Unix ms; due rows lie on both sides")
	flag.IntVar(&o.bodyMin, "body-min", 256, "shortest hook body, bytes")
	// Hooks are most of a store's bytes (4.7 of 5.8 GB at 10^7 rows): a scale run whose
	// disk is short takes them empty, which is a hook the contract allows (body is any
	// binary) and leaves every row and key the migration moves as it was.
	flag.IntVar(&o.bodyMax, "body-max", 767, "longest hook body, bytes (0: every body empty, the smallest store the contract allows)")
	flag.BoolVar(&o.deadOnly, "dead-only", false, "every delivery dead, and no archive rows: ROWS dead letters")
	flag.IntVar(&o.tenantBytes, "tenant-bytes", 0, "pad each tenant id to this many bytes (past 256, an id no node accepts: the hooks carry it, the migration files them under default)")
	flag.Parse()
	o.now = uint64(*now)
	if err := o.check(); err != nil {
		fmt.Fprintln(os.Stderr, "migrategen:", err)
		os.Exit(2)
	}
	if err := generate(o); err != nil {
		fmt.Fprintln(os.Stderr, "migrategen:", err)
		os.Exit(1)
	}
}

func (o options) check() error {
	switch {
	case o.bodyMin < 0 || o.bodyMax < o.bodyMin:
		return fmt.Errorf("want 0 <= -body-min <= -body-max")
	case o.dir == "":
		return fmt.Errorf("-dir is required")
	case o.method != "tables" && o.method != "batches":
		return fmt.Errorf("-method must be tables or batches, not %q", o.method)
	}
	return nil
}

func generate(o options) error {
	began := time.Now()
	st, err := openNew(o)
	if err != nil {
		return err
	}
	defer st.Close()
	var c genCounts
	how := ""
	if o.method == "batches" {
		c, err = writeBatches(st, o)
	} else {
		var ts tablesStats
		c, ts, err = writeTables(st, o)
		how = fmt.Sprintf(" (%d table files, %d+%d runs of due and dead keys, %d+%d spilled)",
			ts.count(), ts.dueRuns, ts.deadRuns, ts.dueSpilled, ts.deadSpilled)
	}
	if err != nil {
		return err
	}
	wrote := time.Since(began)
	if err := atRest(st); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "migrategen: %s: %d rows, %d hooks, %d tenants by %s%s in %v (written in %v)\n",
		o.dir, c.rows, c.hooks, o.tenants, o.method, how, time.Since(began).Round(time.Millisecond), wrote.Round(time.Millisecond))
	return nil
}

// openNew creates the store, as the node's 1.8 to 3.x releases create one (the write rule
// of a new store), with the bulk writers' tuning.
func openNew(o options) (*store.Handle, error) {
	return store.Open(o.dir, store.Options{Options: rocks.Options{Mode: rocks.ReadWrite, Create: true, CreateFormat: format.Format2, Tune: rocks.BulkTuning}})
}

// atRest leaves the store as a node's: its rows in table files, compacted, no WAL for the
// migration to replay first. After the tables' ingest it flushes the format stamp alone and
// finds the ingested files already in their families' last level, which the compaction
// leaves as they are.
func atRest(st *store.Handle) error {
	for _, cf := range st.Families() {
		if err := st.Flush(cf); err != nil {
			return err
		}
		if err := st.CompactRange(cf); err != nil {
			return err
		}
	}
	return nil
}
