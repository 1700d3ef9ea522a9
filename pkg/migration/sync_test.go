package migration

import (
	"context"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// Every batch a migration commits is synced: its preparation, and each step's rows,
// counters and cursor. A step committed without its sync survives kill -9 (the tests in
// cmd kill the process, not the machine) and is lost by a power cut, with the migration
// record already ahead of it; so the store's writes are watched here, every one.
func TestEveryCommitIsSynced(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"steps of 7 rows", Options{stepRows: 7, workers: 1, ahead: 1, chunk: 1}},
		{"default steps", Options{stepRows: 50}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeV2(t, genSpec{seed: 9, hooks: 300, tenants: 9, now: testNow, missing: 0.02, nilTenant: 0.1})
			st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			var writes, unsynced, steps int
			st.ObserveWrites(func(ops int, sync bool) {
				writes++
				if !sync {
					unsynced++
				}
			})
			opts := tc.opts
			opts.Now = testStart
			opts.OnStep = func(StepInfo) { steps++ }
			ctx, overran, cancel := bounded(context.Background(), &opts, stepBound(t, st))
			defer cancel()
			sum, err := Run(ctx, st, opts)
			if overran() {
				t.Fatal("the migration does not advance")
			}
			if err != nil || !sum.Finished {
				t.Fatalf("migrate: %v, finished %v", err, sum.Finished)
			}
			if steps < 3 {
				t.Fatalf("%d steps: the test means several", steps)
			}
			// The preparation's batch, then one per step.
			if writes != steps+1 || unsynced != 0 {
				t.Fatalf("%d batches committed for the preparation and %d steps, %d of them without sync; want %d, all synced", writes, steps, unsynced, steps+1)
			}
		})
	}
}
