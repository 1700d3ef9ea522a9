package health

import "math/bits"

// The dead rows come by time and the archive rows by sequence, so each one
// adds to the ordState of a tenant picked at random: at 10^6 tenants the
// table is 64 MB, and every add was a cache miss (a fifth of verify's own
// work on a store of 10^7 rows). ordAdds holds such adds instead, a word
// each, and applies them a batch at a time grouped by ordinal, so that the
// states they touch are read a few hundred kilobytes at a time. Sums do not
// care in which order they are made.

// ordAddsGroupBits is the size of a group's ordinals, 2^12 ordStates: 256
// KiB, about what a core's own cache holds.
const ordAddsGroupBits = 12

// ordAddsMaxGroups bounds the groups (and the counts a flush keeps): ordinals
// spread wider share them.
const ordAddsMaxGroups = 1 << 10

// ordAdds is a batch of adds of one amount each to ordinals' states.
type ordAdds struct {
	recs []uint64 // ord<<32 | amount
	tmp  []uint64
	max  uint32 // the largest ordinal held
	// batch is the adds held before they are applied (sizes.ordAdds).
	batch int
}

// add holds an add of amount to ord; full reports that the batch should be
// applied.
func (a *ordAdds) add(ord, amount uint32) (full bool) {
	if a.recs == nil {
		a.recs = make([]uint64, 0, a.batch)
	}
	a.recs = append(a.recs, uint64(ord)<<32|uint64(amount))
	a.max = max(a.max, ord)
	return len(a.recs) >= a.batch
}

// flush applies every add held, grouped by ordinal (a counting sort on the
// ordinal's high bits), and empties the batch.
func (a *ordAdds) flush(apply func(ord, amount uint32)) {
	if len(a.recs) == 0 {
		return
	}
	shift := max(ordAddsGroupBits, bits.Len32(a.max)-bits.Len32(ordAddsMaxGroups-1))
	var at [ordAddsMaxGroups + 1]int
	for _, r := range a.recs {
		at[1+r>>(32+shift)]++
	}
	for g := 1; g < len(at); g++ {
		at[g] += at[g-1]
	}
	if cap(a.tmp) < len(a.recs) {
		a.tmp = make([]uint64, len(a.recs))
	}
	tmp := a.tmp[:len(a.recs)]
	for _, r := range a.recs {
		g := r >> (32 + shift)
		tmp[at[g]] = r
		at[g]++
	}
	for _, r := range tmp {
		apply(uint32(r>>32), uint32(r))
	}
	a.recs, a.max = a.recs[:0], 0
}

// free lets the batch's memory go.
func (a *ordAdds) free() { *a = ordAdds{batch: a.batch} }
