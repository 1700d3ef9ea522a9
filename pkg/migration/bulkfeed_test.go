package migration

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// settledGoroutines waits until the goroutines number at most want again (a goroutine that
// has returned may take a moment to be counted out) and fails the test if they do not.
func settledGoroutines(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > want {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines, want at most %d:\n%s", runtime.NumGoroutine(), want, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The feed takes the steps in the order they were sent, each step's writes and deltas the
// ones sent with it, whatever buffers the builder fills meanwhile: the runs it leaves are
// the ones takeStep leaves called in line.
func TestRunFeedIsTakeStep(t *testing.T) {
	for _, c := range []struct {
		name  string
		limit int
	}{{"one run", 1 << 20}, {"a spill every few steps", 256}, {"a spill every step", 40}} {
		t.Run(c.name, func(t *testing.T) {
			inline, fed := newBulkRuns(t.TempDir(), c.limit), newBulkRuns(t.TempDir(), c.limit)
			defer inline.free()
			defer fed.free()
			feed := newRunFeed(fed)
			var o opBuf
			var d format.Deltas
			for step := range 40 {
				o.reset()
				d.Reset()
				ord := uint32(step%3 + 1)
				d.Add(ord, format.FieldPending, int64(step+1))
				for _, op := range d.Ops() {
					o.merge(cfCounters, op.Key, op.Operand)
				}
				for i := range 5 {
					// The same key in every step: the last put must win, so order matters.
					o.put(cfDefault, []byte{'k', byte(i)}, []byte{byte(step)})
					o.put(cfIndex, format.EncodeU32(uint32(step*5+i)), []byte("v"))
				}
				if err := inline.takeStep(&o, &d); err != nil {
					t.Fatal(err)
				}
				if err := feed.send(&o, &d); err != nil {
					t.Fatal(err)
				}
			}
			if err := feed.close(); err != nil {
				t.Fatal(err)
			}
			want, got := mergedRuns(t, inline), mergedRuns(t, fed)
			if len(got) != len(want) {
				t.Fatalf("fed runs hold %d writes, in line %d", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("write %d: fed %q, in line %q", i, got[i], want[i])
				}
			}
		})
	}
}

// mergedRuns is every write the runs hold, counters included, in the merge's order.
func mergedRuns(t *testing.T, r *bulkRuns) []string {
	t.Helper()
	if err := r.addCounters(); err != nil {
		t.Fatal(err)
	}
	var out []string
	if err := r.merge(func(cf uint8, kind bufKind, key, val []byte) error {
		out = append(out, string([]byte{cf, byte(kind)})+string(key)+"="+string(val))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// A run the feed cannot spill (its directory gone, as a full disk or a removed TMPDIR
// fails it) stops the feed: the next sends return its error rather than wait, close
// returns it, and the feed's goroutine is gone.
func TestRunFeedStopsOnItsError(t *testing.T) {
	before := runtime.NumGoroutine()
	runs := newBulkRuns(filepath.Join(t.TempDir(), "gone"), 64)
	defer runs.free()
	feed := newRunFeed(runs)
	var o opBuf
	var d format.Deltas
	var err error
	for step := 0; step < 100 && err == nil; step++ {
		o.reset()
		o.put(cfIndex, format.EncodeU32(uint32(step)), make([]byte, 100))
		err = feed.send(&o, &d)
	}
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("sends after a spill failed: %v, want its error", err)
	}
	if cerr := feed.close(); cerr != err {
		t.Errorf("close: %v, want %v", cerr, err)
	}
	settledGoroutines(t, before)
}

// A bulk run cancelled while its feed is taking steps, or before it, leaves no goroutine
// behind.
func TestBulkCancelledLeavesNoGoroutine(t *testing.T) {
	src := makeV2(t, genSpec{seed: 58, hooks: 400, tenants: 9, now: testNow})
	for _, at := range []int{1, 5} {
		before := runtime.NumGoroutine()
		st, err := rocks.OpenStore(src, rocks.Options{Mode: rocks.ReadWrite})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		n := 0
		_, err = RunBulk(ctx, st, Options{Now: testStart, stepRows: 7, runBytes: 256, OnStep: func(StepInfo) {
			if n++; n == at {
				cancel()
			}
		}})
		cancel()
		st.Close()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled at step %d: %v, want context.Canceled", at, err)
		}
		settledGoroutines(t, before)
	}
}
