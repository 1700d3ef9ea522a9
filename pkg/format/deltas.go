package format

import (
	"fmt"
	"slices"
)

// CounterOp is one merge of a batch: an unsharded counters key and its operand.
type CounterOp struct {
	Key     []byte
	Operand []byte
}

// deltaRow holds one ordinal's pending deltas, indexed by Field.
type deltaRow struct {
	ord   uint32
	delta [NumFields + 1]int64
}

// Deltas coalesces a write batch's counter deltas: one operand per (ord,
// field), and the same deltas added to the aggregate, ordinal 0, as the node's
// Deliveries.Counters.ops/1 does. It is reused across batches (Reset), because
// the migration builds one per step of up to 500 rows.
type Deltas struct {
	agg   deltaRow
	rows  []deltaRow     // per real ordinal, in first-Add order until Ops sorts them
	idx   map[uint32]int // ord -> index in rows
	last  int            // index of the most recent ord, -1 if none: rows come in runs
	ops   []CounterOp    // Ops' result, reused
	arena []byte         // backing bytes of ops' keys and operands, reused
}

// maxOpBytes bounds one op's key plus operand: the key, the operand head and
// the longest int64 encoding (110, length, sign, 8 digits), so that Ops can
// size its arena once.
const maxOpBytes = KeyLenCounter + 12 + 11

// Add records delta for (ord, field), and for the aggregate. Adding to ord 0
// directly touches the aggregate once. An unknown field is a programming error.
func (d *Deltas) Add(ord uint32, f Field, delta int64) {
	if !f.Valid() {
		panic(fmt.Sprintf("format: Deltas.Add with unknown field %d", uint8(f)))
	}
	d.agg.delta[f] += delta
	if ord == AggregateOrd {
		return
	}
	if d.idx == nil {
		d.idx = make(map[uint32]int)
		d.last = -1
	}
	i := d.last
	if i < 0 || d.rows[i].ord != ord {
		var ok bool
		if i, ok = d.idx[ord]; !ok {
			i = len(d.rows)
			d.rows = append(d.rows, deltaRow{ord: ord})
			d.idx[ord] = i
		}
		d.last = i
	}
	d.rows[i].delta[f] += delta
}

// Get returns the coalesced delta of (ord, field) so far; ord 0 is the aggregate.
func (d *Deltas) Get(ord uint32, f Field) int64 {
	if !f.Valid() {
		return 0
	}
	if ord == AggregateOrd {
		return d.agg.delta[f]
	}
	if i, ok := d.idx[ord]; ok {
		return d.rows[i].delta[f]
	}
	return 0
}

// Ops returns the batch's merges sorted by (ord, field), zero sums dropped.
// The result and its byte slices are owned by d: valid until the next Ops or
// Reset, which is as long as a batch being built needs them.
func (d *Deltas) Ops() []CounterOp {
	slices.SortFunc(d.rows, func(a, b deltaRow) int {
		switch {
		case a.ord < b.ord:
			return -1
		case a.ord > b.ord:
			return 1
		}
		return 0
	})
	for i := range d.rows {
		d.idx[d.rows[i].ord] = i
	}
	d.last = -1
	need := (len(d.rows) + 1) * NumFields * maxOpBytes
	if cap(d.arena) < need {
		d.arena = make([]byte, 0, need)
	}
	d.arena = d.arena[:0]
	d.ops = d.ops[:0]
	d.appendRow(&d.agg, AggregateOrd)
	for i := range d.rows {
		d.appendRow(&d.rows[i], d.rows[i].ord)
	}
	return d.ops
}

func (d *Deltas) appendRow(r *deltaRow, ord uint32) {
	for f := FieldPending; f <= FieldArchivePending; f++ {
		v := r.delta[f]
		if v == 0 {
			continue
		}
		start := len(d.arena)
		d.arena = CounterKey{Ord: ord, Field: f, Shard: Unsharded}.Append(d.arena)
		mid := len(d.arena)
		d.arena = AppendCounterOperand(d.arena, v)
		end := len(d.arena)
		d.ops = append(d.ops, CounterOp{Key: d.arena[start:mid:mid], Operand: d.arena[mid:end:end]})
	}
}

// Each calls fn with every delta Ops would make an operand of (the non-zero ones): the
// aggregate's first, then each ordinal's in the order it was first added, unsorted and
// unencoded, for a caller that sums them itself (the bulk migration's counter sums). It
// stops at fn's first error.
func (d *Deltas) Each(fn func(ord uint32, f Field, delta int64) error) error {
	if err := d.agg.each(AggregateOrd, fn); err != nil {
		return err
	}
	for i := range d.rows {
		if err := d.rows[i].each(d.rows[i].ord, fn); err != nil {
			return err
		}
	}
	return nil
}

func (r *deltaRow) each(ord uint32, fn func(ord uint32, f Field, delta int64) error) error {
	for f := FieldPending; f <= FieldArchivePending; f++ {
		if v := r.delta[f]; v != 0 {
			if err := fn(ord, f, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// OpsSize is what Ops would make, without making it: its operands, and their keys' and
// operands' bytes.
func (d *Deltas) OpsSize() (ops, bytes int) {
	var buf [maxOpBytes]byte
	d.Each(func(_ uint32, _ Field, v int64) error {
		ops++
		bytes += KeyLenCounter + len(AppendCounterOperand(buf[:0], v))
		return nil
	})
	return ops, bytes
}

// Empty reports whether no non-zero delta is pending.
func (d *Deltas) Empty() bool {
	for _, v := range d.agg.delta {
		if v != 0 {
			return false
		}
	}
	for i := range d.rows {
		for _, v := range d.rows[i].delta {
			if v != 0 {
				return false
			}
		}
	}
	return true
}

// Reset forgets every delta and keeps the memory for the next batch.
func (d *Deltas) Reset() {
	d.agg = deltaRow{}
	d.rows = d.rows[:0]
	clear(d.idx)
	d.last = -1
	d.ops = d.ops[:0]
	d.arena = d.arena[:0]
}
