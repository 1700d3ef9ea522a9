package migration

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
)

// assertWhole checks that a resumed run's Whole is the summary of the uninterrupted run
// full: every row, stray and finding of the migration, not only the resumed run's.
func assertWhole(t *testing.T, full, resumed Summary, k int) {
	t.Helper()
	w := resumed.Whole
	if w == nil {
		t.Fatalf("resumed after %d steps: no whole-migration summary", k)
	}
	if resumed.EarlierUnknown != "" || resumed.RecordErr != nil || resumed.Runs != 2 {
		t.Fatalf("resumed after %d steps: runs %d, earlier unknown %q, record error %v", k, resumed.Runs, resumed.EarlierUnknown, resumed.RecordErr)
	}
	for i := range full.Phases {
		f, g := full.Phases[i], w.Phases[i]
		if f.Rows != g.Rows || f.Strays != g.Strays || !reflect.DeepEqual(f.StrayExample, g.StrayExample) {
			t.Errorf("resumed after %d steps: phase %v: whole %d rows %d strays, uninterrupted %d and %d", k, f.Phase, g.Rows, g.Strays, f.Rows, f.Strays)
		}
	}
	for r := range full.Defaults {
		f, g := full.Defaults[r], w.Defaults[r]
		// Hooks may count a hook in each run that met it (approximate, and said so).
		if f.Rows != g.Rows || !reflect.DeepEqual(f.Examples, g.Examples) || g.Hooks < f.Hooks {
			t.Errorf("resumed after %d steps: default %v: whole %d rows %d hooks %v, uninterrupted %d rows %d hooks %v",
				k, format.DefaultReason(r), g.Rows, g.Hooks, g.Examples, f.Rows, f.Hooks, f.Examples)
		}
		if g.Hooks != f.Hooks && !w.DefaultHooksApprox {
			t.Errorf("resumed after %d steps: default %v: %d hooks, not %d, and not said to be approximate", k, format.DefaultReason(r), g.Hooks, f.Hooks)
		}
	}
	if w.DeliveryMissing != full.DeliveryMissing || w.DeliveryUndecodable != full.DeliveryUndecodable ||
		w.TenantsAllocated != full.TenantsAllocated || w.Tenants != full.Tenants || w.Steps != full.Steps || !w.Finished {
		t.Errorf("resumed after %d steps: whole %+v\nuninterrupted %+v", k, *w, full)
	}
}

// A migration's record names its start: a resumed run whose store holds no record (a
// tool that kept none), or one that lags the cursor (a power cut after an unsynced
// write), says that the earlier runs' findings are unknown instead of passing its own off
// as the whole migration's.
func TestResumeWithoutARecord(t *testing.T) {
	src := makeV2(t, genSpec{seed: 3, hooks: 400, tenants: 10, now: testNow, missing: 0.02, nilTenant: 0.1, weights: [4]int{1, 1, 1, 0}, archive: 0.5})
	opts := Options{stepRows: 97}
	for _, tc := range []struct {
		name  string
		spoil func(t *testing.T, dir string)
		why   string
	}{
		{"no record", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, RecordFile)); err != nil {
				t.Fatal(err)
			}
		}, "no " + RecordFile},
		{"a record behind the cursor", func(t *testing.T, dir string) {
			// The record as the first step left it, the store two steps on.
			b, err := os.ReadFile(filepath.Join(dir, RecordFile+".step1"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, RecordFile), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "lags the store's cursor"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := storetest.CopyStore(t, src)
			o := opts
			ctx, cancel := context.WithCancel(context.Background())
			o.OnStep = func(s StepInfo) {
				if s.Num == 1 {
					b, _ := os.ReadFile(filepath.Join(dir, RecordFile))
					_ = os.WriteFile(filepath.Join(dir, RecordFile+".step1"), b, 0o644)
				}
				if s.Num == 3 {
					cancel()
				}
			}
			if _, err := migrate(t, ctx, dir, o); err == nil {
				t.Fatal("the first run was not stopped")
			}
			tc.spoil(t, dir)
			sum := mustMigrate(t, dir, opts)
			if !strings.Contains(sum.EarlierUnknown, tc.why) {
				t.Fatalf("earlier unknown %q, want it to say %q", sum.EarlierUnknown, tc.why)
			}
			if sum.Whole == nil || sum.Whole.Rows() != sum.Rows() {
				t.Fatalf("whole %+v: want only this run's %d rows", sum.Whole, sum.Rows())
			}
		})
	}
}
