package migration

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/fixture"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/format/etf"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// Design record, upgrade tests: "v2 fixture upgrades to v3 with counters equal
// to a fold (every family, every tenant, default included)". The result is
// also compared key by key with an independent model of the contract.
func TestUpgradeMatchesContract(t *testing.T) {
	cases := []struct {
		name string
		gen  genSpec
		opts Options
	}{
		{"small", genSpec{seed: 1, hooks: 40, tenants: 4, now: testNow, missing: 0.05, undecodable: 0.05, nilTenant: 0.2}, Options{}},
		{"several steps per phase", genSpec{seed: 2, hooks: 1500, tenants: 30, now: testNow, missing: 0.01, undecodable: 0.01, nilTenant: 0.1}, Options{}},
		{"one tenant", genSpec{seed: 3, hooks: 600, tenants: 1, now: testNow}, Options{}},
		{"tiny steps, serial pipeline", genSpec{seed: 4, hooks: 200, tenants: 12, now: testNow, nilTenant: 0.1}, Options{stepRows: 7, workers: 1, ahead: 1, chunk: 1}},
		{"cache smaller than the tenants", genSpec{seed: 5, hooks: 800, tenants: 50, now: testNow, missing: 0.02}, Options{stepRows: 50, cacheLimit: 4, chunk: 2}},
		// Both ways of finding a hook's tenant: the table read before the
		// first step, and a multi-get per step.
		{"hook table", genSpec{seed: 6, hooks: 900, tenants: 30, now: testNow, missing: 0.05, undecodable: 0.05, nilTenant: 0.1}, Options{hookTable: 1}},
		{"hook lookups", genSpec{seed: 6, hooks: 900, tenants: 30, now: testNow, missing: 0.05, undecodable: 0.05, nilTenant: 0.1}, Options{hookTable: -1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeV2(t, tc.gen)
			want := expectV3(t, dir, testNow)
			sum := mustMigrate(t, dir, tc.opts)
			storetest.AssertSame(t, want, storetest.Dump(t, dir))
			foldCounters(t, dir)
			verifyHealthy(t, dir)
			if got, wantN := sum.Tenants, uint32((len(want[format.CFTenants])-4)/2); got != wantN {
				t.Errorf("summary: %d tenants, the store has %d", got, wantN)
			}
			st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if st.Format != format.Format3 || st.Migrating {
				t.Errorf("after migrating: format %d, migrating %v", st.Format, st.Migrating)
			}
		})
	}
}

// Design record: "resumes interrupted tenant migration without double
// counting (kill between every pair of steps; counters and rows equal an
// uninterrupted run)". The store has several steps in every phase; the
// interrupted runs are told a different start time, which a resumed run must
// ignore.
func TestResumeBetweenEveryPairOfSteps(t *testing.T) {
	cases := []struct {
		name string
		opts Options
		// every is the stride of the stopping points tried (1: all of them).
		every int
	}{
		{"500-row steps", Options{}, 1},
		{"small steps, small cache", Options{stepRows: 97, cacheLimit: 8}, 7},
		{"hook lookups", Options{hookTable: -1}, 5},
		{"hook table", Options{hookTable: 1}, 5},
	}
	src := makeV2(t, genSpec{seed: 7, hooks: 1500, tenants: 40, now: testNow, missing: 0.01, undecodable: 0.01, nilTenant: 0.1,
		weights: [4]int{1, 1, 1, 0}, archive: 0.7})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ref := storetest.CopyStore(t, src)
			full := mustMigrate(t, ref, tc.opts)
			want := storetest.Dump(t, ref)
			for _, p := range full.Phases {
				if p.Rows < int64(2*max(tc.opts.stepRows, format.MigrationStepRows)) && tc.every == 1 {
					t.Fatalf("phase %v has %d rows: too few for several steps", p.Phase, p.Rows)
				}
			}
			for k := 1; k < full.Steps; k += tc.every {
				dir := storetest.CopyStore(t, src)
				stopAfter(t, dir, k, tc.opts)
				opts := tc.opts
				opts.Now = testStart.Add(time.Hour) // must be ignored
				sum, err := migrate(t, context.Background(), dir, opts)
				if err != nil {
					t.Fatalf("resume after %d steps: %v", k, err)
				}
				if !sum.Resumed || !sum.Finished || !sum.StartedAt.Equal(testStart) {
					t.Fatalf("resume after %d steps: resumed %v finished %v started %v", k, sum.Resumed, sum.Finished, sum.StartedAt)
				}
				if sum.Steps != full.Steps-k {
					t.Errorf("resume after %d steps took %d steps, want %d", k, sum.Steps, full.Steps-k)
				}
				assertWhole(t, full, sum, k)
				if d := storetest.Diff(want, storetest.Dump(t, dir)); d != "" {
					t.Fatalf("resumed after %d of %d steps, the store differs from an uninterrupted run:\n%s", k, full.Steps, d)
				}
			}
		})
	}
}

// Design record: "tenant migration allocates each ordinal once": one t and one
// n row per tenant, dense ordinals in first-sight order, m:next_ord after the
// last, also when the allocator forgets ordinals and must read them back.
func TestOrdinalsAllocatedOnce(t *testing.T) {
	dir := t.TempDir() + "/store"
	s := newV2Store(t, dir)
	// First sight: phase order first (due, inflight, dead, archive), then key
	// order within a phase. tenant-c appears first in due, tenant-a only in
	// archive, tenant-b in every phase.
	s.hook(10, "tenant-b")
	s.hook(11, "tenant-c")
	s.hook(12, "tenant-a")
	s.hook(13, "tenant-d")
	s.due(testNow-5, 11, 0, 1)
	s.due(testNow-1, 10, 0, 1)
	s.due(testNow+9, 11, 1, 1)
	s.inflight(10, 1, 1)
	s.inflight(13, 0, 1)
	s.dead(testNow-100, 10, 2, 1)
	s.archive(10, 1)
	s.archive(12, 1)
	s.close()
	for _, opts := range []Options{{}, {stepRows: 1, cacheLimit: 1}} {
		d := storetest.CopyStore(t, dir)
		mustMigrate(t, d, opts)
		foldCounters(t, d)
		ten := storetest.Dump(t, d)[format.CFTenants]
		for i, tenant := range []string{"tenant-c", "tenant-b", "tenant-d", "tenant-a"} {
			ord := uint32(i + 1)
			if got := ten[string(format.TenantByOrdKey{Ord: ord}.Encode())]; got != tenant {
				t.Errorf("opts %+v: ordinal %d is %q, want %q", opts, ord, got, tenant)
			}
		}
		if n := len(ten); n != 2*4+4 {
			t.Errorf("opts %+v: %d keys in tenants, want 4 t, 4 n and 4 sentinels", opts, n)
		}
	}
}

// Design record: "a hook with no tenant or no envelope files under default",
// with every reason the contract gives, each counted by reason.
func TestDefaultTenantReasons(t *testing.T) {
	dir := t.TempDir() + "/store"
	s := newV2Store(t, dir)
	notMap, _ := etf.Encode(notMapHook)
	noTenantKey, _ := etf.Encode(etf.Map{{Key: etf.Atom("__struct__"), Value: etf.Atom(format.EnvelopeStruct)}, {Key: etf.Atom("id"), Value: etf.Binary("x")}})
	intTenant, _ := etf.Encode(etf.Map{{Key: etf.Atom("tenant_id"), Value: int64(7)}})
	hooks := []struct {
		seq    uint64
		raw    []byte // nil: no hook at all
		reason format.DefaultReason
		tenant string
	}{
		{1, envelope(1, "acme", false), format.ReasonNone, "acme"},
		{2, envelope(2, "", false), format.ReasonNilTenant, "default"},
		{3, nil, format.ReasonMissingHook, "default"},
		{4, []byte("not a term"), format.ReasonUndecodable, "default"},
		{5, notMap, format.ReasonNotMap, "default"},
		{6, envelope(6, "", true), format.ReasonNilTenant, "default"},
		{7, noTenantKey, format.ReasonNoTenantKey, "default"},
		{8, envelope(8, strings.Repeat("x", 257), false), format.ReasonBadTenant, "default"},
		{9, envelope(9, "\xff\xfe", false), format.ReasonBadTenant, "default"},
		{10, intTenant, format.ReasonBadTenant, "default"},
		{11, envelope(11, "default", false), format.ReasonNone, "default"},
		{12, envelope(12, "acme", true), format.ReasonNone, "acme"},
	}
	for _, h := range hooks {
		if h.raw != nil {
			s.rawHook(h.seq, h.raw)
		}
		s.due(testNow-h.seq, h.seq, 0, 10)
		s.dead(testNow-h.seq, h.seq, 1, 20)
	}
	s.close()
	want := expectV3(t, dir, testNow)
	sum := mustMigrate(t, dir, Options{})
	got := storetest.Dump(t, dir)
	storetest.AssertSame(t, want, got)
	foldCounters(t, dir)
	verifyHealthy(t, dir)

	ten := got[format.CFTenants]
	for _, h := range hooks {
		ord, ok := ten[string(format.OrdByTenantKey{Tenant: h.tenant}.Encode())]
		if !ok {
			t.Fatalf("tenant %q has no ordinal", h.tenant)
		}
		dk := format.DueKey{Ord: binaryU32(ord), At: testNow - h.seq, Seq: h.seq}
		if _, ok := got[format.CFIndex][string(dk.Encode())]; !ok {
			t.Errorf("hook %d: no due row under tenant %q", h.seq, h.tenant)
		}
	}
	wantHooks := map[format.DefaultReason]int64{}
	for _, h := range hooks {
		if h.reason != format.ReasonNone {
			wantHooks[h.reason]++
		}
	}
	for r := format.ReasonNilTenant; r <= format.ReasonBadTenant; r++ {
		d := sum.Defaults[r]
		if d.Hooks != wantHooks[r] || d.Rows != 2*wantHooks[r] {
			t.Errorf("%v: %d hooks, %d rows; want %d hooks, %d rows", r, d.Hooks, d.Rows, wantHooks[r], 2*wantHooks[r])
		}
		if r.IsFinding() && int64(len(d.Examples)) != wantHooks[r] {
			t.Errorf("%v: examples %v", r, d.Examples)
		}
	}
}

// Design record: "a store with no rows (no ?d, ?f, ?x, ?a rows) migrates in one step".
func TestEmptyStoreMigratesInOneStep(t *testing.T) {
	dir := t.TempDir() + "/store"
	s := newV2Store(t, dir)
	s.hook(1, "orphan") // a hook with no index rows is carried over, nothing else
	s.close()
	want := expectV3(t, dir, testNow)
	sum := mustMigrate(t, dir, Options{})
	if sum.Steps != 1 || sum.Rows() != 0 || sum.Tenants != 0 {
		t.Errorf("empty store: %d steps, %d rows, %d tenants; want 1, 0, 0", sum.Steps, sum.Rows(), sum.Tenants)
	}
	storetest.AssertSame(t, want, storetest.Dump(t, dir))
}

// Design record: "a restored format 2 backup migrates on boot": the
// checkpoint taken before the first write is the format 2 store, and migrating
// it gives the same store again.
func TestCheckpointRestoredMigratesAgain(t *testing.T) {
	dir := makeV2(t, genSpec{seed: 12, hooks: 700, tenants: 20, now: testNow, nilTenant: 0.1})
	orig := storetest.Dump(t, dir)
	backup := filepath.Join(t.TempDir(), "backup")
	sum := mustMigrate(t, dir, Options{Backup: backupPolicy(dir, backup)})
	if sum.Backup != backup {
		t.Errorf("summary backup %q, want %q", sum.Backup, backup)
	}
	storetest.AssertSame(t, orig, storetest.Dump(t, backup))
	mustMigrate(t, backup, Options{})
	storetest.AssertSame(t, storetest.Dump(t, dir), storetest.Dump(t, backup))

	// A checkpoint never overwrites: the directory must not exist.
	dir2 := makeV2(t, genSpec{seed: 12, hooks: 10, tenants: 2, now: testNow})
	if _, err := migrate(t, context.Background(), dir2, Options{Backup: backupPolicy(dir2, backup)}); err == nil {
		t.Fatal("checkpoint into an existing directory succeeded")
	}
	st, err := rocks.OpenStore(dir2, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st.Migrating || st.HasFamily(format.CFTenants) {
		t.Error("a failed checkpoint left the store changed")
	}
}

// Design record: "v2 fixture upgrades to v3 with counters equal to a fold", on
// the project's own format 2 fixture: a store made by playing the queue's
// transitions, with every case the tools must handle (missing and
// undecodable hooks, compressed envelopes, a tenant with only dead rows, the
// families no format changes, counters operands unmerged in the WAL).
func TestFixtureUpgrades(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	now := fixture.DefaultNow
	if _, err := fixture.Generate(context.Background(), dir, fixture.Options{Format: format.Format2, Seed: 1, Now: now}); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	start := now.Add(time.Minute)
	want := expectV3(t, dir, uint64(start.UnixMilli()))
	sum := mustMigrate(t, dir, Options{Now: start})
	storetest.AssertSame(t, want, storetest.Dump(t, dir))
	foldCounters(t, dir)
	verifyHealthy(t, dir)
	if sum.Tenants < 3 || sum.Defaults[format.ReasonNilTenant].Hooks == 0 {
		t.Errorf("the fixture should hold several tenants and nil-tenant hooks: %d tenants, %+v", sum.Tenants, sum.Defaults)
	}
}
