package migration

import (
	"github.com/ankusa/ankusa-store/internal/offheap"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// counterSumOrds bounds the ordinals whose counters the bulk method sums as it goes: 9
// bytes a field, 63 MiB at 2^20 tenants (the table grows with the ordinals it meets). A
// tenant past it keeps its operands in the runs, merged at the end as before.
const counterSumOrds = 1 << 20

// counterStride is the slots of one ordinal: its fields are 1 to NumFields.
const counterStride = format.NumFields + 1

// counterSums is what the steps' counter operands come to, key by key, summed as the steps
// hand them over instead of kept in the runs: each step merges one operand per tenant and
// field it touched, 45% of the steps' writes at 10^6 rows over 10^4 tenants, which the runs
// sorted, spilled and merged only for bulkTables to add them up. The node's operator sums
// its operands (no base: the family is new), so the value a key is left with is its sum's
// (rocks.MergeCounter); a key the steps never merged an operand into has none, even where
// its sum would be 0.
type counterSums struct {
	limit uint32 // counterSumOrds, or a test's
	sums  offheap.Slice[int64]
	seen  offheap.Slice[uint8]
}

// take adds a step's operand of key, whose delta d holds, and says whether it did: only for
// a tenant's or the aggregate's unsharded counter (the only ones the steps write) below
// counterSumOrds.
func (c *counterSums) take(key []byte, d *format.Deltas) bool {
	k, err := format.DecodeCounterKey(key)
	if err != nil || k.Shard != format.Unsharded || k.Ord >= c.limit {
		return false
	}
	i := int(k.Ord)*counterStride + int(k.Field)
	c.sums.Extend(i + 1)
	c.seen.Extend(i + 1)
	c.sums.S()[i] += d.Get(k.Ord, k.Field) // wraps, as the operator's sum does
	c.seen.S()[i] = 1
	return true
}

// each calls put with every summed counter's key and merged value.
func (c *counterSums) each(put func(key, val []byte) error) error {
	var key, val []byte
	for i, s := range c.seen.S() {
		if s == 0 {
			continue
		}
		k := format.CounterKey{Ord: uint32(i / counterStride), Field: format.Field(i % counterStride), Shard: format.Unsharded}
		key = k.Append(key[:0])
		val = rocks.AppendETFInt(val[:0], c.sums.S()[i])
		if err := put(key, val); err != nil {
			return err
		}
	}
	return nil
}

func (c *counterSums) free() {
	c.sums.Free()
	c.seen.Free()
}
