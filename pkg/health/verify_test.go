package health

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/reporting"
	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/fixture"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/migration"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

func TestVerifyHealthyFixtures(t *testing.T) {
	t.Run("v3", func(t *testing.T) {
		rep := vtHealthy(t, vtFixture(t, format.Format3))
		c := rep.Counts
		for name, p := range map[string]*int64{
			"stale": c.StaleActiveMarkers, "leaked": c.LeakedDeliveryRows, "no delivery": c.IndexRowsWithoutDelivery,
			"no hook": c.IndexRowsWithoutHook, "tenants": c.Tenants, "erased": c.ErasedTenants,
		} {
			if p == nil {
				t.Errorf("count %s was not checked", name)
			}
		}
		// The fixture holds a due row whose hook is gone.
		if *c.IndexRowsWithoutHook < 1 || *c.Tenants < 5 {
			t.Errorf("counts %+v: the fixture has a hookless row and at least five tenants", c)
		}
		if len(rep.NotChecked) != 0 {
			t.Errorf("not checked on a healthy v3 store: %+v", rep.NotChecked)
		}
		if rep.Keys == 0 || len(rep.Families) == 0 {
			t.Errorf("no keys counted: %+v", rep)
		}
	})
	t.Run("v2", func(t *testing.T) {
		rep := vtHealthy(t, vtFixture(t, format.Format2))
		if rep.Format != format.Format2 || rep.Counts.StaleActiveMarkers != nil || rep.Counts.LeakedDeliveryRows == nil {
			t.Errorf("format 2 counts: %+v", rep.Counts)
		}
		var said bool
		for _, n := range rep.NotChecked {
			said = said || (n.Check == "counters" && strings.Contains(n.Reason, "do not exist before format 3"))
		}
		if !said {
			t.Errorf("a format 2 report must say that counters do not exist before format 3: %+v", rep.NotChecked)
		}
	})
}

// A store straight out of the migration is healthy, and its counters equal
// a fold of its rows.
func TestVerifyMigratedStore(t *testing.T) {
	dir := vtFixture(t, format.Format2)
	st := vtOpen(t, dir, rocks.ReadWrite)
	if _, err := migration.Run(context.Background(), st, migration.Options{Now: fixture.DefaultNow}); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	st.Close()
	vtHealthy(t, dir)
	st = vtOpen(t, dir, rocks.ReadOnly)
	f, err := Fold(context.Background(), st, FoldOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m := f.Mismatches(); len(m) != 0 {
		t.Fatalf("mismatches after migrate: %+v", m)
	}
}

func TestFold(t *testing.T) {
	st := vtOpen(t, vtFixture(t, format.Format3), rocks.ReadOnly)
	f, err := Fold(context.Background(), st, FoldOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Ords) < 6 || f.Ords[0].Tenant.Ord != 0 || f.Keys == 0 {
		t.Fatalf("fold: %+v", f)
	}
	var sum Counters
	for _, o := range f.Ords[1:] {
		sum.addAll(&o.Folded)
	}
	if sum != f.Ords[0].Folded || f.Ords[0].Folded.Get(format.FieldDead) == 0 {
		t.Errorf("aggregate %v, tenants sum to %v", f.Ords[0].Folded, sum)
	}
	if m := f.Mismatches(); len(m) != 0 {
		t.Errorf("the fixture's counters differ from its fold: %+v", m)
	}
	acme := vtOrd(t, st, "acme")
	one, err := Fold(context.Background(), st, FoldOptions{Tenant: vtTenant(t, st, "acme")})
	if err != nil {
		t.Fatal(err)
	}
	if w := f.Ord(acme); len(one.Ords) != 1 || w == nil || w.Folded != one.Ords[0].Folded || w.Stored != one.Ords[0].Stored ||
		*one.Ords[0].Tenant.ID != "acme" {
		t.Errorf("fold of acme alone %+v, in the whole fold %+v", one.Ords, f.Ord(acme))
	}
	if _, err := Fold(context.Background(), st, FoldOptions{Tenant: vtNobody}); !errors.Is(err, format.ErrNoSuchTenant) {
		t.Errorf("unknown tenant: %v", err)
	}
	v2 := vtOpen(t, vtFixture(t, format.Format2), rocks.ReadOnly)
	if _, err := Fold(context.Background(), v2, FoldOptions{}); !errors.Is(err, ErrNoCounters) {
		t.Errorf("fold of a format 2 store: %v", err)
	}
}

func TestVerifyEachTenant(t *testing.T) {
	dir := vtFixture(t, format.Format3)
	st := vtOpen(t, dir, rocks.ReadOnly)
	var tenants []string
	for _, r := range vtRows(t, st, format.FamOrdByTenant, 0, nil) {
		tenants = append(tenants, string(r[0][1:]))
	}
	if len(tenants) < 5 {
		t.Fatalf("tenants %q", tenants)
	}
	for _, tn := range tenants {
		rep, err := Verify(context.Background(), st, VerifyOptions{Tenant: vtTenant(t, st, tn)})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Healthy || rep.Tenant == nil || *rep.Tenant.ID != tn {
			t.Errorf("tenant %q: %s\n%s", tn, rep.Summary(), vtDump(rep))
		}
		if len(rep.NotChecked) == 0 || rep.Counts.LeakedDeliveryRows != nil || rep.Counts.StaleActiveMarkers == nil {
			t.Errorf("tenant %q: a one-tenant run must say what it did not check: %+v %+v", tn, rep.NotChecked, rep.Counts)
		}
	}
	if _, err := Verify(context.Background(), st, VerifyOptions{Tenant: vtNobody}); !errors.Is(err, format.ErrNoSuchTenant) {
		t.Errorf("unknown tenant: %v", err)
	}
}

// A fault in one tenant shows in a run limited to it, and not in a run
// limited to another.
func TestVerifyTenantScope(t *testing.T) {
	dir := vtFixture(t, format.Format3)
	var acme, globex uint32
	vtPlant(t, dir, func(st *rocks.Store, b *rocks.Batch) {
		acme, globex = vtOrd(t, st, "acme"), vtOrd(t, st, "globex")
		row := vtRows(t, st, format.FamDue, 1, func(k, _ []byte) bool {
			dk, _ := format.DecodeDueKey(k)
			return dk.Ord == acme
		})[0]
		dk, _ := format.DecodeDueKey(row[0])
		b.Delete(format.CFIndex, dk.ActiveKey().Encode())
		b.Merge(format.CFCounters, format.CounterKeyBytes(acme, format.FieldInflight), format.EncodeCounterOperand(2))
	})
	rep, err := vtVerify(t, dir, VerifyOptions{Tenant: format.Tenant{ID: "acme", Ord: acme}})
	if err != nil {
		t.Fatal(err)
	}
	if len(vtFindings(rep, CheckMarkerMissing)) != 1 || len(rep.CounterMismatches) != 1 ||
		rep.CounterMismatches[0].Tenant.Ord != acme || rep.CounterMismatches[0].Delta != -2 {
		t.Errorf("acme: %s\n%s", rep.Summary(), vtDump(rep))
	}
	// The stored value a mismatch shows is read again after the fold (the
	// tenant table keeps only the difference): it is what the counter
	// holds, and the whole store's run shows the same.
	st := vtOpen(t, dir, rocks.ReadOnly)
	v, _, err := st.GetOpts(format.CFCounters, format.CounterKeyBytes(acme, format.FieldInflight), rocks.ReadOpts{})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	stored, err := format.DecodeCounterValue(v)
	if err != nil {
		t.Fatal(err)
	}
	one := rep.CounterMismatches[0]
	if one.Stored != stored || one.Folded != stored-2 {
		t.Errorf("acme's mismatch: stored %d folded %d; its counter holds %d", one.Stored, one.Folded, stored)
	}
	whole, err := vtVerify(t, dir, VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, m := range whole.CounterMismatches {
		if m.Tenant.Ord == acme {
			found = true
			if !reflect.DeepEqual(m, one) {
				t.Errorf("acme's mismatch in the whole store %+v, alone %+v", m, one)
			}
		}
	}
	if !found {
		t.Errorf("the whole store's run has no mismatch for acme:\n%s", vtDump(whole))
	}
	rep, err = vtVerify(t, dir, VerifyOptions{Tenant: format.Tenant{ID: "globex", Ord: globex}})
	if err != nil || !rep.Healthy || rep.Tenant.Ord != globex {
		t.Errorf("globex: %v %s\n%s", err, rep.Summary(), vtDump(rep))
	}
}

// Verify writes nothing: every file of the store is byte-identical after
// it, whichever way the store was opened for reading.
func TestVerifyLeavesFilesUntouched(t *testing.T) {
	for _, mode := range []rocks.Mode{rocks.ReadOnly, rocks.Secondary} {
		t.Run(mode.String(), func(t *testing.T) {
			dir := vtFixture(t, format.Format3)
			before := storetest.TreeOf(t, dir)
			st, err := rocks.OpenStore(dir, rocks.Options{Mode: mode, SecondaryDir: filepath.Join(t.TempDir(), "sec")})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Verify(context.Background(), st, VerifyOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := Verify(context.Background(), st, VerifyOptions{Tenant: vtTenant(t, st, "acme")}); err != nil {
				t.Fatal(err)
			}
			st.Close()
			storetest.SameTree(t, before, storetest.TreeOf(t, dir))
		})
	}
}

// A running node holds the store open for writing, with commits only in its
// WAL and memtables: a read-only and a secondary verify see them, and the
// store stays healthy.
func TestVerifyWhileNodeHoldsStore(t *testing.T) {
	dir := vtFixture(t, format.Format3)
	node := vtOpen(t, dir, rocks.ReadWrite)
	q, err := fixture.NewQueue(node.DB, format.Format3, fixture.DefaultNow.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	tenant := "newcomer"
	h, err := q.Ingest(&tenant, []uint16{1, 2}, 300, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.Claim(h.Refs[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite}); !errors.Is(err, rocks.ErrLocked) {
		t.Fatalf("a second writer: %v, want ErrLocked", err)
	}
	for _, mode := range []rocks.Mode{rocks.ReadOnly, rocks.Secondary} {
		st, err := rocks.OpenStore(dir, rocks.Options{Mode: mode})
		if err != nil {
			t.Fatalf("%v: %v", mode, err)
		}
		rep, err := Verify(context.Background(), st, VerifyOptions{Tenant: vtTenant(t, st, tenant)})
		st.Close()
		if err != nil {
			t.Fatalf("%v: %v", mode, err)
		}
		if !rep.Healthy || rep.Tenant == nil {
			t.Fatalf("%v: %s\n%s", mode, rep.Summary(), vtDump(rep))
		}
	}
	st := vtOpen(t, dir, rocks.ReadOnly)
	f, err := Fold(context.Background(), st, FoldOptions{Tenant: vtTenant(t, st, tenant)})
	if err != nil {
		t.Fatal(err)
	}
	got := f.Ords[0].Folded
	if got.Get(format.FieldPending) != 1 || got.Get(format.FieldInflight) != 1 || got.Get(format.FieldBytes) != 600 ||
		got.Get(format.FieldArchivePending) != 1 {
		t.Fatalf("the node's uncommitted-to-disk rows are not all seen: %v", got)
	}
}

func TestVerifyRefusesMidMigration(t *testing.T) {
	dir := vtFixture(t, format.Format3)
	vtPlant(t, dir, func(_ *rocks.Store, b *rocks.Batch) {
		b.Put(format.CFDefault, []byte(format.KeyMigrating3), format.MigrationCursor{Phase: format.MigPhaseDead}.Encode())
	})
	st := vtOpen(t, dir, rocks.ReadOnly)
	rep, err := Verify(context.Background(), st, VerifyOptions{})
	if !errors.Is(err, rocks.ErrMidMigration) || rep != nil || !strings.Contains(err.Error(), "mid-migration") {
		t.Fatalf("verify mid-migration: %v", err)
	}
	if _, err := Fold(context.Background(), st, FoldOptions{}); !errors.Is(err, rocks.ErrMidMigration) {
		t.Fatalf("fold mid-migration: %v", err)
	}
}

func TestVerifyCanceled(t *testing.T) {
	st := vtOpen(t, vtFixture(t, format.Format3), rocks.ReadOnly)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Verify(ctx, st, VerifyOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("verify: %v", err)
	}
	if _, err := Fold(ctx, st, FoldOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("fold: %v", err)
	}
}

// Progress is told of every key read, in steps.
func TestVerifyProgress(t *testing.T) {
	st := vtOpen(t, vtFixture(t, format.Format3), rocks.ReadOnly)
	var sum, calls int64
	var mu sync.Mutex
	rep, err := Verify(context.Background(), st, VerifyOptions{Progress: reporting.Adds(func(n int64) { mu.Lock(); sum += n; calls++; mu.Unlock() })})
	if err != nil {
		t.Fatal(err)
	}
	if sum != rep.Keys || calls == 0 {
		t.Fatalf("progress counted %d keys in %d calls; the report says %d", sum, calls, rep.Keys)
	}
}

// Findings are listed up to MaxFindingsPerCheck per check, and counted past
// it.
func TestVerifyFindingsCapped(t *testing.T) {
	dir := vtFixture(t, format.Format3)
	const n = MaxFindingsPerCheck + 25
	var keys [][]byte
	vtPlant(t, dir, func(_ *rocks.Store, b *rocks.Batch) {
		for i := 0; i < n; i++ {
			k := format.DueV2Key{At: uint64(i), Seq: uint64(i), Sink: 1}.Encode()
			keys = append(keys, k)
			b.Put(format.CFIndex, k, format.EncodeSize(1))
		}
	})
	rep, err := vtVerify(t, dir, VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := vtFindings(rep, CheckFormat2KeyRemains)
	if len(got) != MaxFindingsPerCheck || rep.FindingsOmitted[CheckFormat2KeyRemains] != 25 || rep.Problems() != n {
		t.Fatalf("%d listed, %d omitted, %d problems", len(got), rep.FindingsOmitted[CheckFormat2KeyRemains], rep.Problems())
	}
	if !slices.IsSortedFunc(got, func(a, b Finding) int { return strings.Compare(a.Key.Hex, b.Key.Hex) }) {
		t.Errorf("findings are not in key order")
	}
}

// The bounded batches and tables change how many passes a run makes, never
// its result: with every budget tiny (many join passes, a reconciliation
// table too small to peel) the reports are the same.
func TestVerifyBudgetsDoNotChangeTheReport(t *testing.T) {
	for _, name := range []string{"verify-faults", "verify-counters"} {
		dir := storetest.Extract(t, "health/"+name+".tar.zst")
		if name == "verify-faults" {
			// Leaks and orphans too, so that every one-to-one check has
			// several differences to list.
			vtPlant(t, dir, func(_ *rocks.Store, b *rocks.Batch) {
				for i := uint64(0); i < 3; i++ {
					b.Put(format.CFDeliveries, format.DeliveryKey{Seq: 1 << 30, Sink: uint16(i)}.Encode(),
						format.EncodeDelivery(format.Delivery{Status: format.StatusDue, Size: 10, LastErrorNil: true}))
					b.Put(format.CFIndex, format.InflightKey{Ord: 1, Seq: 1<<31 + i, Sink: 1}.Encode(), format.EncodeSize(5))
				}
			})
		}
		// More passes read more keys; nothing else may change.
		want := vtReportBytes(t, dir, nil)
		sz := tunedSizes()
		sz.markers, sz.dead, sz.deliveryChunk, sz.probeChunk, sz.reconLogCells, sz.reconBudget = 3, 2, 5, 3, 0, 4
		if got := vtReportBytes(t, dir, sz); !bytes.Equal(got, want) {
			t.Errorf("%s: with tiny budgets\n%s\nwant\n%s", name, got, want)
		}
		if name == "verify-faults" {
			continue // its n row of acme points at globex's ordinal
		}
		st := vtOpen(t, dir, rocks.ReadOnly)
		f, err := Fold(context.Background(), st, FoldOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range f.Ords[1:] {
			one, err := Fold(context.Background(), st, FoldOptions{Tenant: format.Tenant{ID: o.Tenant.Name(), Ord: o.Tenant.Ord}})
			if err != nil || one.Ords[0].Folded != o.Folded {
				t.Errorf("%s: tenant %s alone %v, in the whole fold %v (%v)", name, o.Tenant.String(), one, o.Folded, err)
			}
		}
		st.Close()
	}
}
