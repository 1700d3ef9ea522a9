package health

import (
	"bytes"
	"math"
	"math/bits"
	"testing"

	"pgregory.net/rapid"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
)

// A flush applies every add held, once, grouped by ordinal whatever their
// spread (ordinals up to 2^32-1 share the groups), and leaves the batch empty
// for the next.
func TestOrdAddsApplyEveryAddOnce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var a ordAdds
		want := map[uint32]uint64{}
		spread := rapid.SampledFrom([]uint32{10, 1 << 12, 1 << 20, math.MaxUint32}).Draw(t, "spread")
		for round := range rapid.IntRange(1, 3).Draw(t, "rounds") {
			var top uint32
			for _, ord := range rapid.SliceOf(rapid.Uint32Range(0, spread)).Draw(t, "ords") {
				n := rapid.Uint32().Draw(t, "amount")
				a.add(ord, n)
				want[ord] += uint64(n)
				top = max(top, ord)
			}
			shift := max(ordAddsGroupBits, bits.Len32(top)-bits.Len32(ordAddsMaxGroups-1))
			got := map[uint32]uint64{}
			lastGroup := -1
			a.flush(func(ord, n uint32) {
				got[ord] += uint64(n)
				// Grouped: a group's adds come together, in group order.
				g := int(ord >> shift)
				if g < lastGroup {
					t.Fatalf("round %d: ordinal %d (group %d) after group %d", round, ord, g, lastGroup)
				}
				lastGroup = g
			})
			for ord, n := range want {
				if got[ord] != n {
					t.Fatalf("round %d: ordinal %d got %d, want %d", round, ord, got[ord], n)
				}
			}
			if len(got) != len(want) || len(a.recs) != 0 {
				t.Fatalf("round %d: %d ordinals applied of %d, %d adds left", round, len(got), len(want), len(a.recs))
			}
			clear(want)
		}
	})
}

// The dead and archive rows' counts and the dead rows' sizes are applied a
// batch at a time: batches of one, two or three adds (every add applied at
// once, and batches that end mid-tenant) report what the default does.
func TestVerifyOrdAddBatchesDoNotChangeTheReport(t *testing.T) {
	for _, name := range []string{"verify-faults", "verify-counters"} {
		dir := storetest.Extract(t, "health/"+name+".tar.zst")
		want := vtReportBytes(t, dir, nil)
		for _, n := range []int{1, 2, 3} {
			sz := tunedSizes()
			sz.ordAdds = n
			if got := vtReportBytes(t, dir, sz); !bytes.Equal(got, want) {
				t.Errorf("%s: with batches of %d\n%s\nwant\n%s", name, n, got, want)
			}
		}
	}
}
