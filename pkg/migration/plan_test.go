package migration

import (
	"context"
	"reflect"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// plan is Plan of the store in dir, opened read-only, and checks that PlanBulk (the bulk
// method's reads) says the same of it: a dry run of either method predicts the same steps.
func plan(t *testing.T, dir string, opts Options) DryRun {
	t.Helper()
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if opts.Now.IsZero() {
		opts.Now = testStart
	}
	dr, err := Plan(context.Background(), st, opts)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	bulk, err := PlanBulk(context.Background(), st, opts)
	if err != nil {
		t.Fatalf("plan by the bulk method's reads: %v", err)
	}
	samePlans(t, st, dr, bulk)
	return dr
}

// samePlans fails t unless a Plan (steps) and a PlanBulk (bulk) of one store agree on all
// but the time each took, what the bulk reads put in $TMPDIR and the space, which is each
// method's own figure (for a store no migration has touched, the bulk method's that its
// run works out: BulkSpace of the steps' count).
func samePlans(t *testing.T, st *rocks.Store, steps, bulk DryRun) {
	t.Helper()
	if !steps.Midway && !steps.NothingToDo {
		want, err := BulkSpace(st, steps.Space)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(want, bulk.Space) {
			t.Errorf("the bulk method's dry run's space %+v, want its run's %+v", bulk.Space, want)
		}
		bulk.Space = steps.Space
	}
	steps.Simulated.Duration, bulk.Simulated.Duration = 0, 0
	bulk.Simulated.StagedJoin = 0
	if bulk.TempShort == nil && !bulk.Midway && !bulk.NothingToDo && !bulk.BulkReads {
		t.Errorf("PlanBulk read as the steps do, with room in $TMPDIR")
	}
	bulk.BulkReads = false
	if !reflect.DeepEqual(steps, bulk) {
		t.Errorf("the bulk method's dry run differs from the steps':\nsteps %+v\nbulk  %+v", steps, bulk)
	}
}

// The dry run changes no byte of the store and predicts exactly what the
// migration then does.
func TestPlanPredictsRunAndChangesNothing(t *testing.T) {
	dir := makeV2(t, genSpec{seed: 21, hooks: 900, tenants: 25, now: testNow, missing: 0.02, undecodable: 0.02, nilTenant: 0.1})
	before := storetest.TreeOf(t, dir)
	dr := plan(t, dir, Options{TenantsMax: 10})
	storetest.SameTree(t, before, storetest.TreeOf(t, dir))
	if dr.NothingToDo || dr.Midway || len(dr.Plan) != 1 || dr.Plan[0].Plan != format.MigrationPlanLine {
		t.Fatalf("plan: %+v", dr)
	}
	sum := mustMigrate(t, dir, Options{TenantsMax: 10})
	sim := dr.Simulated
	if !reflect.DeepEqual(sim.Phases, sum.Phases) || sim.Tenants != sum.Tenants || sim.OverCap != sum.OverCap ||
		!reflect.DeepEqual(sim.Defaults, sum.Defaults) || sim.DeliveryMissing != sum.DeliveryMissing || sim.Steps != sum.Steps {
		t.Errorf("dry run predicted\n%+v\nthe run did\n%+v", sim, sum)
	}
	var left int64
	for _, n := range dr.RowsLeft {
		left += n
	}
	if left != sum.Rows()+sum.Strays() || dr.Estimate <= 0 {
		t.Errorf("rows left %d, estimate %v; the run read %d", left, dr.Estimate, sum.Rows()+sum.Strays())
	}
}

// On a store mid-migration the dry run says where it stopped and what is left.
func TestPlanMidway(t *testing.T) {
	dir := makeV2(t, genSpec{seed: 22, hooks: 600, tenants: 5, now: testNow, weights: [4]int{1, 1, 1, 0}, archive: 0.5})
	ref := storetest.CopyStore(t, dir)
	full := mustMigrate(t, ref, Options{stepRows: 100})
	stopAfter(t, dir, 3, Options{stepRows: 100})

	before := storetest.TreeOf(t, dir)
	dr := plan(t, dir, Options{})
	storetest.SameTree(t, before, storetest.TreeOf(t, dir))
	if !dr.Midway || dr.State.Cursor.Phase != uint8(PhaseDue) || len(dr.State.Cursor.LastKey) != format.KeyLenDueV2 || dr.State.StartedAt != testNow {
		t.Fatalf("midway plan: %+v", dr)
	}
	var left int64
	for _, n := range dr.RowsLeft {
		left += n
	}
	if want := full.Rows() + full.Strays() - 300; left != want {
		t.Errorf("rows left %d, want %d", left, want)
	}

	mustMigrate(t, dir, Options{})
	if dr := plan(t, dir, Options{}); !dr.NothingToDo {
		t.Errorf("plan of a format 3 store: %+v", dr)
	}
}

// Every key the migration could meet is a row, a stray or a sentinel; the
// count of what is left agrees with what the steps read, at every cursor.
func TestCountLeftAtEveryStep(t *testing.T) {
	dir := makeV2(t, genSpec{seed: 23, hooks: 300, tenants: 5, now: testNow})
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	total, err := CountLeft(context.Background(), st, format.MigrationCursor{Phase: format.MigPhaseDue})
	if err != nil {
		t.Fatal(err)
	}
	s := newScanner(st, format.MigrationCursor{Phase: format.MigPhaseDue}, 61, 3)
	var read [numRowPhases]int64
	steps := 0
	err = s.run(func(stp *step) bool {
		steps++
		for _, r := range stp.rows {
			read[r.phase-1]++
		}
		left, err := CountLeft(context.Background(), st, stp.cursor)
		if err != nil {
			t.Fatal(err)
		}
		for i := range left {
			if read[i]+left[i] != total[i] {
				t.Fatalf("after step %d (%v): phase %d read %d + left %d != %d", stp.num, stp.cursor, i+1, read[i], left[i], total[i])
			}
		}
		if stp.num != steps || len(stp.rows) > 61 || (!stp.finish && len(stp.rows) != 61) {
			t.Fatalf("step %d (number %d) has %d rows, finish %v", steps, stp.num, len(stp.rows), stp.finish)
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A bulk dry run whose $TMPDIR has not the room the bulk method's joins spill there (the run
// would refuse) reads as the steps do: the same plan, said to be the steps' reads and why,
// and nothing kept in memory that the joins' files could not take. The rows are a million
// here (the joins spill only past some half a million), on a store of a few hundred.
func TestPlanBulkShortTempReadsAsTheSteps(t *testing.T) {
	dir := makeV2(t, genSpec{seed: 23, hooks: 400, tenants: 12, now: testNow, missing: 0.02, nilTenant: 0.1})
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	opts := Options{Now: testStart}.withDefaults()
	startedAt := uint64(testStart.UnixMilli())
	run := func(sim simulation, tmp string, rows int64) (Summary, DryRun) {
		t.Helper()
		t.Setenv("TMPDIR", tmp)
		sum := newSummary(0)
		dr := DryRun{Space: SpaceEstimate{Rows: rows, RowBytes: 40 * rows}.Bulk()}
		if err := sim(context.Background(), st, opts, startedAt, &sum, &dr); err != nil {
			t.Fatal(err)
		}
		sum.Duration, sum.StagedJoin = 0, 0
		return sum, dr
	}
	want, _ := run(simulateSteps, t.TempDir(), 1_000_000)
	small := storetest.MountTmpfs(t, 1<<20)
	got, dr := run(simulateBulk, small, 1_000_000)
	if dr.BulkReads || dr.TempShort == nil || dr.TempShort.Where != small || dr.TempShort.Needed != (SpaceEstimate{Rows: 1_000_000}).Bulk().JoinTemp {
		t.Errorf("a 1 MiB $TMPDIR: bulk reads %t, short %+v", dr.BulkReads, dr.TempShort)
	}
	if !reflect.DeepEqual(want, got) {
		t.Errorf("the steps' reads for a short $TMPDIR differ from the steps':\n%+v\n%+v", want, got)
	}
	// The same $TMPDIR is room enough for a store whose joins stay in memory.
	got, dr = run(simulateBulk, small, 1000)
	if !dr.BulkReads || dr.TempShort != nil {
		t.Errorf("a store of 1,000 rows: bulk reads %t, short %+v", dr.BulkReads, dr.TempShort)
	}
	if !reflect.DeepEqual(want, got) {
		t.Errorf("the bulk reads differ from the steps':\n%+v\n%+v", want, got)
	}
}
