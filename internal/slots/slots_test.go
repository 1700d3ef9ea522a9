package slots

import (
	"errors"
	"testing"

	"pgregory.net/rapid"
)

// small makes every path run on a few records: buckets of 8 numbers, buffers of two
// records, a few chunks in memory and the rest in the file.
var small = Limits{BucketBits: 3, BufTotal: 64, BufLeast: 32, BufMost: 32, SpillAfter: 96}

// A table answers each number with what was put for it, and none where nothing was, the
// records put in any order, spilled or not, narrow or wide (rapid, against a map).
func TestTableIsAMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.Uint64Range(0, 200).Draw(t, "n")
		wide := rapid.Bool().Draw(t, "wide")
		lim := small
		if rapid.Bool().Draw(t, "in memory") {
			lim.SpillAfter = 1 << 20
		}
		tb := New("test answers", n, wide, lim)
		defer tb.Close()
		type rec struct {
			a uint32
			b uint64
		}
		want := map[uint64]rec{}
		if n > 0 {
			for _, i := range rapid.Permutation(rapid.SliceOfNDistinct(rapid.Uint64Range(0, n-1), 0, int(n), rapid.ID).Draw(t, "numbers")).Draw(t, "order") {
				r := rec{a: rapid.Uint32().Draw(t, "a")}
				if wide {
					r.b = rapid.Uint64().Draw(t, "b")
				}
				want[i] = r
				tb.Put(i, r.a, r.b)
			}
		}
		if err := tb.Finish(); err != nil {
			t.Fatal(err)
		}
		if lim.SpillAfter == small.SpillAfter && len(want) > 40 && tb.Spilled() == 0 {
			t.Fatalf("%d records, none spilled", len(want))
		}
		rd := tb.Reader()
		for i := range n + 3 {
			a, b, ok, err := rd.Get(i)
			if err != nil {
				t.Fatal(err)
			}
			w, put := want[i]
			if ok != put || ok && (a != w.a || b != w.b) {
				t.Fatalf("number %d: got (%d, %d, %v), want (%d, %d, %v)", i, a, b, ok, w.a, w.b, put)
			}
		}
	})
}

// A number put twice is the reader's error (a join that answered a row twice), and so is a
// number asked after its bucket was left.
func TestTableRefusesWhatIsNotAnAnswer(t *testing.T) {
	tb := New("test answers", 100, false, small)
	defer tb.Close()
	tb.Put(5, 1, 0)
	tb.Put(70, 1, 0)
	tb.Put(5, 2, 0)
	if err := tb.Finish(); err != nil {
		t.Fatal(err)
	}
	rd := tb.Reader()
	if _, _, _, err := rd.Get(5); !errors.Is(err, errTwice) {
		t.Fatalf("a number put twice: %v, want %v", err, errTwice)
	}
	tb2 := New("test answers", 100, false, small)
	defer tb2.Close()
	tb2.Put(5, 1, 0)
	tb2.Put(70, 1, 0)
	if err := tb2.Finish(); err != nil {
		t.Fatal(err)
	}
	rd = tb2.Reader()
	if _, _, ok, err := rd.Get(70); !ok || err != nil {
		t.Fatalf("number 70: %v, %v", ok, err)
	}
	if _, _, _, err := rd.Get(5); err == nil {
		t.Fatal("number 5 asked after its bucket was left: no error")
	}
}

// The memory a table holds is its buffers and its chunks in memory, not its records: a
// million records put and read through small limits hold a few KiB.
func TestTableHoldsItsLimits(t *testing.T) {
	lim := Limits{BucketBits: 12, BufTotal: 16 << 10, BufLeast: 1 << 10, BufMost: 4 << 10, SpillAfter: 64 << 10}
	const n = 1 << 20
	tb := New("test answers", n, true, lim)
	defer tb.Close()
	for i := uint64(0); i < n; i++ {
		j := (i * 0x9E3779B97F4A7C15) % n // every number once, out of order
		tb.Put(j, uint32(j), j)
		if h := tb.Held(); h > 256<<10+lim.SpillAfter {
			t.Fatalf("after %d records the table holds %d bytes", i, h)
		}
	}
	if err := tb.Finish(); err != nil {
		t.Fatal(err)
	}
	rd := tb.Reader()
	for i := uint64(0); i < n; i++ {
		a, b, ok, err := rd.Get(i)
		if err != nil || !ok || a != uint32(i) || b != i {
			t.Fatalf("number %d: (%d, %d, %v, %v)", i, a, b, ok, err)
		}
	}
	if h := rd.Held(); h > 1<<20 {
		t.Fatalf("the reader holds %d bytes", h)
	}
}
