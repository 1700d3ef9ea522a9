package migration

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// testNow is the start time of the test migrations: due rows lie on both sides.
const testNow uint64 = 1_796_032_800_000 // 2026-11-30T10:00:00Z

var testStart = time.UnixMilli(int64(testNow)).UTC()

// migrate opens the store read-write, runs the migration and closes it.
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
	return Run(ctx, st, opts)
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
