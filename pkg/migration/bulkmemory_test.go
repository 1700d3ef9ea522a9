package migration

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/ankusa/ankusa-store/internal/runs"
	"github.com/ankusa/ankusa-store/internal/slots"
	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
)

// A bulk run keeps the Go collector to bulkGoMemory while it works, and puts back the limit
// it found; a limit set before it (GOMEMLIMIT) is left as it is. Read at every step the run
// makes (OnStep) and after it.
func TestBulkLimitsGoMemory(t *testing.T) {
	src := makeV2(t, genSpec{seed: 61, hooks: 200, tenants: 20, now: testNow})
	for _, c := range []struct {
		name   string
		before int64 // the limit set before the run
		during int64 // the limit every step sees
	}{
		{"none set", math.MaxInt64, bulkGoMemory},
		{"GOMEMLIMIT set", 1 << 30, 1 << 30},
	} {
		t.Run(c.name, func(t *testing.T) {
			old := debug.SetMemoryLimit(c.before)
			defer debug.SetMemoryLimit(old)
			steps := 0
			migrateBulk(t, storetest.CopyStore(t, src), Options{OnStep: func(StepInfo) {
				steps++
				if got := debug.SetMemoryLimit(-1); got != c.during {
					t.Errorf("step %d: the Go memory limit is %d, want %d", steps, got, c.during)
				}
			}})
			if steps == 0 {
				t.Fatal("the run made no step: nothing was read")
			}
			if got := debug.SetMemoryLimit(-1); got != c.before {
				t.Errorf("after the run the Go memory limit is %d, want the %d it found", got, c.before)
			}
		})
	}
}

// The join's runs, their merges' buffers and the names' tables are let go as the read stage ends, before the
// write stage's merge takes its own: what grows with the rows is never held twice.
func TestBulkFreesItsJoinBeforeTheWrite(t *testing.T) {
	src := makeV2(t, genSpec{seed: 61, hooks: 300, tenants: 30, now: testNow, missing: 0.05})
	var before, after, calls int
	opts := Options{joinBatch: 5, joinRuns: runs.Limits{SpillAfter: 64, ReadBuf: 256},
		joinSlots: slots.Limits{BucketBits: 4, BufTotal: 64, BufLeast: 32, BufMost: 32, SpillAfter: 128},
		readEnd:   func(b, a int) { before, after, calls = b, a, calls+1 }}
	migrateBulk(t, storetest.CopyStore(t, src), opts)
	if calls != 1 {
		t.Fatalf("the read stage ended %d times, want once", calls)
	}
	if before == 0 {
		t.Fatalf("the join held nothing before it was let go: the test reads nothing")
	}
	if after != 0 {
		t.Errorf("the join holds %d bytes as the write stage begins (%d before), want 0", after, before)
	}
}
