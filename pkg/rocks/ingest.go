package rocks

// #include <stdlib.h>
// #include "ingest.h"
// #include "rockshelp.h"
import "C"

import (
	"errors"
	"fmt"
	"slices"
	"unsafe"

	"github.com/linxGnu/grocksdb"
)

// SSTWriter writes one table file for a family of an open store, with the options the
// family was opened with: the write rule's format_version, checksum and compression for
// that store's node (writerule.go), so that the node reads the file once it is ingested.
//
// Its puts and deletions are handed to RocksDB some sstAddBytes at a time, in one cgo call
// (ankusa_sst_add), not one call each: a bulk migration of 10^7 rows writes over 10^7 keys,
// and the crossings were a quarter of its puts' CPU (0.6 of 2.4 s). An entry's error may so
// be returned by a later Put or Delete, or by Finish.
type SSTWriter struct {
	Path    string
	CF      string
	Entries int64
	d       *DB
	env     *grocksdb.EnvOptions
	w       *grocksdb.SSTFileWriter
	data    []byte // the entries not yet added: keys and values back to back
	kinds   []C.uchar
	offs    []C.size_t // three an entry: its key's start, its value's start, its end
}

// sstAddBytes is how many bytes of keys and values an SSTWriter gathers before it adds them.
const sstAddBytes = 64 << 10

// NewSSTWriter opens path for a table file of family cf.
func (d *DB) NewSSTWriter(cf, path string) (*SSTWriter, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	f, err := d.cf(cf)
	if err != nil {
		return nil, err
	}
	env := grocksdb.NewDefaultEnvOptions()
	w := grocksdb.NewSSTFileWriter(env, f.opts)
	if err := w.Open(path); err != nil {
		w.Destroy()
		env.Destroy()
		return nil, classify("open table file "+path, d.dir, cf, err)
	}
	return &SSTWriter{Path: path, CF: cf, d: d, env: env, w: w}, nil
}

// Put adds a key, which must sort after every key added before it.
func (s *SSTWriter) Put(k, v []byte) error {
	return s.add(C.ANKUSA_OP_PUT, k, v)
}

// Delete adds a point deletion, in key order with the puts.
func (s *SSTWriter) Delete(k []byte) error {
	return s.add(C.ANKUSA_OP_DELETE, k, nil)
}

func (s *SSTWriter) add(kind C.uchar, k, v []byte) error {
	s.Entries++
	start := len(s.data)
	s.data = append(append(s.data, k...), v...)
	s.kinds = append(s.kinds, kind)
	s.offs = append(s.offs, C.size_t(start), C.size_t(start+len(k)), C.size_t(len(s.data)))
	if len(s.data) < sstAddBytes {
		return nil
	}
	return s.flush()
}

// flush adds the entries gathered.
func (s *SSTWriter) flush() error {
	if len(s.kinds) == 0 {
		return nil
	}
	if s.w == nil {
		return ErrClosed
	}
	var cerr *C.char
	C.ankusa_sst_add((*C.rocksdb_sstfilewriter_t)(cPtr(s.w)), C.size_t(len(s.kinds)), &s.kinds[0], &s.offs[0], cbytes(s.data), &cerr)
	s.data, s.kinds, s.offs = s.data[:0], s.kinds[:0], s.offs[:0]
	if cerr != nil {
		return s.fail(cError(cerr))
	}
	return nil
}

// DeleteRange adds a range deletion of [lo, hi), in any order with the keys.
func (s *SSTWriter) DeleteRange(lo, hi []byte) error {
	s.Entries++
	return s.fail(s.w.DeleteRange(lo, hi))
}

// Finish completes the file (a file with no entry cannot be finished) and frees the writer.
func (s *SSTWriter) Finish() error {
	err := s.flush()
	if err == nil {
		err = s.fail(s.w.Finish())
	}
	s.Close()
	return err
}

// Close frees the writer; a file not finished is left for the caller to remove.
func (s *SSTWriter) Close() {
	if s.w != nil {
		s.w.Destroy()
		s.env.Destroy()
		s.w, s.env = nil, nil
	}
}

func (s *SSTWriter) fail(err error) error {
	if err == nil {
		return nil
	}
	return classify("write table file "+s.Path, s.d.dir, s.CF, err)
}

// IngestFiles makes the table files visible in their families (files[cf] is one finished
// file of family cf) by one atomic ingest: RocksDB's MANIFEST records every family's file or
// none, so a crash at any instant leaves the store with all of them or as it was. Each file
// is moved into the store; one that overlaps what its family holds gets a sequence number
// above everything in the store, so its puts and range deletions win.
func (d *DB) IngestFiles(files map[string]string) error {
	sets := make(map[string][]string, len(files))
	for cf, path := range files {
		sets[cf] = []string{path}
	}
	return d.IngestFileSets(sets)
}

// IngestFileSets is IngestFiles with several files for a family (files[cf], none of them
// overlapping another of the same family, so that each lands in the family's last level):
// a writer of tables as big as a compaction's output, as the node's own families hold
// them, instead of one file of every row of the family.
func (d *DB) IngestFileSets(files map[string][]string) error {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.ingestSets(files, nil, true)
}

// IngestFileSetsReplacing is IngestFileSets with the families named in replace replaced
// whole: the same MANIFEST record that brings their new files in takes every table file they
// held out (RocksDB's atomic_replace_range with both ends open), so a crash leaves the family
// as it was or as the files hold it, and what it held before is neither read nor compacted
// after. Their files must be apart from one another: they go to the family's last level, or
// the ingest fails. RocksDB refuses the replacement while a compaction of the family runs, so
// its flushes and compactions are paused from before the ingest until after it; the
// replaced families' memtables must be empty (flushed before: the ingest may not flush them
// with the flushes paused, and fails instead), and so must every other family's of keys its
// files overlap.
func (d *DB) IngestFileSetsReplacing(files map[string][]string, replace []string) (err error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return ErrClosed
	}
	if d.mode != ReadWrite {
		return ErrReadOnly
	}
	for _, cf := range replace {
		if len(files[cf]) == 0 {
			return fmt.Errorf("rocks: ingest: family %s to be replaced, with no files", cf)
		}
	}
	if cerr := C.ankusa_pause_background((*C.rocksdb_t)(d.cdb)); cerr != nil {
		return d.cStatus("pause background work", "", cerr)
	}
	defer func() {
		if cerr := C.ankusa_continue_background((*C.rocksdb_t)(d.cdb)); cerr != nil && err == nil {
			err = d.cStatus("continue background work", "", cerr)
		}
	}()
	return d.ingestSets(files, replace, false)
}

// cStatus is the error of a helper's status text (freed here), classified.
func (d *DB) cStatus(op, cf string, cerr *C.char) error {
	return classify(op, d.dir, cf, cError(cerr))
}

// cError is the error of a C helper's status text, which it frees: the helpers return
// RocksDB's status as a strdup'd string, or NULL.
func cError(cerr *C.char) error {
	msg := C.GoString(cerr)
	C.free(unsafe.Pointer(cerr))
	return errors.New(msg)
}

// ingestSets is IngestFileSets with d.mu held; the families in replace are replaced whole,
// and allowFlush lets the ingest flush a memtable the files overlap.
func (d *DB) ingestSets(files map[string][]string, replace []string, allowFlush bool) error {
	if d.closed {
		return ErrClosed
	}
	if d.mode != ReadWrite {
		return ErrReadOnly
	}
	if len(files) == 0 {
		return errors.New("rocks: ingest: no files")
	}
	cfs := make([]*C.rocksdb_column_family_handle_t, 0, len(files))
	counts := make([]C.int, 0, len(files))
	replaced := make([]C.int, 0, len(files))
	var paths []*C.char
	defer func() {
		for _, p := range paths {
			C.free(unsafe.Pointer(p))
		}
	}()
	// In the store's own order of families: the same call for the same files.
	for _, name := range d.names {
		set, ok := files[name]
		if !ok {
			continue
		}
		if len(set) == 0 {
			return fmt.Errorf("rocks: ingest: no files for family %s", name)
		}
		f, err := d.cf(name)
		if err != nil {
			return err
		}
		cfs = append(cfs, (*C.rocksdb_column_family_handle_t)(f.c))
		counts = append(counts, C.int(len(set)))
		replaced = append(replaced, C.int(0))
		if slices.Contains(replace, name) {
			replaced[len(replaced)-1] = 1
		}
		for _, path := range set {
			paths = append(paths, C.CString(path))
		}
	}
	if len(cfs) != len(files) {
		return fmt.Errorf("rocks: ingest: %w among %v", ErrNoFamily, keysOf(files))
	}
	// cgo may pass a Go array of C pointers: the pointers point into C memory.
	flush := C.int(0)
	if allowFlush {
		flush = 1
	}
	if cerr := C.ankusa_ingest_files((*C.rocksdb_t)(d.cdb), C.int(len(cfs)), &cfs[0], &counts[0], &paths[0], &replaced[0], flush); cerr != nil {
		return d.cStatus("ingest", "", cerr)
	}
	return nil
}

func keysOf(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// FileSize is the bytes of the file so far: a writer that cuts a family's rows into
// tables of a compaction's size watches it.
func (s *SSTWriter) FileSize() uint64 { return s.w.FileSize() }
