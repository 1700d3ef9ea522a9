package cmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ankusa/ankusa-store/pkg/health"
	"github.com/ankusa/ankusa-store/pkg/migration"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// migrateVerifyPlanLine is what a dry run's plan says when --verify is given.
const migrateVerifyPlanLine = "then: counters verify on the migrated store (exit 0 only if it is healthy, 1 with findings)"

func migrateVerifyPlan(opts *migrateOptions, plan []string) []string {
	if opts.verify {
		return append(plan, migrateVerifyPlanLine)
	}
	return plan
}

// migrateVerifyAndRender prints a finished migration's result and, with
// --verify, runs counters verify on the migrated store (st, still open for
// writing; nil when the store was at format 3 already and is opened
// read-only here). The exit status is then the verify's.
func migrateVerifyAndRender(ctx context.Context, env *Env, opts *migrateOptions, st *rocks.Store, res migrateResult) error {
	if !opts.verify {
		return renderMigrate(env, res)
	}
	res.Plan = migrateVerifyPlan(opts, res.Plan)
	if st == nil {
		s, closeStore, err := env.openStore(opts.store, rocks.Options{Mode: rocks.ReadOnly})
		if err != nil {
			return err
		}
		defer closeStore()
		st = s
	}
	// The store was opened before the migration changed its format: the
	// verify must see the format it has now, read again from the store.
	state, err := migration.ReadState(st)
	if err != nil {
		return err
	}
	st.Format, st.Migrating = state.Format, state.Migrating
	p := env.Progress("migrate --verify "+opts.store+": verifying the migrated store", "keys", verifyKeyEstimate(st, ""))
	p.Approx()
	start := time.Now()
	rep, verr := health.Verify(ctx, st, health.VerifyOptions{Progress: p.Scoped(nil, false)})
	p.Done()
	if rep == nil {
		if errors.Is(verr, context.Canceled) {
			return interrupted("the store is at format %d, migrated; the verify after it did not finish: run 'counters verify %s'", state.Format, opts.store)
		}
		return verr
	}
	res.Verify = rep
	if err := renderMigrate(env, res); err != nil {
		return err
	}
	if !env.JSON() {
		// The verify's result is a result like the migration's, on stdout: its report after
		// the migration's on a terminal; piped, its rows (counters verify's, with its verdict
		// row) after a blank line, as the third TSV table after the summary and the phases.
		vo := &countersVerifyOptions{store: opts.store}
		if env.verifyReport() {
			fmt.Fprintln(env.IO.Out, "counters verify on the migrated store:")
		} else {
			fmt.Fprintln(env.IO.Out)
		}
		if err := printVerify(env, vo, rep, time.Since(start)); err != nil {
			return err
		}
	}
	return verifyVerdict(rep, verr, env.verifyReport() && !env.JSON())
}
