package health

import (
	"cmp"
	"slices"
	"testing"

	"github.com/ankusa/ankusa-store/internal/radix"

	"pgregory.net/rapid"
)

// radixSort sorts dead rows as a stable comparison sort by (seq, sink)
// does, whichever bytes of the keys vary.
func TestRadixSortIsAStableSort(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		seq := rapid.OneOf(rapid.Uint64Range(0, 5), rapid.Uint64Range(0, 1<<48-1), rapid.Uint64Range(1<<40, 1<<40+300))
		rows := rapid.SliceOf(rapid.Custom(func(t *rapid.T) deadRow {
			return deadRow{seq: seq.Draw(t, "seq"), sink: rapid.Uint16().Draw(t, "sink"), ord: rapid.Uint32().Draw(t, "ord")}
		})).Draw(t, "rows")
		want := slices.Clone(rows)
		slices.SortStableFunc(want, func(a, b deadRow) int {
			if c := cmp.Compare(a.seq, b.seq); c != 0 {
				return c
			}
			return cmp.Compare(a.sink, b.sink)
		})
		var tmp []deadRow
		if rapid.Bool().Draw(t, "scratch") {
			tmp = make([]deadRow, rapid.IntRange(0, 2*len(rows)).Draw(t, "scratch size"))
		}
		radix.Sort(rows, tmp, deadKey)
		if !slices.Equal(rows, want) {
			t.Fatalf("sorted to %v, want %v", rows, want)
		}
	})
}

// radixSort sorts markers' keys as slices.Sort does.
func TestRadixSortMarkerKeys(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.OneOf(rapid.Uint64Range(0, 9), rapid.Uint64(), rapid.Uint64Range(1<<60, 1<<60+1000))
		keys := rapid.SliceOf(k).Draw(t, "keys")
		want := slices.Clone(keys)
		slices.Sort(want)
		radix.Sort(keys, nil, u64Key)
		if !slices.Equal(keys, want) {
			t.Fatalf("sorted to %v, want %v", keys, want)
		}
	})
}
