package migration

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// A format 3 store is nothing to do: nothing is written, no backup taken.
func TestFormat3IsNothingToDo(t *testing.T) {
	dir := makeV2(t, genSpec{seed: 9, hooks: 30, tenants: 3, now: testNow})
	mustMigrate(t, dir, Options{})
	before := storetest.Dump(t, dir)
	backup := filepath.Join(t.TempDir(), "backup")
	sum := mustMigrate(t, dir, Options{Backup: backupPolicy(dir, backup)})
	if !sum.NothingToDo || sum.Steps != 0 || sum.Backup != "" {
		t.Errorf("second run: %+v", sum)
	}
	if _, err := os.Stat(backup); !os.IsNotExist(err) {
		t.Errorf("a backup was taken of a store with nothing to do (%v)", err)
	}
	storetest.AssertSame(t, before, storetest.Dump(t, dir))
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
	c := storetest.Dump(t, dir)
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
	storetest.AssertSame(t, want, storetest.Dump(t, dir))
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
	storetest.AssertSame(t, want, storetest.Dump(t, dir))
	foldCounters(t, dir)
	if sum.DeliveryMissing != 1 || sum.DeliveryUndecodable != 1 || len(sum.DeliveryExamples) != 2 {
		t.Errorf("missing %d, undecodable %d, examples %x", sum.DeliveryMissing, sum.DeliveryUndecodable, sum.DeliveryExamples)
	}
	bytesC := storetest.Dump(t, dir)[format.CFCounters][string(format.CounterKeyBytes(1, format.FieldBytes))]
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
			sum, err := migrate(t, context.Background(), dir, Options{stepRows: 1})
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
			// Every step before the one holding the value is committed, however
			// far ahead the pipeline had read: here the first, the due row.
			state, err := ReadState(st)
			if err != nil {
				t.Fatal(err)
			}
			wantCursor := format.MigrationCursor{Phase: format.MigPhaseDue, LastKey: format.DueV2Key{At: 10, Seq: 1}.Encode()}
			if !state.Migrating || sum.Steps != 1 || string(state.Cursor.Encode()) != string(wantCursor.Encode()) {
				t.Errorf("after the error: migrating %v, %d steps, cursor %v; want 1 step, cursor %v", state.Migrating, sum.Steps, state.Cursor, wantCursor)
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
				s.B.Delete(f.CF, k)
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
	storetest.AssertSame(t, want, storetest.Dump(t, dir))
}

// The tenant cap is reported, not enforced.
func TestTenantCapReported(t *testing.T) {
	dir := makeV2(t, genSpec{seed: 13, hooks: 200, tenants: 9, now: testNow})
	want := expectV3(t, dir, testNow)
	sum := mustMigrate(t, dir, Options{TenantsMax: 4})
	storetest.AssertSame(t, want, storetest.Dump(t, dir))
	if sum.TenantsMax != 4 || sum.OverCap != sum.Tenants-4 || sum.Tenants != 9 {
		t.Errorf("tenants %d, max %d, over cap %d", sum.Tenants, sum.TenantsMax, sum.OverCap)
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
	storetest.AssertSame(t, want, storetest.DumpOpen(t, st))
}

func binaryU32(s string) uint32 {
	v, err := format.DecodeU32([]byte(s))
	if err != nil {
		panic(err)
	}
	return v
}
