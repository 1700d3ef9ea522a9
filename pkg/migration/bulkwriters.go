package migration

import (
	"bytes"
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
	files  [len(bufCFs)][]string // each family's, written by its writer before wg.Done
	split  []byte                // the index family's keys below it go to a file of their own
	sent   [len(bufCFs)]bool     // the families the merge has handed batches to
	last   int                   // the family of the last batch, -1 before the first
}

func newFamilyWriters(st *rocks.Store, dir string, split []byte) *familyWriters {
	fw := &familyWriters{st: st, dir: dir, split: split, free: make(chan *tableBatch, tableBatches), failed: make(chan struct{}), last: -1}
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
// file once the merge is done, unless a writer has failed. The index family's keys below
// fw.split go to a file of their own (indexFiles), the rest and the range deletions to the
// family's file.
func (fw *familyWriters) write(cf uint8) {
	defer fw.wg.Done()
	var w, low *rocks.SSTWriter
	defer func() {
		for _, x := range []*rocks.SSTWriter{low, w} {
			if x != nil {
				x.Close()
			}
		}
	}()
	var err error
	open := func(name string) *rocks.SSTWriter {
		var x *rocks.SSTWriter
		x, err = fw.st.NewSSTWriter(bufCFs[cf], filepath.Join(fw.dir, name+".sst"))
		return x
	}
	split := fw.split
	if cf != cfIndex {
		split = nil
	}
	for b := range fw.in[cf] {
		if err == nil && !fw.stopped() {
			for _, r := range b.recs {
				if err != nil {
					break
				}
				k := b.arena[r.k:r.v]
				// The keys come in order: once one is at or past the split, so are the rest.
				x := &w
				if split != nil && w == nil && bytes.Compare(k, split) < 0 {
					x = &low
				}
				if *x == nil {
					name := bufCFs[cf]
					if x == &low {
						name += "-below"
					}
					if *x = open(name); err != nil {
						break
					}
				}
				if r.del {
					err = (*x).Delete(k)
				} else {
					err = (*x).Put(k, b.arena[r.v:r.end])
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
			if w = open(bufCFs[cf]); err != nil {
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
	for _, x := range []**rocks.SSTWriter{&low, &w} {
		if *x == nil {
			continue
		}
		cur := *x
		*x = nil
		if err = cur.Finish(); err != nil {
			fw.fail(err)
			return
		}
		fw.files[cf] = append(fw.files[cf], cur.Path)
	}
}

// wait closes the writers' inputs, waits for them and returns their files by family (the
// index family's file of keys below the split first), or the first error.
func (fw *familyWriters) wait() (map[string][]string, error) {
	for _, c := range fw.in {
		close(c)
	}
	fw.wg.Wait()
	if fw.err != nil {
		return nil, fw.err
	}
	files := map[string][]string{}
	for cf, ps := range fw.files {
		if len(ps) > 0 {
			files[bufCFs[cf]] = ps
		}
	}
	if _, ok := files[format.CFIndex]; !ok {
		return nil, fmt.Errorf("migration: no table file of family %s written (a bug)", format.CFIndex)
	}
	return files, nil
}
