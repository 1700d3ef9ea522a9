package storediff

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/fixture"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/walk"
)

// diffBase writes the rows both sides of a diff case start from.
func diffBase(s *storetest.Queue) {
	s.Due("acme", storetest.QueueMS(-time.Minute), 1, 1, 10, format.KindFirstAttempt)
	s.Due("beta", storetest.QueueMS(-time.Minute), 2, 1, 20, format.KindRetry)
	s.Dead("acme", storetest.QueueMS(-time.Hour), 3, 2, 30, "boom")
	s.Dead("beta", storetest.QueueMS(-2*time.Hour), 4, 1, 40, "bust")
}

// badOperand is a counter merge operand the merge operator refuses.
var badOperand = []byte{131, 104, 2, 100, 0, 3, 'b', 'a', 'd', 97, 1}

func TestDiffStores(t *testing.T) {
	type want struct {
		cf, family              string
		onlyA, onlyB, changed   int64
		unreadable              int64
		keys                    int // kept
		omitted                 int64
		firstChange, firstKeyIn string // the first kept key's change, and text its key_text holds
		firstIn                 string // where its read failed ("a", "b", "both"; "" none)
		firstOnly               string // for an unreadable key: the one side that has it ("" both)
	}
	cases := []struct {
		name  string
		limit int
		a, b  func(s *storetest.Queue) // after diffBase; nil: nothing more
		want  []want
	}{{
		name: "the same writes: equal",
	}, {
		name: "a row only in A, in its families",
		a:    func(s *storetest.Queue) { s.Dead("acme", storetest.QueueMS(-3*time.Hour), 5, 1, 50, "gone") },
		// x, X, the delivery row and the hook; the counters differ too.
		want: []want{
			{cf: "hooks", family: "hooks", onlyA: 1, keys: 1, firstChange: KeyOnlyInA, firstKeyIn: "seq=5"},
			{cf: "deliveries", family: "deliveries", onlyA: 1, keys: 1, firstChange: KeyOnlyInA, firstKeyIn: "seq=5 sink=1"},
			// X (0x58) sorts before x (0x78).
			{cf: "index", family: "dead_by_tenant", onlyA: 1, keys: 1, firstChange: KeyOnlyInA},
			{cf: "index", family: "dead", onlyA: 1, keys: 1, firstChange: KeyOnlyInA},
			// dead and bytes, of acme and of the aggregate.
			{cf: "counters", family: "counters", changed: 4, keys: 4, firstChange: KeyChanged},
		},
	}, {
		name: "a value that changed, and a key only in B",
		b: func(s *storetest.Queue) {
			s.Delivery(3, 2, format.StatusDead, 30, "boom, later")
			s.Raw(format.CFIndex, []byte{format.PrefixDue, 1, 2}, []byte{1}) // a stray in B
		},
		want: []want{
			{cf: "deliveries", family: "deliveries", changed: 1, keys: 1, firstChange: KeyChanged, firstKeyIn: "seq=3 sink=2"},
			{cf: "index", family: "due", onlyB: 1, keys: 1, firstChange: KeyOnlyInB},
		},
	}, {
		name:  "the limit keeps the first keys and counts the rest",
		limit: 2,
		b: func(s *storetest.Queue) {
			for seq := uint64(10); seq < 15; seq++ {
				s.Hook(seq, "acme")
			}
		},
		want: []want{{cf: "hooks", family: "hooks", onlyB: 5, keys: 2, omitted: 3, firstChange: KeyOnlyInB, firstKeyIn: "seq=10"}},
	}, {
		// Issue 26: RocksDB's text is the same for every failed merge; the same bad
		// operand on both sides is no more a known value than two different ones.
		name: "a counter whose merge fails the same way on both sides is unreadable, not equal",
		a: func(s *storetest.Queue) {
			s.Commit()
			s.Merge(format.CounterKeyBytes(s.Ord("acme"), format.FieldDead), badOperand)
		},
		b: func(s *storetest.Queue) {
			s.Commit()
			s.Merge(format.CounterKeyBytes(s.Ord("acme"), format.FieldDead), badOperand)
		},
		want: []want{{cf: "counters", family: "counters", unreadable: 1, keys: 1, firstChange: KeyUnreadable, firstKeyIn: "field=dead", firstIn: "both"}},
	}, {
		name: "two counters whose merges fail on different operands are unreadable",
		a: func(s *storetest.Queue) {
			s.Commit()
			s.Merge(format.CounterKeyBytes(s.Ord("acme"), format.FieldDead), []byte{131, 106})
		},
		b: func(s *storetest.Queue) {
			s.Commit()
			s.Merge(format.CounterKeyBytes(s.Ord("acme"), format.FieldDead), badOperand)
		},
		want: []want{{cf: "counters", family: "counters", unreadable: 1, keys: 1, firstChange: KeyUnreadable, firstKeyIn: "field=dead", firstIn: "both"}},
	}, {
		name: "a counter whose merge fails on one side only is unreadable there",
		b: func(s *storetest.Queue) {
			s.Commit()
			s.Merge(format.CounterKeyBytes(s.Ord("acme"), format.FieldDead), badOperand)
		},
		want: []want{{cf: "counters", family: "counters", unreadable: 1, keys: 1, firstChange: KeyUnreadable, firstKeyIn: "field=dead", firstIn: "b"}},
	}, {
		name: "a counter only in A whose merge fails is unreadable in A",
		a: func(s *storetest.Queue) {
			s.Commit()
			s.Merge(format.CounterKeyBytes(77, format.FieldDead), badOperand)
		},
		want: []want{{cf: "counters", family: "counters", unreadable: 1, keys: 1, firstChange: KeyUnreadable, firstKeyIn: "ord=77", firstIn: "a", firstOnly: "a"}},
	}, {
		name: "a missing sentinel is a key only in A",
		b:    func(s *storetest.Queue) { s.Commit(); s.B.Delete(format.CFIndex, format.FamDead.Hi) },
		want: []want{{cf: "index", family: "dead", onlyA: 1, keys: 1, firstChange: KeyOnlyInA}},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			side := func(extra func(*storetest.Queue)) *rocks.Store {
				s := storetest.NewQueue(t, format.Format3)
				diffBase(s)
				if extra != nil {
					extra(s)
				}
				return s.Open()
			}
			a, b := side(tc.a), side(tc.b)
			res, err := Stores(context.Background(), a, b, Options{Limit: tc.limit})
			if err != nil {
				t.Fatal(err)
			}
			if res.Equal != (len(tc.want) == 0) {
				t.Fatalf("equal = %v, want %v: %+v", res.Equal, len(tc.want) == 0, res.Families)
			}
			if len(res.Families) != len(tc.want) {
				t.Fatalf("%d families differ, want %d: %+v", len(res.Families), len(tc.want), res.Families)
			}
			var sumA, sumB, sumC, sumU int64
			for i, w := range tc.want {
				f := res.Families[i]
				sumA, sumB, sumC, sumU = sumA+f.OnlyA, sumB+f.OnlyB, sumC+f.Changed, sumU+f.Unreadable
				if f.CF != w.cf || f.Family != w.family || f.OnlyA != w.onlyA || f.OnlyB != w.onlyB || f.Changed != w.changed ||
					f.Unreadable != w.unreadable ||
					len(f.Keys) != w.keys || f.Omitted != w.omitted {
					t.Errorf("family %d: %s %s only A %d only B %d changed %d, %d keys, %d omitted; want %+v",
						i, f.CF, f.Family, f.OnlyA, f.OnlyB, f.Changed, len(f.Keys), f.Omitted, w)
					continue
				}
				k := f.Keys[0]
				if k.Change != w.firstChange || !strings.Contains(k.KeyText, w.firstKeyIn) {
					t.Errorf("family %s: first key %+v, want change %s with %q", f.Family, k, w.firstChange, w.firstKeyIn)
				}
				onlyB, onlyA := k.Change == KeyOnlyInB || w.firstOnly == "b", k.Change == KeyOnlyInA || w.firstOnly == "a"
				if (k.A == nil) != onlyB || (k.B == nil) != onlyA {
					t.Errorf("family %s: key %+v has the wrong sides", f.Family, k)
				}
				if k.Unreadable != w.firstIn {
					t.Errorf("family %s: key unreadable in %q, want %q", f.Family, k.Unreadable, w.firstIn)
				}
				for side, v := range map[string]*Value{"a": k.A, "b": k.B} {
					failed := w.firstIn == side || w.firstIn == "both"
					if v != nil && (v.Error != "") != failed {
						t.Errorf("family %s: side %s %+v, failed %v", f.Family, side, v, failed)
					}
				}
			}
			if res.OnlyA != sumA || res.OnlyB != sumB || res.Changed != sumC || res.Unreadable != sumU {
				t.Errorf("totals %d/%d/%d/%d, families sum to %d/%d/%d/%d", res.OnlyA, res.OnlyB, res.Changed, res.Unreadable, sumA, sumB, sumC, sumU)
			}
			if (res.Unreadable > 0) != (res.FirstUnreadable != nil) || (res.FirstUnreadable != nil && !errors.Is(res.FirstUnreadable, rocks.ErrCorrupt)) {
				t.Errorf("%d unreadable, first failure %v (want one classed corrupt)", res.Unreadable, res.FirstUnreadable)
			}
			if res.A.Keys == 0 || res.B.Keys == 0 {
				t.Errorf("keys read: A %d, B %d", res.A.Keys, res.B.Keys)
			}
		})
	}
}

// fixtureDir writes the committed fixture's history (seed 1, format f) into
// a new directory.
func fixtureDir(t *testing.T, f uint32) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "store")
	if _, err := fixture.Generate(context.Background(), dir, fixture.Options{Format: f, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Two runs of the same seed write the same keys and values into files that
// differ byte for byte (RocksDB stamps every table with its session and
// file ids): diff says they are equal. One counter changed afterwards, by a
// merge operand as a node writes one, is exactly one changed key.
func TestDiffFixtureRuns(t *testing.T) {
	a, b := fixtureDir(t, format.Format3), fixtureDir(t, format.Format3)
	tables := func(dir string) map[string][]byte {
		m := map[string][]byte{}
		names, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
		for _, n := range names {
			data, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			m[filepath.Base(n)] = data
		}
		return m
	}
	ta, tb := tables(a), tables(b)
	if len(ta) == 0 || len(tb) == 0 {
		t.Fatalf("no table files: %d in A, %d in B", len(ta), len(tb))
	}
	for na, da := range ta {
		for nb, db := range tb {
			if bytes.Equal(da, db) {
				t.Fatalf("table %s of run 1 is byte for byte table %s of run 2: the runs do not show what they should", na, nb)
			}
		}
	}

	res, err := Stores(context.Background(), storetest.OpenReadOnly(t, a), storetest.OpenReadOnly(t, b), Options{Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Equal || len(res.Families) != 0 || res.A.Keys != res.B.Keys || res.A.Keys < 1000 {
		t.Fatalf("two runs of one seed differ: %+v", res)
	}

	// One counter of B: a merge operand of +1 on the first tenant counter.
	var key, before []byte
	stB, err := rocks.OpenStore(b, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	err = stB.Scan(format.CFCounters, format.CounterKeyBytes(format.FirstOrd, format.FieldPending), nil, rocks.ReadOpts{}, func(k, v []byte) error {
		key, before = bytes.Clone(k), bytes.Clone(v)
		return rocks.Stop
	})
	if err != nil || key == nil {
		t.Fatalf("no counter to change: %v", err)
	}
	w := storetest.NewWriter(format.Format3)
	w.B = rocks.NewBatch() // only the operand: no sentinels, no m:next_ord
	w.B.Merge(format.CFCounters, key, format.EncodeCounterOperand(1))
	if err := stB.Write(w.B, true); err != nil {
		t.Fatal(err)
	}
	if err := stB.Close(); err != nil {
		t.Fatal(err)
	}
	res, err = Stores(context.Background(), storetest.OpenReadOnly(t, a), storetest.OpenReadOnly(t, b), Options{Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	if res.Equal || res.OnlyA != 0 || res.OnlyB != 0 || res.Changed != 1 || len(res.Families) != 1 {
		t.Fatalf("want exactly one changed counter, got %+v", res)
	}
	f := res.Families[0]
	if f.CF != format.CFCounters || len(f.Keys) != 1 || f.Keys[0].Key != hex.EncodeToString(key) {
		t.Fatalf("want the counter %x, got %+v", key, f)
	}
	va, _ := format.DecodeCounterValue(before)
	if k := f.Keys[0]; k.A == nil || k.B == nil || k.A.ValueHex != hex.EncodeToString(before) ||
		k.B.ValueHex != hex.EncodeToString(format.EncodeCounterValue(va+1)) {
		t.Errorf("values %+v / %+v, want %d then %d", k.A, k.B, va, va+1)
	}
}

// A counter is its merged value, compared as a number: the same count written
// as one value in another integer encoding is no difference.
func TestDiffCountersAsNumbers(t *testing.T) {
	side := func(encode func(int64) []byte) *rocks.Store {
		s := storetest.NewQueue(t, format.Format3)
		diffBase(s)
		s.Commit()
		s.Raw(format.CFCounters, format.CounterKeyBytes(s.Ord("acme"), format.FieldArchivePending), encode(7))
		return s.Open()
	}
	// INTEGER_EXT (98) for a value SMALL_INTEGER_EXT (97) holds: what another
	// writer may write, and what the merge operator reads the same.
	wide := func(v int64) []byte { return []byte{131, 98, 0, 0, 0, byte(v)} }
	if got, err := format.DecodeCounterValue(wide(7)); err != nil || got != 7 {
		t.Fatalf("the wide encoding of 7 decodes as %d, %v", got, err)
	}
	if bytes.Equal(wide(7), format.EncodeCounterValue(7)) {
		t.Fatal("the two encodings are the same bytes: the test shows nothing")
	}
	res, err := Stores(context.Background(), side(format.EncodeCounterValue), side(wide), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Equal {
		t.Fatalf("one count in two encodings differs: %+v", res.Families)
	}
}

// Format 2 against format 3 (the committed pair, one seed): the families only
// format 3 has are only in B, and the notes say which column families.
func TestDiffFormats(t *testing.T) {
	a := storetest.OpenReadOnly(t, storetest.Extract(t, "store-v2.tar.zst"))
	b := storetest.OpenReadOnly(t, storetest.Extract(t, "store-v3.tar.zst"))
	res, err := Stores(context.Background(), a, b, Options{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Equal || res.A.Format != 2 || res.B.Format != 3 {
		t.Fatalf("result %+v", res)
	}
	fams := map[string]Family{}
	for _, f := range res.Families {
		fams[f.CF+"/"+f.Family] = f
		if len(f.Keys) > 1 || int64(len(f.Keys))+f.Omitted != f.OnlyA+f.OnlyB+f.Changed {
			t.Errorf("%s/%s: %d kept and %d omitted of %d", f.CF, f.Family, len(f.Keys), f.Omitted, f.OnlyA+f.OnlyB+f.Changed)
		}
	}
	for _, name := range []string{"tenants/tenant_by_ord", "counters/counters", "index/due", "index/dead_by_tenant"} {
		if f, ok := fams[name]; !ok || f.OnlyB == 0 || f.OnlyA != 0 {
			t.Errorf("%s: %+v, want keys only in B", name, f)
		}
	}
	if f := fams["index/due_v2"]; f.OnlyA == 0 || f.OnlyB != 0 {
		t.Errorf("index/due_v2: %+v, want keys only in A", f)
	}
	if f := fams["default/meta"]; f.Changed == 0 {
		t.Errorf("default/meta: %+v, want m:format changed", f)
	}
	var noted int
	for _, n := range res.Notes {
		if strings.Contains(n.Text, "is only in B") {
			noted++
		}
	}
	if noted != 2 {
		t.Errorf("notes %+v, want the two column families only format 3 has", res.Notes)
	}
}

// diffSameValue never calls two reads the same when one or both failed: a failed read has
// no value (nil V on both sides would be bytes-equal) and RocksDB's text is the same for
// every failed merge. column does not ask it then (diffChange has made the key
// unreadable); this holds the function to its own word, whatever calls it.
func TestDiffSameValueNeverForFailedReads(t *testing.T) {
	merge := errors.New("Corruption: Merge operator failed")
	k := format.CounterKeyBytes(1, format.FieldPending)
	for _, cf := range []string{format.CFCounters, format.CFHooks} {
		for _, tc := range []struct{ a, b walk.Entry }{
			{walk.Entry{K: k, Err: merge}, walk.Entry{K: k, Err: merge}},
			{walk.Entry{K: k, Err: merge}, walk.Entry{K: k, Err: errors.New("IO error")}},
			{walk.Entry{K: k, Err: merge}, walk.Entry{K: k}},
			{walk.Entry{K: k, V: []byte{131, 97, 1}, Err: merge}, walk.Entry{K: k, V: []byte{131, 97, 1}}},
		} {
			if diffSameValue(cf, &tc.a, &tc.b) || diffSameValue(cf, &tc.b, &tc.a) {
				t.Errorf("%s: %v and %v: the same value", cf, tc.a.Err, tc.b.Err)
			}
		}
	}
	a, b := walk.Entry{K: k, V: []byte{131, 97, 1}}, walk.Entry{K: k, V: []byte{131, 98, 0, 0, 0, 1}}
	if !diffSameValue(format.CFCounters, &a, &b) {
		t.Error("one counter in two spellings: not the same")
	}
}
