package migration

import (
	"context"
	"os"
	"time"

	"github.com/ankusa/ankusa-store/pkg/diskspace"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// EstimatedRowsPerSec is the rate a dry run's duration estimate assumes: the
// rate bench/migrate_bench.sh holds the migration to on the project's 2-core
// machines (10^6 rows over 10^4 tenants). A node that is stopped has the
// machine to itself; on a machine shared with other work the benchmark has
// measured as little as 30 000 rows/s, and the run's progress line shows the
// real rate.
const EstimatedRowsPerSec = 50_000

// DryRun is what Plan reports: what Run would do to a store, without doing it.
type DryRun struct {
	State State
	// Plan lists the registered migrations that would run, in order.
	Plan []Migration
	// NothingToDo: the store is at format 3 already.
	NothingToDo bool
	// Midway: the store is mid-migration. Run would resume at State.Cursor;
	// RowsLeft counts what it has still to read. No simulation is done.
	Midway bool
	// RowsLeft counts the keys still to read per phase (rows and strays).
	RowsLeft [numRowPhases]int64
	// Simulated is the summary of a simulated run (fresh stores only): rows
	// per phase, strays, tenants, hooks filed under default, dead rows with
	// no usable delivery row. Its Duration is the dry run's own.
	Simulated Summary
	// Estimate is how long Run would take at EstimatedRowsPerSec.
	Estimate time.Duration
	// Space is what the run would need on the store's file system: for PlanBulk of a store
	// no migration has touched, RunBulk's figure (EstimateBulkSpace, as that run works it
	// out), else Run's, from the rows it has left.
	Space SpaceEstimate
	// BulkReads: the simulation read as RunBulk reads (PlanBulk, where $TMPDIR has room for
	// the joins' runs); false where it read as the steps do.
	BulkReads bool
	// TempShort, when PlanBulk read as the steps do, is why: $TMPDIR's free bytes, short of
	// what the bulk method's joins spill there (the run itself would refuse).
	TempShort *diskspace.ShortError
}

// Plan works out what Run would do, on a store opened read-only; nothing is
// written. For a store that has not started migrating it runs the very steps
// Run would (reads, ordinals, batches) and drops the batches, so its counts
// are exact and any row Run would stop at stops Plan too. For a store
// mid-migration it reports where the migration stopped and what is left.
// opts.Now is the start time to simulate with; Backup is ignored, and OnStep and
// Progress are told of each simulated step, as Run tells them.
func Plan(ctx context.Context, st *rocks.Store, opts Options) (DryRun, error) {
	return planBy(ctx, st, opts, stepsSpace, simulateSteps)
}

// PlanBulk is Plan by RunBulk's reads: for a store no migration has touched, the joins and
// the read stage of a bulk run, each step's writes dropped as they are built, where Plan
// reads as the steps do (every hook into a hook table, each dead row's delivery row looked
// up by key). The steps and their counts are the same (the bulk method's writes are the
// steps', and its summary theirs: TestBulkIsTheSteps); the reads are the bulk method's, so
// that a dry run of the run migrate makes by default takes about its reads' time, not the
// steps' (at 10^7 rows the steps' reads took more CPU than the whole bulk run). Its space is
// the bulk method's figure as its run works it out (EstimateBulkSpace: no pass over the
// index's rows where their bound is close). The progress it tells is a bulk run's keys,
// join and read stages. A store mid-migration or migrated is reported as by Plan.
func PlanBulk(ctx context.Context, st *rocks.Store, opts Options) (DryRun, error) {
	if opts.chunk == 0 {
		opts.chunk = bulkScanChunk
	}
	return planBy(ctx, st, opts, EstimateBulkSpace, simulateBulk)
}

// stepsSpace is the steps' estimate of a fresh store's space, from a count of its rows.
func stepsSpace(ctx context.Context, st *rocks.Store) (SpaceEstimate, error) {
	return EstimateSpace(ctx, st, format.MigrationCursor{Phase: uint8(PhaseDue)})
}

// simulation runs a fresh store's steps from the start, dropping their writes, and adds
// their counts to sum; dr is the plan so far (its Space counted), for what the simulation
// says of how it read.
type simulation func(ctx context.Context, st *rocks.Store, opts Options, startedAt uint64, sum *Summary, dr *DryRun) error

// planBy is Plan with the method's estimate of a fresh store's space (the steps' from a count
// of the rows, the bulk method's from a bound where one is close, as its run works it out)
// and its reads.
func planBy(ctx context.Context, st *rocks.Store, opts Options, space func(context.Context, *rocks.Store) (SpaceEstimate, error), simulate simulation) (DryRun, error) {
	opts = opts.withDefaults()
	var dr DryRun
	state, err := ReadState(st)
	if err != nil {
		return dr, err
	}
	dr.State = state
	if state.Done() {
		dr.NothingToDo = true
		return dr, nil
	}
	dr.Plan = Pending(format.Format2)
	if state.Migrating {
		dr.Midway = true
		if dr.Space, err = EstimateSpace(ctx, st, state.Cursor); err != nil {
			return dr, err
		}
		dr.RowsLeft = dr.Space.rowsLeft
		dr.Estimate = estimate(dr.RowsLeft)
		return dr, nil
	}

	start := opts.Now
	if start.IsZero() {
		start = time.Now()
	}
	began := time.Now()
	sum := newSummary(opts.TenantsMax)
	sum.StartedAt = time.UnixMilli(start.UnixMilli()).UTC()
	if dr.Space, err = space(ctx, st); err != nil {
		return dr, err
	}
	err = simulate(ctx, st, opts, uint64(start.UnixMilli()), &sum, &dr)
	sum.Duration = time.Since(began)
	sum.setOverCap()
	dr.Simulated = sum
	for i, ph := range sum.Phases {
		dr.RowsLeft[i] = ph.Rows + ph.Strays
	}
	dr.Estimate = estimate(dr.RowsLeft)
	return dr, err
}

// simulateSteps reads as Run's steps read: every hook into a hook table, the steps' fetch
// workers looking up each step's hooks in it and its dead rows' delivery rows by key.
func simulateSteps(ctx context.Context, st *rocks.Store, opts Options, startedAt uint64, sum *Summary, _ *DryRun) error {
	// Nothing is committed, so the simulated allocator can never fall back
	// on the store: it keeps every tenant.
	ords, err := newOrdinals(st, format.FirstOrd, 0)
	if err != nil {
		return err
	}
	defer ords.free()
	hooks, err := buildHookTable(ctx, st, opts.hookTable, hookTableLimit, os.TempDir())
	if err != nil {
		return err
	}
	// p.run returns once every fetch worker has stopped.
	defer hooks.free()
	p := &pipeline{
		scan:    newScanner(st, format.MigrationCursor{Phase: uint8(PhaseDue)}, opts.stepRows, opts.chunk),
		fetch:   func(stp *step) error { return fetch(st, hooks, stp, opts.Values) },
		build:   newBuilder(ords, startedAt),
		workers: opts.workers,
		ahead:   opts.ahead,
	}
	err = p.run(ctx, func(stp *step) error {
		sum.add(&stp.stats)
		sum.Finished = stp.finish
		opts.stepped(stp)
		return nil
	})
	sum.DefaultHooksApprox = p.build.approx
	return err
}

// simulateBulk reads as RunBulk reads (readBulk), within RunBulk's memory limit. Its joins
// spill to $TMPDIR as the run's do; where it has not the room the run checks for (the run
// would refuse), it reads as the steps do, whose hook table needs a third of it, rather than
// keep in memory what the joins' files could not take.
func simulateBulk(ctx context.Context, st *rocks.Store, opts Options, startedAt uint64, sum *Summary, dr *DryRun) error {
	if need := dr.Space.JoinTemp; need > 0 {
		tmp := os.TempDir()
		free, err := diskspace.Free(tmp)
		if err != nil {
			return err
		}
		if dr.TempShort = diskspace.Judge("the bulk method's joins", tmp, need, free); dr.TempShort != nil {
			return simulateSteps(ctx, st, opts, startedAt, sum, dr)
		}
	}
	dr.BulkReads = true
	defer limitGoMemory(bulkGoMemory)()
	_, join, err := readBulk(ctx, st, opts, startedAt, sum, nil)
	if join != nil {
		join.free()
	}
	return err
}

func estimate(rows [numRowPhases]int64) time.Duration {
	var n int64
	for _, r := range rows {
		n += r
	}
	return time.Duration(float64(n) / EstimatedRowsPerSec * float64(time.Second))
}

// CountLeft counts the keys the migration has still to read from cursor c, per
// phase: every key between a family's sentinels after the cursor's last key,
// rows and strays alike. It is a key scan, cheap next to the migration, and
// what progress reports and ETAs are measured against.
func CountLeft(ctx context.Context, st *rocks.Store, c format.MigrationCursor) ([numRowPhases]int64, error) {
	n, _, err := scanLeft(ctx, st, c)
	return n, err
}
