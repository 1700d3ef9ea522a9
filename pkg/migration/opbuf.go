package migration

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// opBuf collects a step's writes so that they reach the batch sorted by column
// family and key. RocksDB inserts a batch into its memtables op by op, and its
// skiplist finds the place of a key that follows the previous one in a few
// comparisons instead of a search from the top: a step's ~2 000 writes land
// on three or four ascending runs instead of 2 000 random places, which is
// what makes the synced write of a step cheaper than the random-key floor.
//
// Reordering is only sound because no two writes of a step touch the same
// key; sorted, that is checked (two equal keys would be adjacent).
type opBuf struct {
	ops   []bufOp
	arena []byte
	tmp   []bufOp // sortOps' other buffer
}

type bufKind uint8

const (
	bufPut bufKind = iota
	bufDelete
	bufMerge
)

// The column families a step writes, in the order their ops are emitted.
var bufCFs = [...]string{format.CFDefault, format.CFIndex, format.CFTenants, format.CFCounters}

const (
	cfDefault uint8 = iota
	cfIndex
	cfTenants
	cfCounters
)

type bufOp struct {
	// pfx is the key's first 8 bytes, big-endian and zero-padded: most
	// comparisons of the sort are settled by it without touching the arena.
	pfx  uint64
	cf   uint8
	kind bufKind
	// key is arena[k:v], value arena[v:end].
	k, v, end int32
}

func (o *opBuf) add(cf uint8, kind bufKind, key, val []byte) {
	k := int32(len(o.arena))
	o.arena = append(o.arena, key...)
	v := int32(len(o.arena))
	o.arena = append(o.arena, val...)
	var p [8]byte
	copy(p[:], key)
	o.ops = append(o.ops, bufOp{pfx: binary.BigEndian.Uint64(p[:]), cf: cf, kind: kind, k: k, v: v, end: int32(len(o.arena))})
}

func (o *opBuf) put(cf uint8, key, val []byte) { o.add(cf, bufPut, key, val) }
func (o *opBuf) del(cf uint8, key []byte)      { o.add(cf, bufDelete, key, nil) }
func (o *opBuf) merge(cf uint8, key, v []byte) { o.add(cf, bufMerge, key, v) }
func (o *opBuf) key(op bufOp) []byte           { return o.arena[op.k:op.v] }
func (o *opBuf) val(op bufOp) []byte           { return o.arena[op.v:op.end] }

func (o *opBuf) reset() {
	o.ops = o.ops[:0]
	o.arena = o.arena[:0]
}

func (o *opBuf) cmp(a, b bufOp) int {
	switch {
	case a.cf != b.cf:
		return int(a.cf) - int(b.cf)
	case a.pfx < b.pfx:
		return -1
	case a.pfx > b.pfx:
		return 1
	}
	return bytes.Compare(o.key(a), o.key(b))
}

// writeTo sorts the ops and appends them to b, failing if two touch the same key.
func (o *opBuf) writeTo(b *rocks.Batch) error {
	o.sortOps()
	for i, op := range o.ops {
		if i > 0 && o.cmp(o.ops[i-1], op) == 0 {
			return fmt.Errorf("migration: a step writes key %s of %s twice (a bug)", rocks.FmtKey(o.key(op)), bufCFs[op.cf])
		}
		cf := bufCFs[op.cf]
		switch op.kind {
		case bufPut:
			b.Put(cf, o.key(op), o.val(op))
		case bufDelete:
			b.Delete(cf, o.key(op))
		case bufMerge:
			b.Merge(cf, o.key(op), o.val(op))
		}
	}
	return nil
}
