package migration

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// A migrated store is at rest: every family flushed, so its WAL is empty and the next
// read-only open (every on-call view, the node's boot) replays nothing into memory.
func TestMigratedStoreIsAtRest(t *testing.T) {
	dir := makeV2(t, genSpec{seed: 7, hooks: 3000, tenants: 40, now: testNow, nilTenant: 0.1})
	mustMigrate(t, dir, Options{})

	if n := walBytes(t, dir); n != 0 {
		t.Errorf("migrated store holds %d bytes of WAL, want 0", n)
	}
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, cf := range st.Families() {
		for _, prop := range []string{"rocksdb.num-entries-active-mem-table", "rocksdb.num-entries-imm-mem-tables"} {
			v, err := st.Property(cf, prop)
			if err != nil {
				t.Fatal(err)
			}
			if v != "0" {
				t.Errorf("the read-only open after migrating replayed the WAL: %s %s = %s, want 0", cf, prop, v)
			}
		}
	}
}

// walBytes is the size of the store's WAL files.
func walBytes(t *testing.T, dir string) int64 {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".log") {
			info, err := e.Info()
			if err != nil {
				t.Fatal(err)
			}
			n += info.Size()
		}
	}
	return n
}

// The migration runs with a trigger of a dozen L0 files, and leaves the store at the node's:
// every family under rocks.NodeL0CompactionTrigger L0 tables once it has finished. Each step
// here is flushed on its own (OnStep), so that the steps leave an L0 table each.
func TestMigrationLeavesL0AtTheNodesTrigger(t *testing.T) {
	dir := makeV2(t, genSpec{seed: 4, hooks: 400, tenants: 9, now: testNow})
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite,
		Tune: rocks.Tuning{L0SlowdownTrigger: 128, L0StopTrigger: 256, L0CompactionTrigger: 12}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l0 := func(cf string) int {
		v, err := st.Property(cf, "rocksdb.num-files-at-level0")
		if err != nil {
			t.Fatal(err)
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("num-files-at-level0 of %s: %q", cf, v)
		}
		return n
	}
	flushed, most := 0, 0
	opts := Options{Now: testStart, stepRows: 40, workers: 1, ahead: 1}
	opts.OnStep = func(StepInfo) {
		for _, cf := range []string{format.CFIndex, format.CFCounters} {
			if err := st.Flush(cf); err != nil {
				t.Error(err)
			}
			most = max(most, l0(cf))
		}
		flushed++
	}
	ctx, overran, cancel := bounded(context.Background(), &opts, stepBound(t, st))
	defer cancel()
	sum, err := Run(ctx, st, opts)
	if overran() || err != nil || !sum.Finished {
		t.Fatalf("migrate: %v, finished %v", err, sum.Finished)
	}
	if most < rocks.NodeL0CompactionTrigger+2 {
		t.Fatalf("at most %d L0 files during %d flushed steps: the test means more than the node's trigger", most, flushed)
	}
	for _, cf := range st.Families() {
		if n := l0(cf); n >= rocks.NodeL0CompactionTrigger {
			t.Errorf("%s: %d L0 files after the migration (%d at most during it), want fewer than the node's trigger %d", cf, n, most, rocks.NodeL0CompactionTrigger)
		}
	}
}
