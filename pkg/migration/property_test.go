package migration

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// Property: however the migration is cut into steps, pipelined, cached and
// interrupted, and however many times, the store it ends with is the one the
// contract describes (the independent model of expectV3). rapid draws the
// store, the step size, the pipeline's shape, the ordinal cache's size and
// the steps after which each run is stopped.
func TestInterruptedAnywhereMatchesContract(t *testing.T) {
	// Each drawn store is one store open for the whole test, put back to its
	// format 2 content before every check: a check then costs a batch, not
	// an open and a close, and a hundred of them stay quick. (Its new column
	// families stay, empty: the preparation skips creating them, as after a
	// run killed right after creating them. Reopening a store mid-migration is
	// what TestResumeBetweenEveryPairOfSteps and the kill -9 test cover.)
	type source struct {
		st         *rocks.Store
		orig, want storetest.Contents
		bound      int // steps no run over it can take (stepBound)
	}
	var sources []source
	for _, g := range []genSpec{
		{seed: 41, hooks: 12, tenants: 3, now: testNow, missing: 0.1, undecodable: 0.1, nilTenant: 0.2},
		{seed: 42, hooks: 25, tenants: 8, now: testNow, nilTenant: 0.1, weights: [4]int{1, 1, 1, 0}, archive: 0.5},
		{seed: 43, hooks: 4, tenants: 1, now: testNow},
	} {
		dir := makeV2(t, g)
		src := source{orig: storetest.Dump(t, dir), want: expectV3(t, dir, testNow)}
		st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		src.st = st
		src.bound = stepBound(t, st)
		sources = append(sources, src)
	}
	rapid.Check(t, func(rt *rapid.T) {
		src := sources[rapid.IntRange(0, len(sources)-1).Draw(rt, "store")]
		st := src.st
		restore(t, st, src.orig)
		knobs := func(label string) Options {
			return Options{
				stepRows:   rapid.IntRange(1, 40).Draw(rt, label+" step rows"),
				cacheLimit: rapid.IntRange(1, 10).Draw(rt, label+" cache"),
				workers:    rapid.IntRange(1, 3).Draw(rt, label+" workers"),
				ahead:      rapid.IntRange(1, 6).Draw(rt, label+" ahead"),
				chunk:      rapid.IntRange(1, 4).Draw(rt, label+" chunk"),
				hookTable:  rapid.IntRange(-1, 1).Draw(rt, label+" hook table"),
			}
		}
		stops := rapid.SliceOfN(rapid.IntRange(1, 6), 0, 3).Draw(rt, "stops")
		// Every run is bounded in steps: one that does not advance fails here, at once.
		run := func(what string, ctx context.Context, opts Options) (Summary, error) {
			ctx, overran, cancel := bounded(ctx, &opts, src.bound)
			defer cancel()
			sum, err := Run(ctx, st, opts)
			if overran() {
				rt.Fatalf("%s: the migration ran past %d steps, more than the store has keys: it does not advance", what, src.bound)
			}
			return sum, err
		}
		for _, k := range stops {
			ctx, cancel := context.WithCancel(context.Background())
			opts := knobs("interrupted")
			opts.OnStep = func(s StepInfo) {
				if s.Num == k {
					cancel()
				}
			}
			opts.Now = testStart
			sum, err := run("an interrupted run", ctx, opts)
			cancel()
			switch {
			case err == nil && sum.Finished:
				// It finished within k steps; later runs have nothing to do.
			case errors.Is(err, context.Canceled) && sum.Steps == k:
			default:
				rt.Fatalf("stopping after %d steps: %d steps, err %v", k, sum.Steps, err)
			}
		}
		final := knobs("final")
		final.Now = testStart.Add(-time.Hour) // ignored unless nothing was committed yet
		if len(stops) == 0 {
			final.Now = testStart
		}
		if _, err := run("the final run", context.Background(), final); err != nil {
			rt.Fatalf("final run: %v", err)
		}
		if d := storetest.Diff(src.want, storetest.DumpOpen(t, st)); d != "" {
			rt.Fatalf("the store differs from the contract's:\n%s", d)
		}
	})
}

// restore puts an open store back to the given content: every key of every
// column family deleted, then the content put.
func restore(t testing.TB, st *rocks.Store, c storetest.Contents) {
	t.Helper()
	b := rocks.NewBatch()
	end := bytes.Repeat([]byte{0xFF}, 64)
	for _, cf := range st.Families() {
		b.DeleteRange(cf, nil, end)
		for k, v := range c[cf] {
			if len(k) >= len(end) && k[0] == 0xFF {
				t.Fatalf("key %x sorts past the range restore deletes", k)
			}
			b.Put(cf, []byte(k), []byte(v))
		}
	}
	if err := st.Write(b, false); err != nil {
		t.Fatal(err)
	}
}
