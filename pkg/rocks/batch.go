package rocks

import (
	"fmt"
)

// Batch collects writes by column family name; Write applies them atomically.
// It is plain Go memory until Write, so a batch can be built before (or
// without) an open store.
type Batch struct {
	ops     []batchOp
	data    []byte
	dropped int     // operations Drop cancelled
	wire    wireBuf // what Write hands RocksDB, kept for the next Write
}

type opKind uint8

// The kinds match ankusa_write's ANKUSA_OP_* (rockshelp.h).
const (
	opPut opKind = iota
	opDelete
	opMerge
	opDeleteRange
	opDropped opKind = 255 // cancelled by Drop: Write skips it
)

type batchOp struct {
	kind       opKind
	cf         string
	a, b, c, d int // data[a:b] key (or range start), data[c:d] value (or range end)
}

// NewBatch returns an empty batch.
func NewBatch() *Batch { return &Batch{} }

func (b *Batch) add(kind opKind, cf string, k, v []byte) {
	a := len(b.data)
	b.data = append(b.data, k...)
	c := len(b.data)
	b.data = append(b.data, v...)
	b.ops = append(b.ops, batchOp{kind: kind, cf: cf, a: a, b: c, c: c, d: len(b.data)})
}

// Put sets key to value.
func (b *Batch) Put(cf string, key, value []byte) { b.add(opPut, cf, key, value) }

// Delete removes key.
func (b *Batch) Delete(cf string, key []byte) { b.add(opDelete, cf, key, nil) }

// Merge adds a merge operand for key (only counters has a merge operator).
func (b *Batch) Merge(cf string, key, operand []byte) { b.add(opMerge, cf, key, operand) }

// DeleteRange removes every key in [lo, hi).
func (b *Batch) DeleteRange(cf string, lo, hi []byte) { b.add(opDeleteRange, cf, lo, hi) }

// Next is the position the next operation added will have, for Drop: the operations
// added so far, cancelled ones included.
func (b *Batch) Next() int { return len(b.ops) }

// Drop cancels the operation at position i (Next before it was added): Write leaves it
// out, and it no longer counts. A writer that knows a later operation of the same batch
// makes an earlier one moot (a put overwritten, or a key put and deleted that was not
// there before) saves RocksDB the work; what the batch leaves in the store is the
// writer's to keep the same. Its bytes stay in the batch until Clear.
func (b *Batch) Drop(i int) {
	if b.ops[i].kind != opDropped {
		b.ops[i].kind = opDropped
		b.dropped++
	}
}

// Count is the number of operations in the batch (those dropped left out).
func (b *Batch) Count() int { return len(b.ops) - b.dropped }

// Size is the number of key and value bytes in the batch (those of dropped operations
// included).
func (b *Batch) Size() int { return len(b.data) }

// Clear empties the batch, keeping its memory.
func (b *Batch) Clear() {
	b.ops = b.ops[:0]
	b.data = b.data[:0]
	b.dropped = 0
}

// Destroy releases the batch's memory; the batch is empty afterwards.
func (b *Batch) Destroy() {
	b.ops = nil
	b.data = nil
	b.dropped = 0
	b.wire = wireBuf{}
}

// Write applies the batch atomically; sync makes it durable (fsync of the
// WAL) before Write returns. Nothing is written if the batch names a column
// family that is not open. The whole batch crosses into RocksDB in one cgo call
// (ankusa_write), however many operations it holds. A Batch is written by one
// goroutine at a time (Write keeps what it hands RocksDB in it).
func (d *DB) Write(b *Batch, sync bool) error {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return ErrClosed
	}
	if d.mode != ReadWrite {
		return ErrReadOnly
	}
	w := &b.wire
	w.reset()
	var last *family
	for _, op := range b.ops {
		if op.kind == opDropped {
			continue
		}
		if last == nil || op.cf != last.name {
			f, err := d.cf(op.cf)
			if err != nil {
				return fmt.Errorf("rocks: write batch: %w", err)
			}
			last = f
		}
		w.add(op.kind, last.c, op.a, op.b, op.c, op.d)
	}
	if err := w.write(d, b.data, sync); err != nil {
		return fmt.Errorf("rocks: write: %w", d.wrapStatus(err))
	}
	if d.onWrite != nil {
		d.onWrite(b.Count(), sync)
	}
	return nil
}

// wrapStatus classifies a RocksDB error by its status: ErrCorrupt for Corruption (a store in
// background error after a failed merge refuses writes so), ErrNoSpace for an IOError with the
// NoSpace subcode, a plain store error otherwise.
func (d *DB) wrapStatus(err error) error {
	return classify("write", d.dir, "", err)
}

// ObserveWrites has fn told of every batch this DB commits from now on, once RocksDB has
// taken it: how many operations it held and whether it was synced. For tests: a commit
// without its sync survives kill -9 (the page cache outlives the process) and is lost only
// by a power cut, so no crash test can see it; a test asserts it here. nil stops it.
func (d *DB) ObserveWrites(fn func(ops int, sync bool)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.onWrite = fn
}
