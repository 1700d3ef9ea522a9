package inspect

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// The oldest due row is the design record's O(1) read: the first active
// marker, verified against its tenant's due rows in that second, skipping at
// most StatusMaxStale stale markers, after which the next marker's second is
// reported unverified.
func TestStatusOldestDueRule(t *testing.T) {
	base := uint64(viewNow.Add(-time.Hour).UnixMilli()) / 1000 * 1000
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
			got, err := StoreStatus(context.Background(), st, StatusOptions{TenantsMax: 10, Now: viewNow})
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
	got, err := StoreStatus(context.Background(), st, StatusOptions{Now: viewNow})
	if err != nil {
		t.Fatal(err)
	}
	if got.OldestDue != nil {
		t.Errorf("oldest due %+v, want none", got.OldestDue)
	}
}

// Checkpoints are found by the name rules, with the time in their name and
// the bytes they share with the store through hard links.
func TestFindCheckpoints(t *testing.T) {
	root := t.TempDir()
	store := filepath.Join(root, "store")
	write := func(p string, n int) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(store, "000010.sst"), 1000)
	backup := filepath.Join(root, "store.backup-20261130T093000.000Z")
	write(filepath.Join(backup, "OPTIONS-1"), 7)
	if err := os.Link(filepath.Join(store, "000010.sst"), filepath.Join(backup, "000010.sst")); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(root, "store.pre-repair-20261130T094500Z", "CURRENT"), 16)
	write(filepath.Join(root, "store.backup-garbage", "CURRENT"), 16)
	write(filepath.Join(root, "other.backup-20261130T093000.000Z", "CURRENT"), 16)
	write(filepath.Join(root, "store.backup-20261130T093000.000Z.txt"), 1) // a file, not a checkpoint
	got := FindCheckpoints(store, nil, viewNow)
	want := []string{"store.backup-garbage", "store.backup-20261130T093000.000Z", "store.pre-repair-20261130T094500Z"}
	if len(got) != len(want) {
		t.Fatalf("found %+v, want %v", got, want)
	}
	byName := map[string]Checkpoint{}
	for _, c := range got {
		byName[filepath.Base(c.Path)] = c
	}
	b := byName["store.backup-20261130T093000.000Z"]
	if b.Kind != "backup" || b.Bytes != 1007 || b.SharedBytes != 1000 || b.Files != 2 ||
		!b.TakenAt.Equal(time.Date(2026, 11, 30, 9, 30, 0, 0, time.UTC)) || b.AgeMS != viewNow.Sub(b.TakenAt).Milliseconds() {
		t.Errorf("backup %+v", b)
	}
	if r := byName["store.pre-repair-20261130T094500Z"]; r.Kind != "pre-repair" || r.SharedBytes != 0 || r.TakenAt.Minute() != 45 {
		t.Errorf("pre-repair %+v", r)
	}
	// A name without a time still counts, dated by its directory.
	if g, ok := byName["store.backup-garbage"]; !ok || g.TakenAt.IsZero() {
		t.Errorf("garbage-named checkpoint %+v", g)
	}
}
