package migration

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// bulkGroup is every write the steps make to one key, resolved as the store would: the last
// put or delete, then the counter operands merged after it.
type bulkGroup struct {
	cf       uint8
	key      []byte
	has      bool
	state    bufKind // bufPut: base holds the value; bufDelete: no base
	base     []byte
	opBytes  []byte // the operands after the last put or delete, end to end
	lens     []int
	operands [][]byte
}

func (g *bulkGroup) start(cf uint8, key []byte) {
	g.cf, g.has, g.state = cf, true, bufDelete
	g.key = append(g.key[:0], key...)
	g.base = g.base[:0]
	g.opBytes, g.lens = g.opBytes[:0], g.lens[:0]
}

func (g *bulkGroup) take(kind bufKind, val []byte) {
	switch kind {
	case bufPut:
		g.state, g.base = bufPut, append(g.base[:0], val...)
		g.opBytes, g.lens = g.opBytes[:0], g.lens[:0]
	case bufDelete:
		g.state, g.base = bufDelete, g.base[:0]
		g.opBytes, g.lens = g.opBytes[:0], g.lens[:0]
	case bufMerge:
		g.opBytes = append(g.opBytes, val...)
		g.lens = append(g.lens, len(val))
	}
}

// cutOperands returns the operands, cut from their arena once it no longer moves.
func (g *bulkGroup) cutOperands() [][]byte {
	g.operands = g.operands[:0]
	off := 0
	for _, l := range g.lens {
		g.operands = append(g.operands, g.opBytes[off:off+l:off+l])
		off += l
	}
	return g.operands
}

// finishSpans are the index family's ranges the finish deletes whole: the old due and
// inflight families, sentinels and strays with them.
var finishSpans = func() (spans [][2][]byte) {
	for _, f := range finishFamilies {
		lo, hi := prefixRange(f)
		spans = append(spans, [2][]byte{lo, hi})
	}
	return spans
}()

// finishCovers says whether an index key lies in finishSpans.
func finishCovers(k []byte) bool { return spansCover(finishSpans, k) }

// spansCover says whether k lies in one of spans ([lo, hi) each).
func spansCover(spans [][2][]byte, k []byte) bool {
	for _, s := range spans {
		if bytes.Compare(k, s[0]) >= 0 && bytes.Compare(k, s[1]) < 0 {
			return true
		}
	}
	return false
}

// bulkTables writes what the runs hold into table files by column family in dir (each of at
// most fileBytes of keys and values: tableFileBytes when 0), and returns the files by
// family. A key's writes are resolved as RocksDB would resolve them: its last put or delete,
// and the counter operands after it merged by the node's operator (rocks.MergeCounter), so
// that the file holds the bytes a compaction of the steps' writes leaves. The index family's
// files hold the family whole, as the steps leave it (the commit replaces the family with
// them): the runs' writes, and under them the old keys outside the ranges the finish deletes
// (keptIndex). The files are written by the families' writers (familyWriters) while the
// merge resolves, the runs cut in two halves at an index key (bulksplit.go), each merged
// and written beside the other, each family's files the first half's then the second's.
// moved, when not nil, is told the key and value bytes of the runs merged so far, every few
// thousand writes of a half (the write stage's progress: at 10^8 rows it lasts some 40 s).
func bulkTables(ctx context.Context, st *rocks.Store, runs *bulkRuns, dir string, fileBytes int, moved func(int64)) (files map[string][]string, err error) {
	if err := runs.settle(); err != nil {
		return nil, err
	}
	runs.sort()
	halves, err := runs.halves()
	if err != nil {
		return nil, err
	}
	if moved != nil && len(halves) > 1 {
		var mu sync.Mutex
		tell := moved
		moved = func(n int64) {
			mu.Lock()
			defer mu.Unlock()
			tell(n)
		}
	}
	// Each half's runs read through its share of the merge's buffers.
	readSize := runReadSize(len(halves) * len(runs.spills))
	hctx, cancel := context.WithCancel(ctx)
	defer cancel()
	got := make([][len(bufCFs)][]string, len(halves))
	errs := make([]error, len(halves))
	var wg sync.WaitGroup
	for i, h := range halves {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got[i], errs[i] = writeHalf(hctx, st, runs, h, readSize, dir, fileBytes, moved); errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	if err := firstCause(ctx, errs); err != nil {
		return nil, err
	}
	files = map[string][]string{}
	for cf := range bufCFs {
		for _, g := range got {
			if len(g[cf]) > 0 {
				files[bufCFs[cf]] = append(files[bufCFs[cf]], g[cf]...)
			}
		}
	}
	if _, ok := files[format.CFIndex]; !ok {
		return nil, fmt.Errorf("migration: no table file of family %s written (a bug)", format.CFIndex)
	}
	return files, nil
}

// writeHalf writes one half of the runs (runHalf) into table files by family, as bulkTables
// says, and returns them by family.
func writeHalf(ctx context.Context, st *rocks.Store, runs *bulkRuns, h runHalf, readSize int, dir string, fileBytes int, moved func(int64)) (files [len(bufCFs)][]string, err error) {
	kept := readKept(st, h.keptLo, h.keptHi)
	defer func() {
		if cerr := kept.close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	if err := kept.next(); err != nil {
		return files, err
	}
	m, err := runs.halfSources(h, readSize)
	if err != nil {
		return files, err
	}
	fw := newFamilyWriters(st, dir, fileBytes, h.suffix)
	if err := resolveRuns(ctx, m, kept, fw, moved); err != nil {
		fw.fail(err)
		fw.wait()
		return files, err
	}
	return fw.wait()
}

// resolveRuns merges the runs, resolves each key's writes, puts the kept keys of the index
// family among its writes, and hands them to the writers of their families in batches.
func resolveRuns(ctx context.Context, m *runMerge, kept *keptIndex, fw *familyWriters, moved func(int64)) error {
	var b *tableBatch
	// out adds a resolved write to the batch of its family, handing the batch over when it
	// is full or the family changes.
	out := func(cf uint8, key, val []byte, del bool) error {
		if b != nil && (b.cf != cf || len(b.arena) >= tableBatchBytes) {
			if err := fw.send(b); err != nil {
				return err
			}
			b = nil
		}
		if b == nil {
			// A signal stops the write within a batch, not at the end of the family.
			if err := ctx.Err(); err != nil {
				return err
			}
			var err error
			if b, err = fw.get(cf); err != nil {
				return err
			}
		}
		b.add(key, val, del)
		return nil
	}
	putKept := func(k, v []byte) error { return out(cfIndex, k, v, false) }
	var g bulkGroup
	var n, bytesMoved int64
	emit := func() error {
		if !g.has {
			return nil
		}
		g.has = false
		if g.cf > cfIndex {
			// Past the index family: its kept keys after its last write.
			if err := kept.upTo(nil, putKept); err != nil {
				return err
			}
		}
		if g.cf == cfIndex {
			if err := kept.upTo(g.key, putKept); err != nil {
				return err
			}
			if len(g.lens) > 0 {
				return fmt.Errorf("migration: counter operands for %s in family %s (a bug)", rocks.FmtKey(g.key), bufCFs[g.cf])
			}
			// Nothing lies under the family's new files: a key whose last write deletes
			// it is left out (and its old value with it).
			if g.state == bufPut {
				return out(g.cf, g.key, g.base, false)
			}
			return nil
		}
		if len(g.lens) == 0 {
			if g.state == bufPut {
				return out(g.cf, g.key, g.base, false)
			}
			return out(g.cf, g.key, nil, true)
		}
		var base []byte
		if g.state == bufPut {
			base = g.base
			if base == nil {
				base = []byte{}
			}
		}
		ops := g.cutOperands()
		v, ok := rocks.MergeCounter(base, ops)
		if !ok {
			return fmt.Errorf("migration: the counter operands of %s do not merge (a bug)", rocks.FmtKey(g.key))
		}
		return out(g.cf, g.key, v, false)
	}
	err := drainRuns(m, func(cf uint8, kind bufKind, key, val []byte) error {
		if g.has && (cf != g.cf || !bytes.Equal(key, g.key)) {
			if err := emit(); err != nil {
				return err
			}
		}
		if !g.has {
			g.start(cf, key)
		}
		g.take(kind, val)
		bytesMoved += int64(len(key) + len(val))
		if n++; n%65536 == 0 {
			if moved != nil {
				moved(bytesMoved)
				bytesMoved = 0
			}
			return ctx.Err()
		}
		return nil
	})
	if err == nil {
		err = emit()
	}
	if err == nil {
		err = kept.upTo(nil, putKept)
	}
	if err == nil && b != nil {
		err = fw.send(b)
	}
	return err
}
