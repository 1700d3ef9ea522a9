package migration

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"

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
func finishCovers(k []byte) bool {
	for _, s := range finishSpans {
		if bytes.Compare(k, s[0]) >= 0 && bytes.Compare(k, s[1]) < 0 {
			return true
		}
	}
	return false
}

// bulkTables writes what the runs hold into one table file per column family in dir, with
// the old due and inflight families' range deletions in the index family's file, and
// returns the files by family. A key's writes are resolved as RocksDB would resolve them:
// its last put or delete, and the counter operands after it merged by the node's operator
// (rocks.MergeCounter), so that the file holds the bytes a compaction of the steps' writes
// leaves. Deletes inside the ranges deleted whole are left to the range deletions.
func bulkTables(ctx context.Context, st *rocks.Store, runs *bulkRuns, dir string) (map[string]string, error) {
	covered := func(cf uint8, k []byte) bool { return cf == cfIndex && finishCovers(k) }
	files := map[string]string{}
	var w *rocks.SSTWriter
	defer func() {
		if w != nil {
			w.Close()
		}
	}()
	finishFile := func() error {
		if w == nil {
			return nil
		}
		cur := w
		w = nil
		if cur.CF == format.CFIndex {
			for _, s := range finishSpans {
				if err := cur.DeleteRange(s[0], s[1]); err != nil {
					cur.Close()
					return err
				}
			}
		}
		if err := cur.Finish(); err != nil {
			return err
		}
		files[cur.CF] = cur.Path
		return nil
	}
	openFor := func(cf uint8) error {
		name := bufCFs[cf]
		if w != nil && w.CF == name {
			return nil
		}
		if err := finishFile(); err != nil {
			return err
		}
		if _, done := files[name]; done {
			return fmt.Errorf("migration: bulk writes of family %s out of order (a bug)", name)
		}
		var err error
		w, err = st.NewSSTWriter(name, filepath.Join(dir, name+".sst"))
		return err
	}
	var g bulkGroup
	var merged []byte
	var n int64
	emit := func() error {
		if !g.has {
			return nil
		}
		g.has = false
		if err := openFor(g.cf); err != nil {
			return err
		}
		if len(g.lens) == 0 {
			if g.state == bufPut {
				return w.Put(g.key, g.base)
			}
			if covered(g.cf, g.key) {
				return nil
			}
			return w.Delete(g.key)
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
		merged = append(merged[:0], v...)
		return w.Put(g.key, merged)
	}
	err := runs.merge(func(cf uint8, kind bufKind, key, val []byte) error {
		if g.has && (cf != g.cf || !bytes.Equal(key, g.key)) {
			if err := emit(); err != nil {
				return err
			}
		}
		if !g.has {
			g.start(cf, key)
		}
		g.take(kind, val)
		if n++; n%65536 == 0 {
			return ctx.Err()
		}
		return nil
	})
	if err == nil {
		err = emit()
	}
	if err == nil {
		// A store with no index writes at all still needs its range deletions.
		if _, ok := files[format.CFIndex]; !ok && (w == nil || w.CF != format.CFIndex) {
			err = openFor(cfIndex)
		}
	}
	if err == nil {
		err = finishFile()
	}
	if err != nil {
		return nil, err
	}
	return files, nil
}
