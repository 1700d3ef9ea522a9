package rocks

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
)

func dueKey(ord uint32, at, seq uint64) []byte {
	k := []byte{'D'}
	k = binary.BigEndian.AppendUint32(k, ord)
	k = binary.BigEndian.AppendUint64(k, at)
	k = binary.BigEndian.AppendUint64(k, seq)
	return binary.BigEndian.AppendUint16(k, 1)
}

func TestFold(t *testing.T) {
	dir := t.TempDir() + "/store"
	newStore(t, dir, format.FamDue, format.FamInflight, format.FamDead)
	db := mustOpen(t, dir, Options{Mode: ReadWrite})
	const n = 10000
	var want [][]byte
	mustWrite(t, db, func(b *Batch) {
		for i := 0; i < n; i++ {
			k := dueKey(uint32(i%7+1), uint64(i), uint64(i))
			want = append(want, k)
			b.Put(format.CFIndex, k, []byte{0, 0, 0, byte(i), 0})
		}
		// Neighbours of the family must not be folded.
		b.Put(format.CFIndex, []byte("C"), nil)
		b.Put(format.CFIndex, []byte("E"), nil)
	})
	bytesSort(want)
	for _, flush := range []bool{false, true} {
		if flush {
			if err := db.Flush(format.CFIndex); err != nil {
				t.Fatal(err)
			}
		}
		var got [][]byte
		err := db.Fold(format.FamDue, ReadOpts{}, func(k, v []byte) error {
			got = append(got, bytes.Clone(k))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != n {
			t.Fatalf("fold saw %d keys, want %d", len(got), n)
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("key %d: %x, want %x", i, got[i], want[i])
			}
		}
	}
	// An empty family folds to nothing.
	calls := 0
	if err := db.Fold(format.FamInflight, ReadOpts{}, func(k, v []byte) error { calls++; return nil }); err != nil || calls != 0 {
		t.Fatalf("empty fold: %d calls, %v", calls, err)
	}
	// Stop ends early without error; other errors come back as they are.
	calls = 0
	if err := db.Fold(format.FamDue, ReadOpts{}, func(k, v []byte) error { calls++; return Stop }); err != nil || calls != 1 {
		t.Fatalf("stop: %d calls, %v", calls, err)
	}
	mine := errors.New("mine")
	if err := db.Fold(format.FamDue, ReadOpts{}, func(k, v []byte) error { return mine }); err != mine {
		t.Fatalf("callback error: %v", err)
	}
}

func bytesSort(s [][]byte) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && bytes.Compare(s[j-1], s[j]) > 0; j-- {
			s[j-1], s[j] = s[j], s[j-1]
		}
	}
}

func TestFoldCutShort(t *testing.T) {
	for _, missing := range []string{"hi", "lo", "both"} {
		t.Run(missing, func(t *testing.T) {
			dir := t.TempDir() + "/store"
			newStore(t, dir, format.FamDue, format.FamDead)
			db := mustOpen(t, dir, Options{Mode: ReadWrite})
			mustWrite(t, db, func(b *Batch) {
				b.Put(format.CFIndex, dueKey(1, 1, 1), []byte{0, 0, 0, 1, 0})
				if missing != "lo" {
					b.Delete(format.CFIndex, format.FamDue.Hi)
				}
				if missing != "hi" {
					b.Delete(format.CFIndex, format.FamDue.Lo)
				}
			})
			err := db.Fold(format.FamDue, ReadOpts{}, func(k, v []byte) error { return nil })
			var cs *CutShortError
			if !errors.As(err, &cs) || !errors.Is(err, ErrCorrupt) || cs.Family != "due" || !strings.Contains(err.Error(), "family due") {
				t.Fatalf("err = %v", err)
			}
			wantMissing := missing
			if missing == "both" {
				wantMissing = "lo"
			}
			if cs.Missing != wantMissing {
				t.Fatalf("missing %q, want %q (%v)", cs.Missing, wantMissing, err)
			}
			t.Log(err)
			// The neighbouring family is unaffected.
			if err := db.Fold(format.FamDead, ReadOpts{}, func(k, v []byte) error { return nil }); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Entries bigger than the batch buffer, mixed with small ones.
func TestScanLargeEntries(t *testing.T) {
	dir := t.TempDir() + "/store"
	newStore(t, dir)
	db := mustOpen(t, dir, Options{Mode: ReadWrite})
	sizes := []int{0, 10, fillBufSize, 10, fillBufSize*3 + 7, 1, fillBufSize - 8 - 4, 5}
	val := func(i, n int) []byte { return bytes.Repeat([]byte{byte('a' + i)}, n) }
	mustWrite(t, db, func(b *Batch) {
		for i, n := range sizes {
			b.Put(format.CFHooks, []byte(fmt.Sprintf("k%02d", i)), val(i, n))
		}
	})
	for _, reverse := range []bool{false, true} {
		i := 0
		if reverse {
			i = len(sizes) - 1
		}
		fn := func(k, v []byte) error {
			if string(k) != fmt.Sprintf("k%02d", i) || !bytes.Equal(v, val(i, sizes[i])) {
				t.Fatalf("entry %d: key %q, %d bytes", i, k, len(v))
			}
			if reverse {
				i--
			} else {
				i++
			}
			return nil
		}
		var err error
		if reverse {
			err = db.ScanReverse(format.CFHooks, nil, nil, ReadOpts{}, fn)
		} else {
			err = db.Scan(format.CFHooks, nil, nil, ReadOpts{}, fn)
		}
		if err != nil {
			t.Fatal(err)
		}
		if (!reverse && i != len(sizes)) || (reverse && i != -1) {
			t.Fatalf("reverse=%v: stopped at %d", reverse, i)
		}
	}
}

func TestScanBoundsAndSnapshot(t *testing.T) {
	dir := t.TempDir() + "/store"
	newStore(t, dir)
	db := mustOpen(t, dir, Options{Mode: ReadWrite})
	mustWrite(t, db, func(b *Batch) {
		for _, k := range []string{"a", "b", "b1", "c", "d"} {
			b.Put(format.CFAudit, []byte(k), []byte("v"+k))
		}
	})
	snap, err := db.NewSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Release()
	mustWrite(t, db, func(b *Batch) {
		b.Put(format.CFAudit, []byte("b2"), nil)
		b.DeleteRange(format.CFAudit, []byte("c"), []byte("e"))
	})
	collect := func(lo, hi string, ro ReadOpts, reverse bool) string {
		var out []string
		var l, h []byte
		if lo != "" {
			l = []byte(lo)
		}
		if hi != "" {
			h = []byte(hi)
		}
		fn := func(k, v []byte) error { out = append(out, string(k)); return nil }
		var err error
		if reverse {
			err = db.ScanReverse(format.CFAudit, l, h, ro, fn)
		} else {
			err = db.Scan(format.CFAudit, l, h, ro, fn)
		}
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(out, ",")
	}
	for _, c := range []struct {
		lo, hi  string
		snap    bool
		reverse bool
		want    string
	}{
		{"", "", false, false, "a,b,b1,b2"},
		{"b", "c", false, false, "b,b1,b2"},
		{"b", "c", false, true, "b2,b1,b"},
		{"b", "b1", false, true, "b"},
		{"", "", true, false, "a,b,b1,c,d"},
		{"", "", true, true, "d,c,b1,b,a"},
		{"a0", "c", true, true, "b1,b"},
		{"c", "d", true, false, "c"},
	} {
		ro := ReadOpts{}
		if c.snap {
			ro.Snap = snap
		}
		if got := collect(c.lo, c.hi, ro, c.reverse); got != c.want {
			t.Errorf("[%q,%q) snap=%v reverse=%v: %s, want %s", c.lo, c.hi, c.snap, c.reverse, got, c.want)
		}
	}
	if v, ok, err := db.GetOpts(format.CFAudit, []byte("c"), ReadOpts{Snap: snap}); err != nil || !ok || string(v) != "vc" {
		t.Fatalf("snapshot get: %q %v %v", v, ok, err)
	}
	if _, ok, _ := db.Get(format.CFAudit, []byte("c")); ok {
		t.Fatal("c should be deleted")
	}
	if err := db.Scan("nope", nil, nil, ReadOpts{}, nil); !errors.Is(err, ErrNoFamily) {
		t.Fatalf("unknown family: %v", err)
	}
}

func TestMultiGet(t *testing.T) {
	dir := t.TempDir() + "/store"
	newStore(t, dir)
	db := mustOpen(t, dir, Options{Mode: ReadWrite})
	mustWrite(t, db, func(b *Batch) {
		for i := 0; i < 100; i += 2 {
			b.Put(format.CFHooks, []byte{byte(i)}, bytes.Repeat([]byte{byte(i)}, i))
		}
	})
	var keys [][]byte
	for i := 99; i >= 0; i-- {
		keys = append(keys, []byte{byte(i)})
	}
	keys = append(keys, []byte{4}) // duplicates are fine
	vals, found, err := db.MultiGet(format.CFHooks, keys)
	if err != nil {
		t.Fatal(err)
	}
	for j, k := range keys {
		i := int(k[0])
		if found[j] != (i%2 == 0) || (found[j] && !bytes.Equal(vals[j], bytes.Repeat([]byte{byte(i)}, i))) {
			t.Fatalf("key %d: found=%v val=%v", i, found[j], vals[j])
		}
		if !found[j] && vals[j] != nil {
			t.Fatalf("key %d: not found but value %v", i, vals[j])
		}
	}
	if v, f, err := db.MultiGet(format.CFHooks, nil); err != nil || len(v) != 0 || len(f) != 0 {
		t.Fatal("empty multiget")
	}
}
