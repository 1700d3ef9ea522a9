package migration

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/ankusa/ankusa-store/internal/runs"
	"github.com/ankusa/ankusa-store/internal/slots"
	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// undecodableDeliveries replaces every third delivery row's value with bytes no decoder
// reads, so that dead rows of all three kinds (sized, undecodable, missing) are joined.
func undecodableDeliveries(t *testing.T, dir string) {
	t.Helper()
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b := rocks.NewBatch()
	n := 0
	err = st.Scan(format.CFDeliveries, nil, nil, rocks.ReadOpts{}, func(k, _ []byte) error {
		if n++; n%3 == 0 {
			b.Put(format.CFDeliveries, k, []byte("junk"))
		}
		return nil
	})
	if err == nil {
		err = st.Write(b, true)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// The bulk method's sorted joins answer each row as the steps' lookups by key do, however
// they are cut into runs: batches of a few elements (hundreds of runs, a seq's rows across
// runs), spilled to a file after a few bytes, and whole; their answers in buckets of a few
// rows, spilled too, or in memory. Hooks
// missing, undecodable and of nil tenants, dead rows whose delivery row is missing or
// undecodable; the store and the summary are the steps'.
func TestBulkJoinsAreTheLookups(t *testing.T) {
	g := genSpec{seed: 58, hooks: 500, tenants: 30, now: testNow, missing: 0.05, undecodable: 0.05, nilTenant: 0.1}
	src := makeV2(t, g)
	undecodableDeliveries(t, src)
	stepsDir := storetest.CopyStore(t, src)
	steps := mustMigrate(t, stepsDir, Options{hookTable: -1})
	if steps.DeliveryMissing == 0 || steps.DeliveryUndecodable == 0 {
		t.Fatalf("the store has no dead rows of each kind: missing %d, undecodable %d", steps.DeliveryMissing, steps.DeliveryUndecodable)
	}
	want := storetest.Dump(t, stepsDir)
	for _, c := range []struct {
		name       string
		batch      int
		spillAfter int
		answers    slots.Limits
		spills     bool
	}{
		{"batches of 5, spilled", 5, 64, slots.Limits{}, true},
		// Buckets of 16 rows, their answers spilled after a few: the slots of each phase's
		// rows across buckets, and a bucket holding the end of one phase and the start of
		// the next.
		{"batches of 5, answers in small buckets, spilled", 5, 64, slots.Limits{BucketBits: 4, BufTotal: 64, BufLeast: 32, BufMost: 32, SpillAfter: 128}, true},
		{"answers alone spilled", 0, runs.DefaultLimits().SpillAfter, slots.Limits{BucketBits: 5, BufTotal: 64, BufLeast: 32, BufMost: 32, SpillAfter: 128}, true},
		{"batches of 64, in memory", 64, runs.DefaultLimits().SpillAfter, slots.Limits{}, false},
		{"one batch", 0, runs.DefaultLimits().SpillAfter, slots.Limits{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := Options{joinBatch: c.batch, joinRuns: runs.Limits{SpillAfter: c.spillAfter, ReadBuf: runs.DefaultLimits().ReadBuf}, joinSlots: c.answers}
			dir := storetest.CopyStore(t, src)
			bulk := migrateBulk(t, dir, opts)
			storetest.AssertSame(t, want, storetest.Dump(t, dir))
			sameSummary(t, steps, bulk)
			// What the joins put in $TMPDIR is said: their runs' bytes when they spilled.
			if (bulk.StagedJoin > 0) != c.spills {
				t.Errorf("the joins' runs spilled: %v; the summary says %d bytes in the temporary directory", c.spills, bulk.StagedJoin)
			}
			// The runs went where the case says, or a spill bound ignored would
			// compare the join in memory with the lookups three times: with
			// $TMPDIR gone, a join that spills fails for want of its file, and
			// one in memory never asks for it.
			t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "gone"))
			err := runBulk(t, storetest.CopyStore(t, src), opts)
			if missing := errors.Is(err, fs.ErrNotExist); missing != c.spills || (err != nil && !missing) {
				t.Errorf("with $TMPDIR gone: %v; want the join's file missing: %v", err, c.spills)
			}
		})
	}
}

// runBulk is RunBulk of dir with opts, its error.
func runBulk(t *testing.T, dir string, opts Options) error {
	t.Helper()
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatalf("open %s: %v", dir, err)
	}
	defer st.Close()
	opts.Now = testStart
	_, err = RunBulk(context.Background(), st, opts)
	return err
}

// The counters of the tenants past the bulk method's table of sums keep their operands in
// the runs, merged when the tables are written: the same store and summary either way.
func TestBulkCountersPastTheSums(t *testing.T) {
	src := makeV2(t, genSpec{seed: 59, hooks: 400, tenants: 40, now: testNow, missing: 0.05, nilTenant: 0.1})
	stepsDir := storetest.CopyStore(t, src)
	steps := mustMigrate(t, stepsDir, Options{})
	want := storetest.Dump(t, stepsDir)
	for _, c := range []struct {
		name    string
		sumOrds int
		runs    int
	}{
		{"none summed", 1, 0},
		{"ten summed, small runs", 10, 700},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := storetest.CopyStore(t, src)
			bulk := migrateBulk(t, dir, Options{sumOrds: c.sumOrds, runBytes: c.runs})
			storetest.AssertSame(t, want, storetest.Dump(t, dir))
			sameSummary(t, steps, bulk)
		})
	}
}

// The joins' row numbers sort as the scanner reads the rows: phase by phase, each phase's
// rows in scan order, whatever the phases before it hold.
func TestRowIDsInScanOrder(t *testing.T) {
	const most = 1<<rowIDShift - 1
	var prev uint64
	for i, p := range RowPhases {
		for _, n := range []uint64{0, 1, 1 << 32, most} {
			id := rowID(p, n)
			if (i > 0 || n > 0) && id <= prev {
				t.Errorf("row %d of %v numbered %#x, not after the row before's %#x", n, p, id, prev)
			}
			prev = id
		}
	}
}
