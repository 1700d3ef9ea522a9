package migration

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/pkg/fixture"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/format/etf"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// testNow is the start time of the test migrations: due rows lie on both sides.
const testNow uint64 = 1_796_032_800_000 // 2026-11-30T10:00:00Z

var testStart = time.UnixMilli(int64(testNow)).UTC()

// migrate opens the store read-write, runs the migration and closes it.
func migrate(t testing.TB, ctx context.Context, dir string, opts Options) (Summary, error) {
	t.Helper()
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatalf("open %s: %v", dir, err)
	}
	defer st.Close()
	if opts.Now.IsZero() {
		opts.Now = testStart
	}
	return Run(ctx, st, opts)
}

func mustMigrate(t testing.TB, dir string, opts Options) Summary {
	t.Helper()
	sum, err := migrate(t, context.Background(), dir, opts)
	if err != nil {
		t.Fatalf("migrate: %v", err)
	}
	if !sum.Finished {
		t.Fatalf("migrate: not finished: %+v", sum)
	}
	return sum
}

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
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeV2(t, tc.gen)
			want := expectV3(t, dir, testNow)
			sum := mustMigrate(t, dir, tc.opts)
			assertSame(t, want, dump(t, dir))
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
	}
	src := makeV2(t, genSpec{seed: 7, hooks: 1500, tenants: 40, now: testNow, missing: 0.01, undecodable: 0.01, nilTenant: 0.1,
		weights: [4]int{1, 1, 1, 0}, archive: 0.7})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ref := copyStore(t, src)
			full := mustMigrate(t, ref, tc.opts)
			want := dump(t, ref)
			for _, p := range full.Phases {
				if p.Rows < int64(2*max(tc.opts.stepRows, format.MigrationStepRows)) && tc.every == 1 {
					t.Fatalf("phase %v has %d rows: too few for several steps", p.Phase, p.Rows)
				}
			}
			for k := 1; k < full.Steps; k += tc.every {
				dir := copyStore(t, src)
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
				if d := diff(want, dump(t, dir)); d != "" {
					t.Fatalf("resumed after %d of %d steps, the store differs from an uninterrupted run:\n%s", k, full.Steps, d)
				}
			}
		})
	}
}

// stopAfter runs the migration and cancels it as step k commits, as SIGINT
// does: the run must stop right after that step and say so.
func stopAfter(t *testing.T, dir string, k int, opts Options) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts.OnStep = func(s StepInfo) {
		if s.Num == k {
			cancel()
		}
	}
	sum, err := migrate(t, ctx, dir, opts)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("stop after %d steps: err = %v, want context.Canceled", k, err)
	}
	if sum.Steps != k || sum.Finished {
		t.Fatalf("stop after %d steps: %d steps committed, finished %v", k, sum.Steps, sum.Finished)
	}
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if !st.Migrating || st.Format != format.Format2 {
		t.Fatalf("stopped after %d steps: format %d migrating %v", k, st.Format, st.Migrating)
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
		d := copyStore(t, dir)
		mustMigrate(t, d, opts)
		foldCounters(t, d)
		ten := dump(t, d)[format.CFTenants]
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
	got := dump(t, dir)
	assertSame(t, want, got)
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

func binaryU32(s string) uint32 {
	v, err := format.DecodeU32([]byte(s))
	if err != nil {
		panic(err)
	}
	return v
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
	assertSame(t, want, dump(t, dir))
}

// A format 3 store is nothing to do: nothing is written, no backup taken.
func TestFormat3IsNothingToDo(t *testing.T) {
	dir := makeV2(t, genSpec{seed: 9, hooks: 30, tenants: 3, now: testNow})
	mustMigrate(t, dir, Options{})
	before := dump(t, dir)
	backup := filepath.Join(t.TempDir(), "backup")
	sum := mustMigrate(t, dir, Options{Backup: backup})
	if !sum.NothingToDo || sum.Steps != 0 || sum.Backup != "" {
		t.Errorf("second run: %+v", sum)
	}
	if _, err := os.Stat(backup); !os.IsNotExist(err) {
		t.Errorf("a backup was taken of a store with nothing to do (%v)", err)
	}
	assertSame(t, before, dump(t, dir))
}

// The kind rule: a due row later than the start time is a retry (scheduled),
// one at or before it a first attempt (pending).
func TestKindAgainstStartTime(t *testing.T) {
	dir := t.TempDir() + "/store"
	s := newV2Store(t, dir)
	s.hook(1, "t")
	s.due(testNow-1, 1, 0, 1)
	s.due(testNow, 1, 1, 2)
	s.due(testNow+1, 1, 2, 4)
	s.close()
	mustMigrate(t, dir, Options{})
	c := dump(t, dir)
	for sink, kind := range []byte{0, 0, 1} {
		k := format.DueKey{Ord: 1, At: testNow - 1 + uint64(sink), Seq: 1, Sink: uint16(sink)}
		v := c[format.CFIndex][string(k.Encode())]
		if len(v) != 5 || v[4] != kind {
			t.Errorf("%v = %x, want kind %d", k, v, kind)
		}
	}
	pending := c[format.CFCounters][string(format.CounterKeyBytes(1, format.FieldPending))]
	scheduled := c[format.CFCounters][string(format.CounterKeyBytes(1, format.FieldScheduled))]
	if p, _ := format.DecodeCounterValue([]byte(pending)); p != 2 {
		t.Errorf("pending = %d, want 2", p)
	}
	if s, _ := format.DecodeCounterValue([]byte(scheduled)); s != 1 {
		t.Errorf("scheduled = %d, want 1", s)
	}
}

// Stray keys (inside a family's sentinels but of the wrong length) are counted
// and not migrated; the finish removes those of d and f with the old sentinels.
func TestStrayKeys(t *testing.T) {
	dir := t.TempDir() + "/store"
	s := newV2Store(t, dir)
	s.hook(1, "t")
	s.due(testNow, 1, 0, 3)
	s.inflight(1, 1, 3)
	s.dead(testNow, 1, 2, 3)
	s.archive(1, 3)
	strays := map[Phase][][]byte{
		PhaseDue:      {[]byte("d\x00\x01"), append(format.DueV2Key{At: 5, Seq: 1}.Encode(), 0)},
		PhaseInflight: {[]byte("f\x00")},
		PhaseDead:     {[]byte("x\x00\x00\x00")},
		PhaseArchive:  {[]byte("a\x00\x00\x00\x00\x00\x00\x00\x00\x01\x02")},
	}
	for _, ks := range strays {
		for _, k := range ks {
			s.put(format.CFIndex, k, []byte("junk"))
		}
	}
	s.put(format.CFIndex, []byte("d\xff\x01"), nil) // past d's hi: not in the family, still a d key
	s.close()
	want := expectV3(t, dir, testNow)
	sum := mustMigrate(t, dir, Options{stepRows: 2})
	assertSame(t, want, dump(t, dir))
	for p, ks := range strays {
		ps := sum.Phases[p-1]
		if ps.Strays != int64(len(ks)) || ps.Rows != 1 || len(ps.StrayExample) != len(ks) {
			t.Errorf("%v: %d rows, %d strays (%q); want 1 row, %d strays", p, ps.Rows, ps.Strays, ps.StrayExample, len(ks))
		}
	}
}

// Dead rows whose delivery row is missing or undecodable count size 0, and
// are counted.
func TestDeadRowSizes(t *testing.T) {
	dir := t.TempDir() + "/store"
	s := newV2Store(t, dir)
	s.hook(1, "t")
	s.dead(10, 1, 0, 100)
	s.dead(11, 1, 1, -1)
	s.dead(12, 1, 2, -1)
	s.put(format.CFDeliveries, format.DeliveryKey{Seq: 1, Sink: 2}.Encode(), []byte{131, 97})
	s.close()
	want := expectV3(t, dir, testNow)
	sum := mustMigrate(t, dir, Options{})
	assertSame(t, want, dump(t, dir))
	foldCounters(t, dir)
	if sum.DeliveryMissing != 1 || sum.DeliveryUndecodable != 1 || len(sum.DeliveryExamples) != 2 {
		t.Errorf("missing %d, undecodable %d, examples %x", sum.DeliveryMissing, sum.DeliveryUndecodable, sum.DeliveryExamples)
	}
	bytesC := dump(t, dir)[format.CFCounters][string(format.CounterKeyBytes(1, format.FieldBytes))]
	if v, _ := format.DecodeCounterValue([]byte(bytesC)); v != 100 {
		t.Errorf("bytes = %d, want 100", v)
	}
}

// A value the migration cannot carry over stops it at that row, naming the
// key, leaving a resumable store; the dry run stops at the same row.
func TestUnreadableValueStops(t *testing.T) {
	for _, tc := range []struct {
		name string
		key  []byte
		val  []byte
	}{
		{"due size", format.DueV2Key{At: 50, Seq: 1, Sink: 9}.Encode(), []byte{1, 2, 3}},
		{"inflight size", format.InflightV2Key{Seq: 1, Sink: 9}.Encode(), nil},
		{"dead ids", format.DeadKey{At: 50, Seq: 1, Sink: 9}.Encode(), []byte{131, 97, 1}},
		{"archive size", format.ArchiveKey{Seq: 2}.Encode(), []byte{0, 0, 0, 0, 0, 0, 0, 0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir() + "/store"
			s := newV2Store(t, dir)
			s.hook(1, "t")
			s.due(10, 1, 0, 1)
			s.put(format.CFIndex, tc.key, tc.val)
			s.close()

			ro, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
			if err != nil {
				t.Fatal(err)
			}
			_, perr := Plan(context.Background(), ro, Options{Now: testStart})
			ro.Close()
			_, err = migrate(t, context.Background(), dir, Options{stepRows: 1})
			for _, e := range []error{perr, err} {
				var ve *ValueError
				if !errors.As(e, &ve) || !errors.Is(e, rocks.ErrCorrupt) || string(ve.Key) != string(tc.key) {
					t.Fatalf("err = %v, want a ValueError for %x", e, tc.key)
				}
			}
			st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if !st.Migrating {
				t.Error("store is not resumable (no m:migrating:3)")
			}
		})
	}
}

// A family whose sentinel is missing was cut short: the migration must not
// take its end for the end of the rows.
func TestMissingSentinelFails(t *testing.T) {
	for _, f := range format.FamiliesOf(format.Format2) {
		for _, which := range []string{"lo", "hi"} {
			t.Run(f.Name+"/"+which, func(t *testing.T) {
				dir := t.TempDir() + "/store"
				s := newV2Store(t, dir)
				s.hook(1, "t")
				s.due(10, 1, 0, 1)
				s.dead(10, 1, 1, 1)
				s.archive(1, 1)
				s.inflight(1, 2, 1)
				k := f.Lo
				if which == "hi" {
					k = f.Hi
				}
				s.b.Delete(f.CF, k)
				s.close()
				_, err := migrate(t, context.Background(), dir, Options{})
				var cs *rocks.CutShortError
				if !errors.As(err, &cs) || cs.Family != f.Name || cs.Missing != which {
					t.Fatalf("err = %v, want a cut-short %s of %s", err, which, f.Name)
				}
			})
		}
	}
}

// The preparation is skipped where done: a run killed after creating the new
// column families but before the preparation batch left them, empty.
func TestPreparationSkippedWhereDone(t *testing.T) {
	dir := makeV2(t, genSpec{seed: 11, hooks: 50, tenants: 5, now: testNow})
	want := expectV3(t, dir, testNow)
	db, err := rocks.Open(dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.CreateFamily(format.CFTenants); err != nil {
		t.Fatal(err)
	}
	db.Close()
	mustMigrate(t, dir, Options{})
	assertSame(t, want, dump(t, dir))
}

// Design record: "a restored format 2 backup migrates on boot": the
// checkpoint taken before the first write is the format 2 store, and migrating
// it gives the same store again.
func TestCheckpointRestoredMigratesAgain(t *testing.T) {
	dir := makeV2(t, genSpec{seed: 12, hooks: 700, tenants: 20, now: testNow, nilTenant: 0.1})
	orig := dump(t, dir)
	backup := filepath.Join(t.TempDir(), "backup")
	sum := mustMigrate(t, dir, Options{Backup: backup})
	if sum.Backup != backup {
		t.Errorf("summary backup %q, want %q", sum.Backup, backup)
	}
	assertSame(t, orig, dump(t, backup))
	mustMigrate(t, backup, Options{})
	assertSame(t, dump(t, dir), dump(t, backup))

	// A checkpoint never overwrites: the directory must not exist.
	dir2 := makeV2(t, genSpec{seed: 12, hooks: 10, tenants: 2, now: testNow})
	if _, err := migrate(t, context.Background(), dir2, Options{Backup: backup}); err == nil {
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

// The tenant cap is reported, not enforced.
func TestTenantCapReported(t *testing.T) {
	dir := makeV2(t, genSpec{seed: 13, hooks: 200, tenants: 9, now: testNow})
	want := expectV3(t, dir, testNow)
	sum := mustMigrate(t, dir, Options{TenantsMax: 4})
	assertSame(t, want, dump(t, dir))
	if sum.TenantsMax != 4 || sum.OverCap != sum.Tenants-4 || sum.Tenants != 9 {
		t.Errorf("tenants %d, max %d, over cap %d", sum.Tenants, sum.TenantsMax, sum.OverCap)
	}
}

func fileHashes(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = fmt.Sprintf("%x", b)
	}
	return out
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
	assertSame(t, want, dump(t, dir))
	foldCounters(t, dir)
	verifyHealthy(t, dir)
	if sum.Tenants < 3 || sum.Defaults[format.ReasonNilTenant].Hooks == 0 {
		t.Errorf("the fixture should hold several tenants and nil-tenant hooks: %d tenants, %+v", sum.Tenants, sum.Defaults)
	}
}

// Run reads the store's format from the store, not from what it was when the
// store was opened: run again on the same open store after finishing, it has
// nothing to do (and must not prepare a second migration over the first).
func TestRunAgainOnTheSameOpenStore(t *testing.T) {
	dir := makeV2(t, genSpec{seed: 14, hooks: 20, tenants: 3, now: testNow})
	want := expectV3(t, dir, testNow)
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i, wantNothing := range []bool{false, true} {
		sum, err := Run(context.Background(), st, Options{Now: testStart})
		if err != nil || sum.NothingToDo != wantNothing || !sum.Finished {
			t.Fatalf("run %d: nothing to do %v, finished %v, err %v", i+1, sum.NothingToDo, sum.Finished, err)
		}
	}
	assertSame(t, want, dumpOpen(t, st))
}
