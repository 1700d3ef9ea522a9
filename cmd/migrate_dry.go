package cmd

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/checkpoint"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/migration"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// migrateDryPolicy is the checkpoint policy of the run a dry run stands for, from the same
// flags and resolved for the same state and clock as that run resolves it (runMigrate), so
// that the dry run names the checkpoint it would take (Dir: none on --no-backup or on
// resuming, else the default beside the store) and, with it, the refusal that run would give
// (a default place that exists or cannot be written).
func migrateDryPolicy(opts *migrateOptions, state migration.State, now time.Time) (checkpoint.Policy, error) {
	pol, err := checkpoint.MigrationPolicy(opts.store, opts.backup, opts.noBackup)
	if err != nil {
		return pol, err
	}
	return pol.Resolve(state.Migrating, state.StartTime(), now)
}

// runMigrateDry is --dry-run: the store is opened read-only (an archive works
// too) and nothing is written.
func runMigrateDry(ctx context.Context, env *Env, opts *migrateOptions, now time.Time) error {
	// It reads as the run it stands for would: a bulk run's joins and reads (the method
	// auto picks for a store no migration has touched, and a store mid-way is not read
	// through), or, for --method steps, as the steps read: the hooks into a hook table
	// (its records in the system's temporary directory), the dead rows' delivery rows at
	// random. Either way each step's writes are dropped as they are built.
	steps := opts.method == methodSteps
	ro := rocks.Options{Mode: rocks.ReadOnly}
	if steps {
		ro.LookupFamilies = []string{format.CFDeliveries}
	}
	st, closeStore, err := env.openStore(opts.store, ro)
	if err != nil {
		return err
	}
	defer closeStore()
	what := "migrate --dry-run " + opts.store
	var dr migration.DryRun
	if steps {
		p := env.Progress(what+": running the steps, dropping their writes", "rows", 0)
		defer countLeftAsync(ctx, st, format.MigrationCursor{Phase: uint8(migration.PhaseDue)}, p.SetTotal)() // before closeStore
		dr, err = migration.Plan(ctx, st, migration.Options{Now: now, TenantsMax: opts.tenantsMax, Progress: migrateProgress(p, what)})
		p.Done()
	} else {
		// The stages count their own rows (the join's pass over the index's keys first).
		p := env.Progress(what+": reading as the bulk method does, dropping its writes", "rows", 0)
		dr, err = migration.PlanBulk(ctx, st, migration.Options{Now: now, TenantsMax: opts.tenantsMax, Progress: dryBulkProgress(p, what)})
		p.Done()
		if s := dr.TempShort; s != nil {
			env.note("the dry run read as the steps do: %s has %s free, short of the %s %s spill there (the run would refuse: set TMPDIR to a larger disk)",
				s.Where, words.Bytes(s.Free), words.Bytes(s.Needed), s.What)
		}
	}
	if err != nil {
		return err
	}
	if opts.method == methodBulk && dr.Midway {
		return exitcode.Usagef("--method bulk: %v (--method steps or auto)", migration.ErrBulkMidway)
	}
	res := migrateResult{Store: opts.store, DryRun: true, Format: dr.State.Format, Plan: migrateVerifyPlan(opts, planLines(dr.Plan)), NothingToDo: dr.NothingToDo, TenantsMax: opts.tenantsMax,
		Writes: writeRuleOf(st.Dir)}
	if !dr.NothingToDo {
		res.Method = migrateMethod(opts.method, dr.Midway)
	}
	var rows int64
	for _, n := range dr.RowsLeft {
		rows += n
	}
	estimated, rate := methodDuration(rows, res.Method)
	switch {
	case dr.NothingToDo:
		res.Finished = true
	case dr.Midway:
		var left int64
		res.Phases = nil
		for _, p := range migration.RowPhases {
			res.Phases = append(res.Phases, migratePhase{Phase: p.String(), Rows: dr.RowsLeft[p-1]})
			left += dr.RowsLeft[p-1]
		}
		c := dr.State.Cursor
		lastKey := "none (the phase has not moved a row yet)"
		if len(c.LastKey) > 0 {
			lastKey = format.DecodeKey(format.CFIndex, c.LastKey).String()
		}
		started := dr.State.StartTime()
		res.StartedAt = &started
		res.Midway = &migrateMidway{Phase: migration.Phase(c.Phase).String(), LastKey: lastKey, LastKeyHex: fmt.Sprintf("%x", c.LastKey), StartedAt: started, RowsLeft: left}
		res.Rows = left
		res.Tenants = dr.State.NextOrd - format.FirstOrd
		res.EstimatedDurationMS, res.rate = estimated, rate
	default:
		res = summaryResult(res, dr.Simulated)
		// The simulation wrote nothing and its time says nothing about the run's.
		res.DryRun, res.Finished = true, false
		res.OpsWritten, res.BytesWritten, res.DurationMS, res.RowsPerSec = 0, 0, 0, 0
		res.EstimatedDurationMS, res.rate = estimated, rate
	}
	if !dr.NothingToDo && !isArchive(opts.store) {
		// A refusal is the run's, not the dry run's: said, and the place it names estimated.
		pol, refusal := migrateDryPolicy(opts, dr.State, now)
		if refusal != nil {
			env.warn("a migration now would refuse: %v", refusal)
		}
		// The method's own figure: the bulk method's (PlanBulk, a fresh store) as its run
		// works it out, the steps' from the rows they have left.
		space := dr.Space
		need, err := migration.NeedSpace(space, opts.store, pol.Dir)
		if err != nil {
			return err
		}
		free, err := need.Measure()
		if err != nil {
			return err
		}
		res.Space = &migrateSpaceEstimate{RunSpace: need, FreeBytes: free.Store, TempFreeBytes: free.Temp, Where: opts.store, Enough: free.Short == nil}
		if res.Method == methodBulk {
			res.Space.Staging = filepath.Join(opts.store, migration.StagingPrefix+"*")
		}
		if free.Short != nil {
			res.Space.Short = free.Short.Error()
		}
	}
	return renderMigrate(env, res)
}
