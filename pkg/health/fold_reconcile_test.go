package health

import (
	"maps"
	"math/rand"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// reconDiff is the exact multiset difference, the oracle of the tests.
func reconDiff(sides [2][]reconElem) map[reconElem]int64 {
	m := map[reconElem]int64{}
	for side, els := range sides {
		for _, e := range els {
			m[e] += int64(1 - 2*side)
		}
	}
	maps.DeleteFunc(m, func(_ reconElem, n int64) bool { return n == 0 })
	return m
}

func reconItems(items []reconItem) map[reconElem]int64 {
	m := map[reconElem]int64{}
	for _, it := range items {
		m[it.E] += it.N
	}
	return m
}

// reconRun fills a table from both sides, peels it and, when peeling stalls,
// finishes with reconExact over the same elements.
func reconRun(t interface{ Fatal(...any) }, words, logCells int, sides [2][]reconElem) (map[reconElem]int64, bool) {
	return reconRunSplit(t, words, logCells, tunedSizes().reconBudget, sides, 0)
}

// reconRunSplit is reconRun with the sides' first split elements added to a
// table of their own and merged, as verify's scans running apart fill theirs.
func reconRunSplit(t interface{ Fatal(...any) }, words, logCells, budget int, sides [2][]reconElem, split int) (map[reconElem]int64, bool) {
	tab, apart := newReconTable(words, logCells, budget), newReconTable(words, logCells, budget)
	for side, els := range sides {
		for i := range els {
			if i < split {
				apart.add(side, &els[i])
			} else {
				tab.add(side, &els[i])
			}
		}
	}
	tab.merge(apart)
	items, ok := tab.peel()
	if ok {
		return reconItems(items), true
	}
	items, err := tab.reconExact(items, func(emit func(int, *reconElem)) error {
		for side, els := range sides {
			for i := range els {
				emit(side, &els[i])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return reconItems(items), false
}

func genElem(words int) *rapid.Generator[reconElem] {
	return rapid.Custom(func(t *rapid.T) reconElem {
		var e reconElem
		// Mostly few distinct values, so that sides share elements and
		// repeat them; sometimes any, as verify's keys are.
		wide := rapid.IntRange(0, 3).Draw(t, "wide") == 0
		for w := 0; w < words; w++ {
			if wide {
				e[w] = rapid.Uint32().Draw(t, "w")
			} else {
				e[w] = rapid.SampledFrom([]uint32{0, 1, 2, 0xFFFFFFFF, 0x80000000}).Draw(t, "w")
			}
		}
		return e
	})
}

// Whatever the two sides, peel (and reconExact when peel stalls) lists
// exactly their multiset difference, multiplicities included: with a table
// of one cell a partition up to 64, a rescan in one pass or in as many as
// its budget of a few elements needs (verify's with tiny budgets), and
// tables filled apart and merged.
func TestReconTableIsExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		budget := rapid.SampledFrom([]int{1, 2, 4, 1 << 20}).Draw(t, "budget")
		words := rapid.SampledFrom([]int{seqSinkWords, deadWords}).Draw(t, "words")
		logCells := rapid.IntRange(0, 6).Draw(t, "logCells")
		common := rapid.SliceOf(genElem(words)).Draw(t, "common")
		var sides [2][]reconElem
		for s := range sides {
			sides[s] = append(slices.Clone(common), rapid.SliceOf(genElem(words)).Draw(t, "only")...)
			rand.New(rand.NewSource(int64(s))).Shuffle(len(sides[s]), func(i, j int) { sides[s][i], sides[s][j] = sides[s][j], sides[s][i] })
		}
		split := rapid.IntRange(0, len(sides[0])).Draw(t, "split")
		got, _ := reconRunSplit(t, words, logCells, budget, sides, split)
		if want := reconDiff(sides); !maps.Equal(got, want) {
			t.Fatalf("difference %v, want %v", got, want)
		}
	})
}

// A healthy store leaves the table empty: a million elements on each side
// cancel without a cell left over.
func TestReconTableCancels(t *testing.T) {
	tab := newReconTable(deadWords, tunedSizes().reconLogCells, tunedSizes().reconBudget)
	r := rand.New(rand.NewSource(1))
	els := make([]reconElem, 200_000)
	for i := range els {
		els[i] = deadElem(uint32(r.Intn(1000)), r.Uint64()>>1, r.Uint64()>>1, uint16(r.Intn(8)))
	}
	for i := range els {
		tab.add(0, &els[i])
	}
	for _, i := range r.Perm(len(els)) {
		tab.add(1, &els[i])
	}
	if items, ok := tab.peel(); !ok || len(items) != 0 {
		t.Fatalf("peel of equal sides: ok=%v %d items", ok, len(items))
	}
}

// The cases verify meets: a few thousand differences peel without a second
// pass; many more go through reconExact and are still exact; duplicates on
// one side (two index keys for one delivery row) come out with their count.
func TestReconTableDifferences(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	seqs := func(n int) []reconElem {
		out := make([]reconElem, n)
		for i := range out {
			out[i] = seqSinkElem(r.Uint64()>>1, uint16(r.Intn(4)))
		}
		return out
	}
	for _, c := range []struct {
		name       string
		diff       int
		wantPeeled bool
	}{
		{"none", 0, true},
		{"a few", 30, true},
		{"thousands", 6000, true},
		{"more than the table holds", 60_000, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows := seqs(100_000)
			var sides [2][]reconElem
			sides[0] = slices.Clone(rows)
			sides[1] = slices.Clone(rows)
			// Leaks (side 1 only), orphans (side 0 only), duplicates (side 0 twice).
			extra := seqs(c.diff)
			for i, e := range extra {
				switch i % 3 {
				case 0:
					sides[1] = append(sides[1], e)
				case 1:
					sides[0] = append(sides[0], e)
				case 2:
					sides[0] = append(sides[0], rows[i], e)
					sides[1] = append(sides[1], e)
				}
			}
			got, peeled := reconRun(t, seqSinkWords, tunedSizes().reconLogCells, sides)
			if peeled != c.wantPeeled {
				t.Errorf("peeled = %v, want %v", peeled, c.wantPeeled)
			}
			if want := reconDiff(sides); !maps.Equal(got, want) {
				t.Fatalf("%d differences listed, want %d", len(got), len(want))
			}
		})
	}
}

// Two tables filled apart and merged are the table filled at once.
func TestReconTableMerge(t *testing.T) {
	a, b, all := newReconTable(seqSinkWords, 4, tunedSizes().reconBudget), newReconTable(seqSinkWords, 4, tunedSizes().reconBudget), newReconTable(seqSinkWords, 4, tunedSizes().reconBudget)
	for i := uint64(0); i < 50; i++ {
		e := seqSinkElem(i, 1)
		a.add(0, &e)
		all.add(0, &e)
		if i%7 != 0 {
			b.add(1, &e)
			all.add(1, &e)
		}
	}
	a.merge(b)
	if !slices.Equal(a.cells, all.cells) || a.adds != all.adds {
		t.Fatal("merged table differs")
	}
	items, ok := a.peel()
	if !ok || len(items) != 8 {
		t.Fatalf("peel: ok=%v %d items", ok, len(items))
	}
}

func TestReconElemRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		seq, sink := rapid.Uint64().Draw(t, "seq"), rapid.Uint16().Draw(t, "sink")
		if s, k := seqSinkElem(seq, sink).seqSink(); s != seq || k != sink {
			t.Fatalf("seqSink %d %d", s, k)
		}
		ord, at := rapid.Uint32().Draw(t, "ord"), rapid.Uint64().Draw(t, "at")
		if o, a, s, k := deadElem(ord, at, seq, sink).dead(); o != ord || a != at || s != seq || k != sink {
			t.Fatalf("dead %d %d %d %d", o, a, s, k)
		}
	})
}

func BenchmarkReconTableAdd(b *testing.B) {
	tab := newReconTable(seqSinkWords, tunedSizes().reconLogCells, tunedSizes().reconBudget)
	els := make([]reconElem, 1<<16)
	for i := range els {
		els[i] = seqSinkElem(uint64(i)*7919, uint16(i))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tab.add(i&1, &els[i&(len(els)-1)])
	}
}
