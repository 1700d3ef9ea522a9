package migration

import (
	"math/bits"

	"github.com/ankusa/ankusa-store/internal/offheap"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// counterSumOrds bounds the ordinals whose counters the bulk method sums as it goes: 8
// bytes a field and a bit, 49 MiB at 2^20 tenants (mapped at once, its pages taken as the
// ordinals it meets are written). A tenant past it keeps its operands in the runs, merged
// at the end as before.
const counterSumOrds = 1 << 20

// counterStride is the slots of one ordinal: field f is slot f-1.
const counterStride = format.NumFields

// counterSums is what the steps' counter operands come to, key by key, summed as the steps
// hand them over instead of kept in the runs: each step merges one operand per tenant and
// field it touched, 45% of the steps' writes at 10^6 rows over 10^4 tenants, which the runs
// sorted, spilled and merged only for bulkTables to add them up. The node's operator sums
// its operands (no base: the family is new), so the value a key is left with is its sum's
// (rocks.MergeCounter); a key the steps never merged an operand into has none, even where
// its sum would be 0.
//
// Which keys were merged into is a bit each, not a byte, and no slot is kept for the field
// number 0 no counter has: at 10^6 tenants the table was 63 bytes an ordinal (60 MiB of a
// 10^7-row run's peak RSS), it is 48.75.
type counterSums struct {
	limit uint32 // counterSumOrds, or a test's
	sums  offheap.Slice[int64]
	seen  offheap.Slice[uint64] // bit i%64 of word i/64: sums[i] was merged into

	// queue holds the deltas added since the last flush, which adds them to sums.
	queue   [sumsQueued]queuedDelta
	queued  int
	warmSum int64 // flush's loads, summed: kept, so that the compiler keeps them
}

// sumsQueued is how many deltas a flush adds at once: enough loads for the CPU to have
// as many misses in flight as it can, few enough that their lines stay in its cache
// until the adds.
const sumsQueued = 256

type queuedDelta struct {
	i int // the slot: ordinal*counterStride + field - 1
	v int64
}

// add adds a step's delta v of ordinal ord's unsharded counter f (the operand the steps
// merge into its key) and says whether it did: only below the limit. It queues the delta;
// each adds what is queued before it reads the sums.
func (c *counterSums) add(ord uint32, f format.Field, v int64) bool {
	if ord >= c.limit {
		return false
	}
	if c.sums.Len() == 0 {
		// The mappings for every ordinal below the limit at once: the kernel gives a page
		// when it is first written, so an untouched one costs address space only, and the
		// table never grows by doubling, which held the old mapping and the new one's copy
		// of it at once (at 10^6 tenants, 32 MiB more for a moment).
		c.sums.Grow(int(c.limit) * counterStride)
		c.seen.Grow(int(c.limit)*counterStride/64 + 1)
	}
	c.queue[c.queued] = queuedDelta{i: int(ord)*counterStride + int(f) - 1, v: v}
	if c.queued++; c.queued == len(c.queue) {
		c.flush()
	}
	return true
}

// flush adds the queued deltas to their sums. A step's tenants are scattered over a table
// of megabytes, and an add of one delta at a time waited for its own cache miss (nine
// tenths of the adds' samples at 10^7 rows, in perf): a pass of loads of the queued sums
// first, which wait for nothing, has the misses in flight together, and the adds find
// their lines in the cache.
func (c *counterSums) flush() {
	q := c.queue[:c.queued]
	c.queued = 0
	if len(q) == 0 {
		return
	}
	top := 0
	for _, d := range q {
		top = max(top, d.i)
	}
	c.sums.Extend(top + 1)
	c.seen.Extend(top/64 + 1)
	sums, seen := c.sums.S(), c.seen.S()
	var warm int64
	for _, d := range q {
		warm += sums[d.i]
	}
	c.warmSum += warm
	for _, d := range q {
		sums[d.i] += d.v // wraps, as the operator's sum does
		seen[d.i/64] |= 1 << (d.i % 64)
	}
}

// each calls put with every summed counter's key and merged value, in key order.
func (c *counterSums) each(put func(key, val []byte) error) error {
	c.flush()
	var key, val []byte
	for w, set := range c.seen.S() {
		for ; set != 0; set &= set - 1 {
			i := w*64 + bits.TrailingZeros64(set)
			k := format.CounterKey{Ord: uint32(i / counterStride), Field: format.Field(i%counterStride + 1), Shard: format.Unsharded}
			key = k.Append(key[:0])
			val = rocks.AppendETFInt(val[:0], c.sums.S()[i])
			if err := put(key, val); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *counterSums) free() {
	c.queued = 0
	c.sums.Free()
	c.seen.Free()
}
