package migration

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/archive"
	"github.com/ankusa/ankusa-store/pkg/fixture"
	"github.com/ankusa/ankusa-store/pkg/format"
)

var update = flag.Bool("update", false, "rewrite the golden files and the mid-migration archive under testdata/migration")

const goldenDir = "../../testdata/migration"

// describe renders what a summary says about the store, without timings, for
// golden files.
func describe(s *Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "started_at %s\n", s.StartedAt.Format("2006-01-02T15:04:05.000Z07:00"))
	fmt.Fprintf(&b, "steps %d finished %v\n", s.Steps, s.Finished)
	for _, p := range s.Phases {
		fmt.Fprintf(&b, "phase %-8s rows %6d strays %d", p.Phase, p.Rows, p.Strays)
		for _, k := range p.StrayExample {
			fmt.Fprintf(&b, " %x", k)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "tenants %d allocated %d max %d over_cap %d\n", s.Tenants, s.TenantsAllocated, s.TenantsMax, s.OverCap)
	for _, d := range s.Defaults {
		if d.Reason == format.ReasonNone || d.Hooks+d.Rows == 0 {
			continue
		}
		fmt.Fprintf(&b, "default %-13s hooks %4d rows %4d examples %v\n", d.Reason, d.Hooks, d.Rows, d.Examples)
	}
	fmt.Fprintf(&b, "dead size unknown: missing %d undecodable %d examples %x\n", s.DeliveryMissing, s.DeliveryUndecodable, s.DeliveryExamples)
	return b.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(goldenDir, name)
	if *update {
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (run with -update if the change is right):\n--- want\n%s--- got\n%s", path, want, got)
	}
}

// The committed format 2 fixture: what the migration does to it is pinned in
// a golden file, and the dry run predicts exactly that.
func TestCommittedFixtureGolden(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	if err := archive.ExtractArchive("../../testdata/store-v2.tar.zst", dir); err != nil {
		t.Fatalf("extract the committed v2 fixture: %v", err)
	}
	start := fixture.DefaultNow
	dr := plan(t, dir, Options{Now: start})
	want := expectV3(t, dir, uint64(start.UnixMilli()))
	sum := mustMigrate(t, dir, Options{Now: start})
	storetest.AssertSame(t, want, storetest.Dump(t, dir))
	foldCounters(t, dir)
	verifyHealthy(t, dir)
	golden(t, "store-v2.summary.golden", describe(&sum))
	if d, s := describe(&dr.Simulated), describe(&sum); d != s {
		t.Errorf("the dry run predicted\n%s\nthe run did\n%s", d, s)
	}
}

// midwaySpec is the store testdata/migration/midway.tar.zst was made from,
// stopped after its first step; the archive is what the CLI's mid-migration
// dry run is shown on.
var midwaySpec = genSpec{seed: 31, hooks: 400, tenants: 6, now: testNow, nilTenant: 0.1, weights: [4]int{6, 1, 1, 0}, archive: 0.2}

func TestMidwayArchive(t *testing.T) {
	path := filepath.Join(goldenDir, "midway.tar.zst")
	if *update {
		dir := makeV2(t, midwaySpec)
		stopAfter(t, dir, 1, Options{})
		if err := archive.PackArchive(dir, path); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(t.TempDir(), "store")
	if err := archive.ExtractArchive(path, dir); err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	dr := plan(t, dir, Options{})
	if !dr.Midway || dr.State.Cursor.Phase != uint8(PhaseDue) || dr.RowsLeft[0] == 0 {
		t.Fatalf("the archive is not a store stopped in phase 1: %+v", dr)
	}
	sum := mustMigrate(t, dir, Options{})
	if !sum.Resumed {
		t.Error("not resumed")
	}
	storetest.AssertSame(t, expectV3(t, makeV2(t, midwaySpec), testNow), storetest.Dump(t, dir))

}
