package inspect

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// The oldest due row is the design record's O(1) read: the first active
// marker, verified against its tenant's due rows in that second, skipping at
// most StatusMaxStale stale markers, after which the next marker's second is
// reported unverified.
func TestStatusOldestDueRule(t *testing.T) {
	base := uint64(storetest.QueueNow.Add(-time.Hour).UnixMilli()) / 1000 * 1000
	tests := []struct {
		name         string
		stale        int // stale markers ahead of the oldest due row
		wantNil      bool
		wantVerified bool
		wantSkipped  int
		wantAt       uint64
	}{
		{"no stale marker", 0, false, true, 0, base + 123},
		{"a few stale markers", 5, false, true, 5, base + 123},
		{"exactly the most it skips", StatusMaxStale, false, true, StatusMaxStale, base + 123},
		// 40 stale: the 33rd marker is itself stale, so its second is reported.
		{"more than it skips", 40, false, false, StatusMaxStale, base - 1000*40 + 1000*StatusMaxStale},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "s")
			s := newBulkStore(t, dir)
			a := s.tenant("acme")
			b := s.tenant("beta")
			s.due(a, base+123, 1, 10, 0)
			s.due(b, base+5000, 2, 10, 1)
			// Stale markers of beta in the seconds before acme's row.
			for i := 0; i < tc.stale; i++ {
				s.B.Put(format.CFIndex, format.ActiveKey{Bucket: base/1000 - uint64(tc.stale-i), Ord: b}.Encode(), nil)
			}
			s.close()
			st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			got, err := StoreStatus(context.Background(), st, StatusOptions{TenantsMax: 10, Now: storetest.QueueNow})
			if err != nil {
				t.Fatal(err)
			}
			od := got.OldestDue
			if od == nil {
				t.Fatal("no oldest due row")
			}
			if od.Verified != tc.wantVerified || od.StaleSkipped != tc.wantSkipped || od.At != viewTime(tc.wantAt) {
				t.Errorf("oldest due %+v, want verified=%v skipped=%d at=%v", od, tc.wantVerified, tc.wantSkipped, viewTime(tc.wantAt))
			}
			if tc.wantVerified && od.Tenant != "acme" {
				t.Errorf("tenant %q, want acme", od.Tenant)
			}
			if got.Tenants.Count != 2 || got.Aggregate.Pending != 1 || got.Aggregate.Scheduled != 1 || got.Aggregate.Bytes != 20 {
				t.Errorf("tenants %+v, aggregate %+v", got.Tenants, got.Aggregate)
			}
		})
	}
}

// Only stale markers: nothing is due, and status says so (nil) rather than
// reporting a marker's second.
func TestStatusOnlyStaleMarkers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	s := newBulkStore(t, dir)
	o := s.tenant("acme")
	for i := 0; i < 3; i++ {
		s.B.Put(format.CFIndex, format.ActiveKey{Bucket: 1_000_000 + uint64(i), Ord: o}.Encode(), nil)
	}
	s.close()
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := StoreStatus(context.Background(), st, StatusOptions{Now: storetest.QueueNow})
	if err != nil {
		t.Fatal(err)
	}
	if got.OldestDue != nil {
		t.Errorf("oldest due %+v, want none", got.OldestDue)
	}
}
