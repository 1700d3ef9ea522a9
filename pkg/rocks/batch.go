package rocks

import (
	"fmt"

	"github.com/linxGnu/grocksdb"
)

// Batch collects writes by column family name; Write applies them atomically.
// It is plain Go memory until Write, so a batch can be built before (or
// without) an open store.
type Batch struct {
	ops  []batchOp
	data []byte
}

type opKind uint8

const (
	opPut opKind = iota
	opDelete
	opMerge
	opDeleteRange
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

// Count is the number of operations in the batch.
func (b *Batch) Count() int { return len(b.ops) }

// Size is the number of key and value bytes in the batch.
func (b *Batch) Size() int { return len(b.data) }

// Clear empties the batch, keeping its memory.
func (b *Batch) Clear() {
	b.ops = b.ops[:0]
	b.data = b.data[:0]
}

// Destroy releases the batch's memory; the batch is empty afterwards.
func (b *Batch) Destroy() {
	b.ops = nil
	b.data = nil
}

// Write applies the batch atomically; sync makes it durable (fsync of the
// WAL) before Write returns. Nothing is written if the batch names a column
// family that is not open.
func (d *DB) Write(b *Batch, sync bool) error {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return ErrClosed
	}
	if d.mode != ReadWrite {
		return ErrReadOnly
	}
	wb := grocksdb.NewWriteBatch()
	defer wb.Destroy()
	for _, op := range b.ops {
		f, err := d.cf(op.cf)
		if err != nil {
			return fmt.Errorf("rocks: write batch: %w", err)
		}
		k, v := b.data[op.a:op.b], b.data[op.c:op.d]
		switch op.kind {
		case opPut:
			wb.PutCF(f.h, k, v)
		case opDelete:
			wb.DeleteCF(f.h, k)
		case opMerge:
			wb.MergeCF(f.h, k, v)
		case opDeleteRange:
			wb.DeleteRangeCF(f.h, k, v)
		}
	}
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	wo.SetSync(sync)
	if err := d.db.Write(wo, wb); err != nil {
		return fmt.Errorf("rocks: write: %w", d.wrapStatus(err))
	}
	if d.onWrite != nil {
		d.onWrite(len(b.ops), sync)
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
