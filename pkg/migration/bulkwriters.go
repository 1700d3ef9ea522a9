package migration

import (
	"fmt"
	"path/filepath"
	"sync"

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
	sent   [len(bufCFs)]bool     // the families the merge has handed batches to
	closed [len(bufCFs)]bool     // the families whose input is closed (done)
	last   int                   // the family of the last batch, -1 before the first
	// fileBytes: a table file's key and value bytes before the next is begun (tableFileBytes).
	fileBytes int
	// suffix ends the names of the files (the write stage's second half's: bulksplit.go).
	suffix string
}

// newFamilyWriters starts the writers of files named by family and suffix in dir. The suffix
// is theirs from the start: a writer names its file as it begins, and a suffix set after
// the writers had started raced them (the write stage's second half's index file then named
// as the first half's, the same file written twice and the ingest refused).
func newFamilyWriters(st *rocks.Store, dir string, fileBytes int, suffix string) *familyWriters {
	if fileBytes <= 0 {
		fileBytes = tableFileBytes
	}
	fw := &familyWriters{st: st, dir: dir, free: make(chan *tableBatch, tableBatches), failed: make(chan struct{}), last: -1, fileBytes: fileBytes, suffix: suffix}
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

// done closes family cf's input, once: its writer finishes its files.
func (fw *familyWriters) done(cf uint8) {
	if !fw.closed[cf] {
		fw.closed[cf] = true
		close(fw.in[cf])
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
		// The merge is past the family before: its writer finishes its files now, beside
		// the next family's writes, and lets their memory go.
		for cf := range b.cf {
			fw.done(cf)
		}
		fw.sent[b.cf], fw.last = true, int(b.cf)
	}
	fw.in[b.cf] <- b
	return nil
}

// tableFileBytes is the key and value bytes a table file takes before the next is begun. A
// table builder holds its file's index in memory until it finishes (a few dozen bytes a
// 4 KiB block, in a buffer grown by doubling): with one file of a family's every row, a
// 10^8-row run went from 255 to 314 MiB in the write stage's last seconds, its peak. Files of this
// size are also what the node's own compactions write for its last levels.
const tableFileBytes = 256 << 20

// rollingTable is one run of table files of a family, in key order: the next is begun once
// the current one holds tableFileBytes.
type rollingTable struct {
	fw    *familyWriters
	cf    uint8
	name  string // the first file's name; the next ones' add -2, -3, ...
	cur   *rocks.SSTWriter
	bytes int
	n     int
}

// writer is the file the next key goes to (size bytes with its value), begun if need be.
func (t *rollingTable) writer(size int) (*rocks.SSTWriter, error) {
	if t.cur != nil && t.bytes+size > t.fw.fileBytes && t.bytes > 0 {
		if err := t.finish(); err != nil {
			return nil, err
		}
	}
	if t.cur == nil {
		t.n++
		name := t.name
		if t.n > 1 {
			name = fmt.Sprintf("%s-%d", t.name, t.n)
		}
		w, err := t.fw.st.NewSSTWriter(bufCFs[t.cf], filepath.Join(t.fw.dir, name+".sst"))
		if err != nil {
			return nil, err
		}
		t.cur, t.bytes = w, 0
	}
	t.bytes += size
	return t.cur, nil
}

// finish ends the current file, if any, and keeps its path.
func (t *rollingTable) finish() error {
	if t.cur == nil {
		return nil
	}
	w := t.cur
	t.cur = nil
	if err := w.Finish(); err != nil {
		return err
	}
	t.fw.files[t.cf] = append(t.fw.files[t.cf], w.Path)
	return nil
}

func (t *rollingTable) close() {
	if t.cur != nil {
		t.cur.Close()
		t.cur = nil
	}
}

// write is family cf's writer: it puts every write in order into the family's files and
// finishes them once the merge is past the family, unless a writer has failed. A family's
// files follow one another in key order, none overlapping another, as one ingest into the
// last level requires.
func (fw *familyWriters) write(cf uint8) {
	defer fw.wg.Done()
	t := &rollingTable{fw: fw, cf: cf, name: bufCFs[cf] + fw.suffix}
	defer t.close()
	var err error
	for b := range fw.in[cf] {
		if err == nil && !fw.stopped() {
			for _, r := range b.recs {
				k, v := b.arena[r.k:r.v], b.arena[r.v:r.end]
				var w *rocks.SSTWriter
				if w, err = t.writer(len(k) + len(v)); err != nil {
					break
				}
				if r.del {
					err = w.Delete(k)
				} else {
					err = w.Put(k, v)
				}
				if err != nil {
					break
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
	if err := t.finish(); err != nil {
		fw.fail(err)
	}
}

// wait closes the writers' inputs, waits for them and returns their files by family, each
// family's in key order, or the first error.
func (fw *familyWriters) wait() ([len(bufCFs)][]string, error) {
	for cf := range fw.in {
		fw.done(uint8(cf))
	}
	fw.wg.Wait()
	if fw.err != nil {
		return [len(bufCFs)][]string{}, fw.err
	}
	return fw.files, nil
}
