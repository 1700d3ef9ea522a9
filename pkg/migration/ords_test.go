package migration

import (
	"context"
	"fmt"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// The tenant called "default" is one tenant, with one ordinal, whether a hook
// names it or is filed under it (no tenant id, a missing or undecodable hook):
// the allocator caches the hook table's tenants by their name number and the
// others by their string, and "default" must land in one place whatever the
// order the two kinds come in. With the table and without, a cache that is
// cleared at every step and one that never is, and a dry run, all agree with
// the contract's model.
func TestDefaultIsOneTenant(t *testing.T) {
	for _, namedFirst := range []bool{true, false} {
		t.Run(fmt.Sprintf("named first %v", namedFirst), func(t *testing.T) {
			dir := t.TempDir() + "/store"
			s := newV2Store(t, dir)
			for i := range 60 {
				seq := uint64(1000 + i)
				switch {
				case i%3 == 0 == namedFirst:
					s.hook(seq, "default")
				case i%3 == 1:
					s.hook(seq, "") // filed under default: no tenant id
				case i%5 == 0:
					// a missing hook: filed under default
				default:
					s.hook(seq, fmt.Sprintf("tenant-%d", i%4))
				}
				s.due(testNow-1000+uint64(i), seq, 0, uint32(100+i))
				if i%2 == 0 {
					s.dead(testNow-5000, seq, 1, int64(300+i))
				}
			}
			s.close()
			want := expectV3(t, dir, testNow)

			st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
			if err != nil {
				t.Fatal(err)
			}
			dry, err := Plan(context.Background(), st, Options{Now: testStart, hookTable: 1})
			st.Close()
			if err != nil {
				t.Fatal(err)
			}
			for _, opts := range []Options{{hookTable: 1}, {hookTable: 1, stepRows: 3, cacheLimit: 1}, {hookTable: -1}} {
				copied := storetest.CopyStore(t, dir)
				sum := mustMigrate(t, copied, opts)
				storetest.AssertSame(t, want, storetest.Dump(t, copied))
				if sum.Tenants != dry.Simulated.Tenants || sum.Tenants != 5 {
					t.Errorf("%+v: %d tenants, the dry run %d; want 5 (default and tenant-0..3)", opts, sum.Tenants, dry.Simulated.Tenants)
				}
			}
			if got := len(want[format.CFTenants]); got != 4+2*5 {
				t.Errorf("the model has %d tenants rows, want %d", got, 4+2*5)
			}
		})
	}
}
