package migration

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/pkg/checkpoint"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// testNow is the start time of the test migrations: due rows lie on both sides.
const testNow uint64 = 1_796_032_800_000 // 2026-11-30T10:00:00Z

var testStart = time.UnixMilli(int64(testNow)).UTC()

// backupPolicy is migrate's checkpoint of store at dir, marked as cmd's policy marks it.
func backupPolicy(store, dir string) checkpoint.Policy {
	return checkpoint.Policy{Store: store, Dir: dir, By: checkpoint.ByMigrate}
}

// migrate opens the store read-write, runs the migration and closes it. A test's run
// (not a benchmark's: counting the keys is not the migration's work) is bounded in steps.
func migrate(t testing.TB, ctx context.Context, dir string, opts Options) (Summary, error) {
	t.Helper()
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatalf("open %s: %v", dir, err)
	}
	defer st.Close()
	if opts.Now.IsZero() {
		opts.Now = testStart
	}
	if _, ok := t.(*testing.B); ok {
		return Run(ctx, st, opts)
	}
	bound := stepBound(t, st)
	ctx, overran, cancel := bounded(ctx, &opts, bound)
	defer cancel()
	sum, err := Run(ctx, st, opts)
	if overran() {
		t.Fatalf("the migration ran past %d steps, more than the store has keys: it does not advance (%+v)", bound, sum)
	}
	return sum, err
}

// stepBound is more steps than any run over the store can take (every step but the finish
// commits at least one of the store's rows): a run past it does not advance (a resumed
// cursor's key read again, a phase that never ends), and stopped there it fails in seconds
// instead of at go test's timeout.
func stepBound(t testing.TB, st *rocks.Store) int {
	t.Helper()
	n := 16
	for _, cf := range st.Families() {
		if err := st.Scan(cf, nil, nil, rocks.ReadOpts{}, func(_, _ []byte) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

// bounded makes a run under the returned context stop once it has taken more than bound
// steps (opts.OnStep is wrapped); overran says whether it had to.
func bounded(ctx context.Context, opts *Options, bound int) (_ context.Context, overran func() bool, cancel context.CancelFunc) {
	ctx, cancel = context.WithCancel(ctx)
	var over atomic.Bool
	inner := opts.OnStep
	opts.OnStep = func(s StepInfo) {
		if inner != nil {
			inner(s)
		}
		if s.Num > bound {
			over.Store(true)
			cancel()
		}
	}
	return ctx, over.Load, cancel
}

func mustMigrate(t testing.TB, dir string, opts Options) Summary {
	t.Helper()
	sum, err := migrate(t, context.Background(), dir, opts)
	if err != nil {
		t.Fatalf("migrate: %v", err)
	}
	if !sum.Finished {
		t.Fatalf("migrate: not finished: %+v", sum)
	}
	return sum
}

// stopAfter runs the migration and cancels it as step k commits, as SIGINT
// does: the run must stop right after that step and say so.
func stopAfter(t *testing.T, dir string, k int, opts Options) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts.OnStep = func(s StepInfo) {
		if s.Num == k {
			cancel()
		}
	}
	sum, err := migrate(t, ctx, dir, opts)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("stop after %d steps: err = %v, want context.Canceled", k, err)
	}
	if sum.Steps != k || sum.Finished {
		t.Fatalf("stop after %d steps: %d steps committed, finished %v", k, sum.Steps, sum.Finished)
	}
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if !st.Migrating || st.Format != format.Format2 {
		t.Fatalf("stopped after %d steps: format %d migrating %v", k, st.Format, st.Migrating)
	}
}
