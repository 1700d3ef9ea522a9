package losers

import (
	"cmp"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// Merging sorted sources by the tree reads every element once, in order, the earlier
// source first among equal elements: the stable sort of them all. Every count of sources
// up to 70 (no power of two, leaves on two levels), empty sources among them.
func TestTreeMergesAsAStableSort(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		srcs := rapid.SliceOfN(rapid.SliceOf(rapid.IntRange(0, 20)), 0, 70).Draw(t, "sources")
		var want []sourced[int]
		for i, s := range srcs {
			slices.Sort(s)
			for _, v := range s {
				want = append(want, sourced[int]{v, i})
			}
		}
		slices.SortStableFunc(want, func(a, b sourced[int]) int { return cmp.Compare(a.e, b.e) })
		pos := make([]int, len(srcs))
		less := atPos(srcs, pos, cmp.Compare[int])
		var tr Tree
		tr.Build(len(srcs), less)
		if tr.Len() != len(srcs) {
			t.Fatalf("Len %d over %d sources", tr.Len(), len(srcs))
		}
		got := drain(srcs, pos, tr.Len, tr.Winner, func(int32) { tr.Replay(less) })
		if !slices.Equal(got, want) {
			t.Fatalf("merged %v, want %v", got, want)
		}
	})
}

// The keyed tree merges as the tree does: elements of two words and a third, keys drawn
// from a few values so that most matches are ties the caller settles (rapid).
func TestKeyedMergesAsAStableSort(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		type elem [3]uint64
		word := rapid.SampledFrom([]uint64{0, 1, 2, ^uint64(0)})
		srcs := rapid.SliceOfN(rapid.SliceOf(rapid.Custom(func(t *rapid.T) elem {
			return elem{word.Draw(t, "w0"), word.Draw(t, "w1"), word.Draw(t, "w2")}
		})), 0, 70).Draw(t, "sources")
		var want []sourced[elem]
		for i, s := range srcs {
			slices.SortFunc(s, func(a, b elem) int { return slices.Compare(a[:], b[:]) })
			for _, e := range s {
				want = append(want, sourced[elem]{e, i})
			}
		}
		slices.SortStableFunc(want, func(a, b sourced[elem]) int { return slices.Compare(a.e[:], b.e[:]) })
		pos := make([]int, len(srcs))
		var tr Keyed
		key := func(i int) [2]uint64 {
			if pos[i] == len(srcs[i]) {
				return ReadPast
			}
			e := srcs[i][pos[i]]
			return [2]uint64{e[0], e[1]}
		}
		// The keys equal: the third words, then the sources.
		tie := atPos(srcs, pos, func(x, y elem) int { return cmp.Compare(x[2], y[2]) })
		for i := range srcs {
			tr.Keys = append(tr.Keys, key(i))
		}
		tr.Build(tie)
		if tr.Len() != len(srcs) {
			t.Fatalf("Len %d over %d sources", tr.Len(), len(srcs))
		}
		got := drain(srcs, pos, tr.Len, tr.Winner, func(w int32) {
			tr.Keys[w] = key(int(w))
			tr.Replay(tie)
		})
		if !slices.Equal(got, want) {
			t.Fatalf("merged %v, want %v", got, want)
		}
	})
}

// atPos orders two sources by their elements at pos (cmp), then by their indexes; a source
// read past comes after every other.
func atPos[E any](srcs [][]E, pos []int, cmp func(x, y E) int) func(a, b int32) bool {
	return func(a, b int32) bool {
		sa, sb := srcs[a], srcs[b]
		switch {
		case pos[a] == len(sa):
			return false
		case pos[b] == len(sb):
			return true
		}
		if c := cmp(sa[pos[a]], sb[pos[b]]); c != 0 {
			return c < 0
		}
		return a < b
	}
}

// sourced is an element a merge read and the source it came from.
type sourced[E any] struct {
	e   E
	src int
}

// drain reads srcs (each at pos) in the order a tree gives them, until its winner is read
// past: advance moves on the source the winner's element came from, after pos has.
func drain[E any](srcs [][]E, pos []int, n func() int, winner func() int32, advance func(w int32)) []sourced[E] {
	var got []sourced[E]
	for n() > 0 {
		w := winner()
		if pos[w] == len(srcs[w]) {
			break
		}
		got = append(got, sourced[E]{srcs[w][pos[w]], int(w)})
		pos[w]++
		advance(w)
	}
	return got
}

// A tree built again over fewer sources forgets the ones before.
func TestTreeBuiltAgain(t *testing.T) {
	var tr Tree
	tr.Build(5, func(a, b int32) bool { return a > b })
	if tr.Winner() != 4 {
		t.Fatalf("winner %d, want 4", tr.Winner())
	}
	tr.Build(2, func(a, b int32) bool { return a < b })
	if tr.Len() != 2 || tr.Winner() != 0 {
		t.Fatalf("rebuilt over 2: Len %d, winner %d", tr.Len(), tr.Winner())
	}
	tr.Build(0, nil)
	if tr.Len() != 0 {
		t.Fatalf("rebuilt over none: Len %d", tr.Len())
	}
}
