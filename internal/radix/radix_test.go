package radix

import (
	"cmp"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// Sort is a stable sort by the key, whichever of the key's bytes vary, with
// any scratch it is given.
func TestSortIsAStableSort(t *testing.T) {
	type elem struct{ key, at uint64 }
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.OneOf(rapid.Uint64Range(0, 9), rapid.Uint64(), rapid.Uint64Range(1<<60, 1<<60+1000))
		keys := rapid.SliceOf(k).Draw(t, "keys")
		s := make([]elem, len(keys))
		for i, key := range keys {
			s[i] = elem{key, uint64(i)}
		}
		want := slices.Clone(s)
		slices.SortStableFunc(want, func(a, b elem) int { return cmp.Compare(a.key, b.key) })
		var tmp []elem
		if rapid.Bool().Draw(t, "scratch") {
			tmp = make([]elem, rapid.IntRange(0, 2*len(s)).Draw(t, "scratch size"))
		}
		Sort(s, tmp, func(e *elem) uint64 { return e.key })
		if !slices.Equal(s, want) {
			t.Fatalf("sorted to %v, want %v", s, want)
		}
	})
}
