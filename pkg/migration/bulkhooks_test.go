package migration

import (
	"bytes"
	"context"
	"errors"
	"math"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// The hooks' parts follow one another with no gap and no overlap, from the first seq's key
// to the key after the last seq's, in at most as many parts as there are seqs.
func TestHookPartsCoverTheRange(t *testing.T) {
	for _, c := range []struct {
		name        string
		first, last uint64
		n, want     int
	}{
		{"one seq, one part", 7, 7, 1, 1},
		{"one seq, more parts asked", 7, 7, 5, 1},
		{"fewer seqs than parts", 5, 7, 10, 3},
		{"a part a seq", 10, 19, 10, 10},
		{"uneven", 10, 20, 3, 3},
		{"every seq", 0, math.MaxUint64, 4, 4},
		{"to the last seq", math.MaxUint64 - 2, math.MaxUint64, 2, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			parts := hookParts(c.first, c.last, c.n)
			if len(parts) != c.want {
				t.Fatalf("%d parts, want %d", len(parts), c.want)
			}
			if !bytes.Equal(parts[0].lo, format.HookKey{Seq: c.first}.Append(nil)) {
				t.Errorf("the first part starts at %x, not at seq %d's key", parts[0].lo, c.first)
			}
			for i := range parts {
				if parts[i].hi != nil && bytes.Compare(parts[i].lo, parts[i].hi) >= 0 {
					t.Errorf("part %d is empty: [%x, %x)", i, parts[i].lo, parts[i].hi)
				}
				if i > 0 && !bytes.Equal(parts[i-1].hi, parts[i].lo) {
					t.Errorf("part %d ends at %x, part %d starts at %x", i-1, parts[i-1].hi, i, parts[i].lo)
				}
			}
			end := parts[len(parts)-1].hi
			if c.last == math.MaxUint64 {
				if end != nil {
					t.Errorf("the last part ends at %x, want the family's end", end)
				}
			} else if !bytes.Equal(end, format.HookKey{Seq: c.last + 1}.Append(nil)) {
				t.Errorf("the last part ends at %x, not after seq %d's key", end, c.last)
			}
		})
	}
}

// However the hooks' range is cut and however many workers read it, the joins answer as the
// steps' lookups: one part, two, seven, and a part for every seq (each boundary a hook whose
// rows are joined beside the end of one part and the start of the next), on a store with
// hooks missing, undecodable and of nil tenants and dead rows of every kind; the rows' runs
// small, so that a seq's rows also come from several runs.
func TestBulkHookPartsAreOneScan(t *testing.T) {
	src := makeV2(t, genSpec{seed: 61, hooks: 400, tenants: 25, now: testNow, missing: 0.05, undecodable: 0.05, nilTenant: 0.1})
	undecodableDeliveries(t, src)
	stepsDir := storetest.CopyStore(t, src)
	steps := mustMigrate(t, stepsDir, Options{hookTable: -1})
	want := storetest.Dump(t, stepsDir)
	for _, c := range []struct {
		name           string
		parts, workers int
	}{
		{"one part", 1, 1},
		{"two parts, two workers", 2, 2},
		{"seven parts, three workers", 7, 3},
		{"a part a seq, one worker", 1 << 20, 1},
		{"a part a seq, two workers", 1 << 20, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := storetest.CopyStore(t, src)
			bulk := migrateBulk(t, dir, Options{hookParts: c.parts, hookWorkers: c.workers, joinBatch: 7})
			storetest.AssertSame(t, want, storetest.Dump(t, dir))
			sameSummary(t, steps, bulk)
		})
	}
}

var errPlanted = errors.New("a read planted to fail")

// A join's scan that fails stops the run with its error, whichever scan it is and whatever
// the others are doing: the other join and the hooks' other workers stop, no goroutine is
// left, and the store is as it was. So is a run cancelled in the middle of the hooks' scan.
func TestBulkJoinScanErrorStopsTheOthers(t *testing.T) {
	src := makeV2(t, genSpec{seed: 62, hooks: 600, tenants: 20, now: testNow, missing: 0.02})
	before := storetest.Dump(t, src)
	for _, c := range []struct {
		name string
		cf   string // the family whose scan fails at its nth key
		nth  int64
		stop bool // cancel the run there instead
	}{
		{"a hooks part fails", format.CFHooks, 300, false},
		{"the first hooks part fails at once", format.CFHooks, 1, false},
		{"the deliveries fail", format.CFDeliveries, 5, false},
		{"cancelled in the hooks", format.CFHooks, 200, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := storetest.CopyStore(t, src)
			st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var seen atomic.Int64
			scan := func(cf string, lo, hi []byte, fn func(k, v []byte) error) error {
				return st.Scan(cf, lo, hi, noCache, func(k, v []byte) error {
					if cf == c.cf && seen.Add(1) == c.nth {
						if !c.stop {
							return errPlanted
						}
						cancel()
					}
					return fn(k, v)
				})
			}
			goroutines := runtime.NumGoroutine()
			_, err = RunBulk(ctx, st, Options{Now: testStart, hookParts: 9, hookWorkers: 3, joinBatch: 16, joinScan: scan})
			wantErr := errPlanted
			if c.stop {
				wantErr = context.Canceled
			}
			if !errors.Is(err, wantErr) {
				t.Errorf("the run's error: %v, want %v", err, wantErr)
			}
			if seen.Load() < c.nth {
				t.Fatalf("the scan read %d keys of %s, never its %dth: the test plants nothing", seen.Load(), c.cf, c.nth)
			}
			for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > goroutines && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
			}
			if n := runtime.NumGoroutine(); n > goroutines {
				buf := make([]byte, 1<<16)
				t.Errorf("%d goroutines left after the run, %d before:\n%s", n, goroutines, buf[:runtime.Stack(buf, true)])
			}
			if st.HasFamily(format.CFTenants) || st.HasFamily(format.CFCounters) {
				t.Errorf("a failed bulk run created the new families")
			}
			st.Close()
			storetest.AssertSame(t, before, storetest.Dump(t, dir))
		})
	}
}

// Each hook worker reads its parts on one iterator (rocks.Ranges): a run of fifty parts on
// two workers opens one iterator more than a run of one part on one, not fifty. Counted by
// the store's own count of the iterators it opened.
func TestHookWorkersOneIteratorEach(t *testing.T) {
	src := makeV2(t, genSpec{seed: 73, hooks: 400, tenants: 20, now: testNow})
	made := func(parts, workers int) int64 {
		st, err := rocks.OpenStore(storetest.CopyStore(t, src), rocks.Options{Mode: rocks.ReadWrite})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		before := st.Iterators()
		if _, err := RunBulk(context.Background(), st, Options{Now: testStart, hookParts: parts, hookWorkers: workers}); err != nil {
			t.Fatal(err)
		}
		return st.Iterators() - before
	}
	one, fifty := made(1, 1), made(50, 2)
	if fifty != one+1 {
		t.Errorf("a run opened %d iterators with fifty parts on two workers, %d with one part on one: want one more, a worker's", fifty, one)
	}
}
