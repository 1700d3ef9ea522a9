package migration

import (
	"fmt"
	"path/filepath"
	"sync"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// tableBatchBytes is the key and value bytes of a batch of resolved writes handed to a
// family's writer; tableBatches is how many there are, so the merge runs at most that far
// ahead of the writers (a few MiB).
const (
	tableBatchBytes = 256 << 10
	tableBatches    = 4
)

// tableBatch is resolved writes of one family, in key order: each a put, or a point
// deletion (no value).
type tableBatch struct {
	cf    uint8
	arena []byte
	recs  []tableRec
}

type tableRec struct {
	k, v, end int32 // key arena[k:v], value arena[v:end]
	del       bool
}

func (b *tableBatch) add(key, val []byte, del bool) {
	k := int32(len(b.arena))
	b.arena = append(b.arena, key...)
	v := int32(len(b.arena))
	b.arena = append(b.arena, val...)
	b.recs = append(b.recs, tableRec{k: k, v: v, end: int32(len(b.arena)), del: del})
}

// familyWriters writes each family's table file on a goroutine of its own, fed batches by
// the merge of the runs: the SstFileWriter's puts (a cgo call each, the block building,
// the compression and the checksums: most of the write stage's CPU) use the second core
// while the merge reads the runs and resolves the next keys. The merge hands the families
// over one after another, in their order, so one writer is busy at a time.
//
// The first error of a writer stops them all: the merge's next batch returns it (get), the
// other writers put nothing more and finish no file, and wait returns it; the caller then
// ingests nothing.
type familyWriters struct {
	st     *rocks.Store
	dir    string
	in     [len(bufCFs)]chan *tableBatch
	free   chan *tableBatch
	failed chan struct{} // closed at the first error: err says which
	once   sync.Once
	err    error
	wg     sync.WaitGroup
	files  [len(bufCFs)]string // each written by its writer before wg.Done
	sent   [len(bufCFs)]bool   // the families the merge has handed batches to
	last   int                 // the family of the last batch, -1 before the first
}

func newFamilyWriters(st *rocks.Store, dir string) *familyWriters {
	fw := &familyWriters{st: st, dir: dir, free: make(chan *tableBatch, tableBatches), failed: make(chan struct{}), last: -1}
	for range tableBatches {
		fw.free <- &tableBatch{arena: make([]byte, 0, tableBatchBytes+64<<10)}
	}
	for cf := range fw.in {
		// As many as there are batches: a send never waits on its writer.
		fw.in[cf] = make(chan *tableBatch, tableBatches)
		fw.wg.Add(1)
		go fw.write(uint8(cf))
	}
	return fw
}

func (fw *familyWriters) fail(err error) {
	fw.once.Do(func() {
		fw.err = err
		close(fw.failed)
	})
}

func (fw *familyWriters) stopped() bool {
	select {
	case <-fw.failed:
		return true
	default:
		return false
	}
}

// get returns an empty batch for family cf, or the writers' error once one has failed.
func (fw *familyWriters) get(cf uint8) (*tableBatch, error) {
	select {
	case b := <-fw.free:
		b.cf, b.arena, b.recs = cf, b.arena[:0], b.recs[:0]
		return b, nil
	case <-fw.failed:
		return nil, fw.err
	}
}

// send hands a filled batch to its family's writer. The families must come in their order,
// each once: a family whose file is begun after the next one's is a bug of the merge.
func (fw *familyWriters) send(b *tableBatch) error {
	if int(b.cf) != fw.last {
		if fw.sent[b.cf] || int(b.cf) < fw.last {
			fw.free <- b
			return fmt.Errorf("migration: bulk writes of family %s out of order (a bug)", bufCFs[b.cf])
		}
		fw.sent[b.cf], fw.last = true, int(b.cf)
	}
	fw.in[b.cf] <- b
	return nil
}

// write is family cf's writer: it opens the family's file at its first batch (the index
// family's in any case: its range deletions), puts every write in order and finishes the
// file once the merge is done, unless a writer has failed.
func (fw *familyWriters) write(cf uint8) {
	defer fw.wg.Done()
	var w *rocks.SSTWriter
	defer func() {
		if w != nil {
			w.Close()
		}
	}()
	var err error
	open := func() {
		w, err = fw.st.NewSSTWriter(bufCFs[cf], filepath.Join(fw.dir, bufCFs[cf]+".sst"))
	}
	for b := range fw.in[cf] {
		if err == nil && !fw.stopped() {
			if w == nil {
				open()
			}
			for _, r := range b.recs {
				if err != nil {
					break
				}
				if r.del {
					err = w.Delete(b.arena[r.k:r.v])
				} else {
					err = w.Put(b.arena[r.k:r.v], b.arena[r.v:r.end])
				}
			}
			if err != nil {
				fw.fail(err)
			}
		}
		fw.free <- b
	}
	if err != nil || fw.stopped() {
		return
	}
	if cf == cfIndex {
		// The old due and inflight families' range deletions: a store with no index writes
		// at all still needs them.
		if w == nil {
			if open(); err != nil {
				fw.fail(err)
				return
			}
		}
		for _, s := range finishSpans {
			if err = w.DeleteRange(s[0], s[1]); err != nil {
				fw.fail(err)
				return
			}
		}
	}
	if w == nil {
		return
	}
	cur := w
	w = nil
	if err = cur.Finish(); err != nil {
		fw.fail(err)
		return
	}
	fw.files[cf] = cur.Path
}

// wait closes the writers' inputs, waits for them and returns their files by family, or
// the first error.
func (fw *familyWriters) wait() (map[string]string, error) {
	for _, c := range fw.in {
		close(c)
	}
	fw.wg.Wait()
	if fw.err != nil {
		return nil, fw.err
	}
	files := map[string]string{}
	for cf, p := range fw.files {
		if p != "" {
			files[bufCFs[cf]] = p
		}
	}
	if _, ok := files[format.CFIndex]; !ok {
		return nil, fmt.Errorf("migration: no table file of family %s written (a bug)", format.CFIndex)
	}
	return files, nil
}
