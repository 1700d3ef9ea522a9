package migration

import (
	"context"
	"os"
	"time"

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
	// Space is what Run would need on the store's file system.
	Space SpaceEstimate
}

// Plan works out what Run would do, on a store opened read-only; nothing is
// written. For a store that has not started migrating it runs the very steps
// Run would (reads, ordinals, batches) and drops the batches, so its counts
// are exact and any row Run would stop at stops Plan too. For a store
// mid-migration it reports where the migration stopped and what is left.
// opts.Now is the start time to simulate with; Backup is ignored, and OnStep and
// Progress are told of each simulated step, as Run tells them.
func Plan(ctx context.Context, st *rocks.Store, opts Options) (DryRun, error) {
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
	// Nothing is committed, so the simulated allocator can never fall back
	// on the store: it keeps every tenant.
	ords, err := newOrdinals(st, format.FirstOrd, 0)
	if err != nil {
		return dr, err
	}
	defer ords.free()
	if dr.Space, err = EstimateSpace(ctx, st, format.MigrationCursor{Phase: uint8(PhaseDue)}); err != nil {
		return dr, err
	}
	hooks, err := buildHookTable(ctx, st, opts.hookTable, hookTableLimit, os.TempDir())
	if err != nil {
		return dr, err
	}
	// p.run returns once every fetch worker has stopped.
	defer hooks.free()
	p := &pipeline{
		scan:    newScanner(st, format.MigrationCursor{Phase: uint8(PhaseDue)}, opts.stepRows, opts.chunk),
		fetch:   func(stp *step) error { return fetch(st, hooks, stp, opts.Values) },
		build:   newBuilder(ords, uint64(start.UnixMilli())),
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
	sum.Duration = time.Since(began)
	sum.setOverCap()
	dr.Simulated = sum
	for i, ph := range sum.Phases {
		dr.RowsLeft[i] = ph.Rows + ph.Strays
	}
	dr.Estimate = estimate(dr.RowsLeft)
	return dr, err
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
