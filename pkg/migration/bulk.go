package migration

import (
	"context"
	"errors"
	"math"
	"os"
	"strings"
	"time"

	"github.com/ankusa/ankusa-store/internal/reporting"
	"github.com/ankusa/ankusa-store/internal/scratch"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// bulkScanChunk is the steps the bulk method's scanner reads with one iterator: all of a
// phase's. The steps' scanner lets its iterator go every scanChunkSteps because it pins the
// memtables the steps write to; the bulk method writes nothing to the store while it reads,
// and each new iterator seeks again (at 10^7 rows 1,250 of them, 1.2 s of CPU).
const bulkScanChunk = math.MaxInt

// bulkRead is how the bulk method's scans read (the join's, the scanner's): each reads its
// range whole, once, so a table file is read half a MiB at a time (rocks.ReadOpts.Readahead)
// and no block is cached. On a 10^7-row store, readaheads of 256 KiB to 8 MiB each took a
// run's CPU from 48-52 s to 38-46 s; 512 KiB is as quick as any, and the four iterators
// reading at once hold 2 MiB of it (8 MiB held 18 MiB more).
var bulkRead = rocks.ReadOpts{Readahead: 512 << 10}

// ErrBulkMidway is RunBulk's refusal of a store a migration left mid-way: only the steps
// resume one (its rows are partly in the new families already).
var ErrBulkMidway = errors.New("the bulk method migrates only a store no migration has touched; this one is mid-migration: resume it by steps")

// StagingPrefix starts the name of the directory inside the store that holds a bulk run's
// table files until they are ingested (a scratch directory: locked by its run, removed when
// it ends, swept by the next run when it was killed).
const StagingPrefix = "ANKUSA-BULK-"

// RunBulk migrates a format 2 store that no migration has touched (a bulk run killed before
// its commit leaves one) by sorted table files and one atomic ingest, instead of steps
// committed one by one: the store holds exactly what it held until the ingest, and is
// migrated after it. What it writes is what the steps would leave: it runs the steps'
// scanner and builder (the first-sight ordinals, the batches) over the rows, with what the
// steps' fetch looks up by key (the hooks' tenants, the dead rows' delivery sizes) read by
// sorted joins beforehand (rowJoin), keeps their writes in sorted runs instead of
// committing them, resolves each key's writes as RocksDB would (the last put, the counter
// operands merged) and writes one table file per family, the range deletions of the old
// due and inflight families in the index family's. docs/format.md, "The bulk commit", says
// why that is the steps' result.
func RunBulk(ctx context.Context, st *rocks.Store, opts Options) (Summary, error) {
	if opts.chunk == 0 {
		opts.chunk = bulkScanChunk
	}
	opts = opts.withDefaults()
	// The collector kept to bulkGoMemory for the run: its heap is mostly garbage.
	defer limitGoMemory(bulkGoMemory)()
	sum := newSummary(opts.TenantsMax)
	began := time.Now()
	state, done, err := begin(ctx, st, opts, &sum, true)
	if done || err != nil {
		return sum, err
	}
	start, err := startOf(opts)
	if err != nil {
		return sum, err
	}
	startedAt := uint64(start.UnixMilli())
	sum.StartedAt = start

	stage, err := scratch.New(st.Dir, StagingPrefix, "the table files of a bulk migration of this store, before their ingest")
	if err != nil {
		return sum, err
	}
	defer stage.Remove()
	pauseAtCtx(ctx, PauseBulkStaged, st)
	runs := newBulkRuns(st.Dir, opts.runBytes)
	runs.counters.limit = uint32(opts.sumOrds)
	defer runs.free()
	var addErr error
	prepareWrites(startedAt, func(cf string, key, val []byte) {
		if addErr == nil {
			addErr = runs.add(cfNumber(cf), bufPut, key, val)
		}
	})
	if addErr != nil {
		return sum, addErr
	}

	rep := reporting.Or(opts.Progress)
	feed := newRunFeed(runs)
	defer feed.close()
	last, join, err := readBulk(ctx, st, opts, startedAt, &sum, feed.send)
	if join == nil {
		return bulkDone(sum, began), err
	}
	defer join.free()
	if ferr := feed.close(); err == nil {
		err = ferr
	}
	// The join is read: its runs and their buffers go before the write stage's merge takes
	// its own (at 10^8 rows some 380 runs a merge).
	held := join.held()
	join.free()
	if opts.readEnd != nil {
		opts.readEnd(held, join.held())
	}
	if err == nil && !sum.Finished {
		err = errors.New("migration: the bulk method's steps stopped before the finish (a bug)")
	}
	if err == nil {
		err = runs.addCounters()
	}
	if err == nil {
		// The runs handed to the spiller written: what they staged is known, and the last
		// run's sort has the spiller's room.
		err = runs.settle()
	}
	if err != nil {
		return bulkDone(sum, began), err
	}
	// The stages' boundaries, for the progress line: the runs spilled so far were sorted as
	// they spilled; the sort stage is the last run's, in memory (the write stage finds it
	// sorted). Both count the writes' key and value bytes, which the write stage's merge
	// counts (not the spilled runs' bytes: a key there is the rest of the one before's head).
	runBytes := runs.added
	startStage(rep, StageSort, "bytes", runBytes)
	runs.sort()
	rep.Add(runBytes)
	pauseAtCtx(ctx, PauseBulkSorted, st)
	// A signal here stops the run before it creates a family: the store is as it was.
	if err := ctx.Err(); err != nil {
		return bulkDone(sum, began), err
	}
	// The new families are created empty before their files are written (a file is written
	// with its family's options, the write rule's): all a kill before the ingest leaves of
	// this run in the store, and what the steps' preparation creates too.
	for _, cf := range []string{format.CFTenants, format.CFCounters} {
		if !st.HasFamily(cf) {
			if err := st.CreateFamily(cf); err != nil {
				return bulkDone(sum, began), err
			}
		}
	}
	startStage(rep, StageWrite, "bytes", runBytes)
	var wrote int64
	files, err := bulkTables(ctx, st, runs, stage.Path, opts.tableBytes, func(n int64) {
		wrote += n
		rep.Add(n)
	})
	sum.StagedRuns = runs.spilled
	runs.free()
	if err != nil {
		return bulkDone(sum, began), err
	}
	for _, set := range files {
		for _, f := range set {
			if fi, err := os.Stat(f); err == nil {
				sum.StagedTables += fi.Size()
			}
		}
	}
	// The writes after each half's last count.
	rep.Add(max(runBytes-wrote, 0))
	pauseAtCtx(ctx, PauseBulkWritten, st)
	if err := ctx.Err(); err != nil {
		return bulkDone(sum, began), err
	}

	// The commit, with the record of the migration written before it as the steps write
	// theirs before each commit.
	sum = bulkDone(sum, began)
	whole := bulkWhole(sum)
	begun := state
	begun.StartedAt = startedAt
	rec := newRecorder(st.Dir, begun, 1, "", newSummary(opts.TenantsMax), format.MigrationCursor{Phase: uint8(PhaseDue)})
	rec.beforeCommit(whole, last)
	startStage(rep, StageIngest, "bytes", sum.StagedTables)
	if err := flushBeforeCommit(st, files); err != nil {
		return sum, err
	}
	// The index family is replaced whole: its old table files leave the store in the
	// record that brings the new ones in, unread (the new files hold every key the steps
	// leave in it: bulkTables).
	if err := st.IngestFileSetsReplacing(files, []string{format.CFIndex}); err != nil {
		return sum, err
	}
	rep.Add(sum.StagedTables)
	pauseAtCtx(ctx, PauseBulkIngested, st)
	err = flushAtRest(st)
	if err == nil {
		err = settleAtRest(ctx, st, rep)
	}
	sum = bulkDone(sum, began)
	whole = bulkWhole(sum)
	sum.Whole, sum.Runs, sum.RecordErr = &whole, 1, rec.err
	return sum, err
}

// readBulk is the bulk method's join and read stages: the joins (joinRows), then the steps'
// scanner and builder over the rows with the joins' answers for what the steps look up,
// each step's writes and counter deltas handed to sink (nil: dropped as they are built, a
// dry run's) and its counts added to sum. It returns the cursor of the last step and the
// join, nil when the join failed (err says why); the caller frees it.
func readBulk(ctx context.Context, st *rocks.Store, opts Options, startedAt uint64, sum *Summary, sink func(*opBuf, *format.Deltas) error) (last format.MigrationCursor, join *rowJoin, err error) {
	rep := reporting.Or(opts.Progress)
	rep.Phase(StageKeys)
	join, err = joinRows(ctx, st, opts)
	if err != nil {
		return last, nil, err
	}
	sum.StagedJoin = join.temp
	// The reads count every key of the phases, which the join's key pass counted.
	startStage(rep, StageRead, "rows", join.keys)
	// Nothing is committed until the end, so the allocator can never fall back on the store:
	// it keeps every tenant, as a dry run's does.
	ords, err := newOrdinals(st, format.FirstOrd, 0)
	if err != nil {
		return last, join, err
	}
	defer ords.free()
	b := newBuilder(ords, startedAt)
	b.sumsCounters, b.keepStrays = true, true
	b.sink = func(o *opBuf) error {
		if sink == nil {
			return nil
		}
		return sink(o, &b.deltas)
	}
	opts.Progress = readStage{rep}
	p := &pipeline{
		scan: newScanner(st, format.MigrationCursor{Phase: uint8(PhaseDue)}, opts.stepRows, opts.chunk).reading(bulkRead),
		// One worker: the join's answers are read in the rows' order.
		fetch:   join.fetch,
		build:   b,
		workers: 1,
		ahead:   opts.ahead,
	}
	err = p.run(ctx, func(stp *step) error {
		sum.add(&stp.stats)
		sum.Finished = stp.finish
		last = stp.cursor
		opts.stepped(stp)
		return nil
	})
	sum.DefaultHooksApprox = b.approx
	return last, join, err
}

// flushBeforeCommit flushes the families the commit ingests into: with RocksDB's flushes
// paused for the commit (rocks.IngestFileSetsReplacing), an ingest that overlaps a memtable
// fails instead of flushing it (and one that replaces a family, whatever its memtable holds). The memtables hold what the store's WAL held when it was
// opened (a node stopped without a flush); a flush moves it into a table file, the store's
// keys as they were.
func flushBeforeCommit(st *rocks.Store, files map[string][]string) error {
	for _, cf := range st.Families() {
		if _, ok := files[cf]; ok {
			if err := st.Flush(cf); err != nil {
				return err
			}
		}
	}
	return nil
}

func bulkDone(sum Summary, began time.Time) Summary {
	sum.Duration = time.Since(began)
	sum.setOverCap()
	return sum
}

// bulkWhole is the whole migration's summary: a bulk run is the one run.
func bulkWhole(sum Summary) Summary {
	w := newSummary(sum.TenantsMax)
	w.StartedAt = sum.StartedAt
	w.merge(sum)
	return w
}

// cfNumber is the opBuf number of a column family the migration writes.
func cfNumber(cf string) uint8 {
	for i, n := range bufCFs {
		if n == cf {
			return uint8(i)
		}
	}
	panic("migration: no family " + cf)
}

// SweepStaging removes the staging directories that killed bulk runs left in the store.
func SweepStaging(dir string) []string {
	return scratch.Sweep(dir, func(name string) bool { return strings.HasPrefix(name, StagingPrefix) })
}
