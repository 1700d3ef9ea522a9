package migration

import (
	"bufio"
	"encoding/binary"
	"errors"
	"os"
	"sort"
	"sync"

	"github.com/ankusa/ankusa-store/internal/scratch"
)

// hookRecords are the hook table's records, 8 bytes a hook (its seq as a
// delta from its block's base, then who its tenant is, hookNames), in hook
// order, in an unnamed file (O_TMPFILE) on the store's own file system. They
// grow with the store (6*10^7 hooks at 10^8 rows: 470 MB) and a lookup
// needs only its block's kilobyte, so they are read back with pread: the
// kernel's page cache holds them, not the process, whose memory stays flat
// however big the store. The file has no name, so nothing is left behind
// however the run ends (kill -9 included): its blocks are freed when the
// process closes it or dies. The migration's space estimate counts it
// (hookTableBytes, in SpaceEstimate.Migration).
type hookRecords struct {
	f *os.File
	w *bufio.Writer
	n int // records written
}

// hookRecordSize is one record's bytes.
const hookRecordSize = 8

// recordsErr is a failure to write the records (no space, say): the run
// looks its hooks up instead, as one without a table does.
type recordsErr struct{ err error }

func (e *recordsErr) Error() string { return "hook table: " + e.err.Error() }
func (e *recordsErr) Unwrap() error { return e.err }

func isRecordsErr(err error) bool {
	var r *recordsErr
	return errors.As(err, &r)
}

// newHookRecords makes the file in dir; an error when the file system has no
// unnamed files (the run then looks its hooks up).
func newHookRecords(dir string) (*hookRecords, error) {
	f, err := scratch.UnnamedFile(dir, "hook table")
	if err != nil {
		return nil, &recordsErr{err: err}
	}
	return &hookRecords{f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

func (r *hookRecords) add(delta, who uint32) error {
	var b [hookRecordSize]byte
	binary.LittleEndian.PutUint32(b[:4], delta)
	binary.LittleEndian.PutUint32(b[4:], who)
	if _, err := r.w.Write(b[:]); err != nil {
		return &recordsErr{err: err}
	}
	r.n++
	return nil
}

// flush writes what the buffer holds, once the last record is added.
func (r *hookRecords) flush() error {
	if err := r.w.Flush(); err != nil {
		return &recordsErr{err: err}
	}
	r.w = nil // its megabyte: nothing is written after this
	return nil
}

// blockBufs are the buffers lookups read a block of records into.
var blockBufs = sync.Pool{New: func() any { return new([hookTableBlock * hookRecordSize]byte) }}

// find reads records first .. end-1 (one block: their deltas increase) and
// returns the who of the one whose delta is delta.
func (r *hookRecords) find(first, end int, delta uint32) (who uint32, ok bool, err error) {
	buf := blockBufs.Get().(*[hookTableBlock * hookRecordSize]byte)
	defer blockBufs.Put(buf)
	b := buf[:(end-first)*hookRecordSize]
	if _, err := r.f.ReadAt(b, int64(first)*hookRecordSize); err != nil {
		return 0, false, err
	}
	n := end - first
	j := sort.Search(n, func(k int) bool { return binary.LittleEndian.Uint32(b[k*hookRecordSize:]) >= delta })
	if j < n && binary.LittleEndian.Uint32(b[j*hookRecordSize:]) == delta {
		return binary.LittleEndian.Uint32(b[j*hookRecordSize+4:]), true, nil
	}
	return 0, false, nil
}

// close frees the file; a nil hookRecords has none.
func (r *hookRecords) close() {
	if r != nil && r.f != nil {
		_ = r.f.Close()
		r.f = nil
	}
}
