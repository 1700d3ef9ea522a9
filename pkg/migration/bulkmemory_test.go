package migration

import (
	"math"
	"runtime/debug"
	"testing"

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
