package rocks

// #include <stdlib.h>
// #include "tablerows.h"
import "C"

import "unsafe"

// TableRows is what a family holds by the figures RocksDB keeps of it: its table files'
// properties (written with each file: entries, deletions, raw key and value bytes) and its
// memtables' keys, read. Every live key has a put or a merge among them, so Rows and Bytes
// bound the family's live keys and their bytes from above, in milliseconds where a pass over
// the keys takes seconds (a tenth of a second a million keys on these machines): what an
// overwritten value or a deletion still in the files holds is counted as well. For a store
// compacted to rest they are its keys and bytes.
type TableRows struct {
	Entries   int64 // the files' entries (deletions too) and the memtables' keys
	Deletions int64 // the files' deletions and range deletions
	// RangeDeletions are the files' range deletions, among Deletions: each may delete any
	// number of the entries counted.
	RangeDeletions int64
	KeyBytes       int64 // the user keys' bytes of those entries
	ValueBytes     int64 // their values' bytes (a range deletion's end key is its value)
}

// Rows bounds the family's live keys: its entries less the deletions.
func (t TableRows) Rows() int64 { return t.Entries - t.Deletions }

// Bytes bounds the bytes of the family's live keys and values.
func (t TableRows) Bytes() int64 { return t.KeyBytes + t.ValueBytes }

// internalKeyTrailer is the sequence number and type RocksDB keeps after each user key,
// which a table's raw key size counts.
const internalKeyTrailer = 8

// TableRows reads family cf's TableRows, of the keys in ranges ([lo, hi) each, in order, not
// overlapping), or of the whole family when none are given. A table file that reaches into a
// range is counted whole, the keys it holds outside it too: a range whose keys share files
// with others' (a small store's index family in one or two files) is bounded by them all.
func (d *DB) TableRows(cf string, ranges ...[2][]byte) (TableRows, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	f, err := d.cf(cf)
	if err != nil {
		return TableRows{}, err
	}
	// The keys cross into C in C's memory: cgo passes no Go pointer held in Go memory.
	n := len(ranges)
	starts := make([]*C.char, n+1)
	limits := make([]*C.char, n+1)
	startLens := make([]C.size_t, n+1)
	limitLens := make([]C.size_t, n+1)
	for i, r := range ranges {
		starts[i], startLens[i] = (*C.char)(C.CBytes(r[0])), C.size_t(len(r[0]))
		limits[i], limitLens[i] = (*C.char)(C.CBytes(r[1])), C.size_t(len(r[1]))
	}
	defer func() {
		for i := range n {
			C.free(unsafe.Pointer(starts[i]))
			C.free(unsafe.Pointer(limits[i]))
		}
	}()
	var out [5]C.uint64_t
	if cerr := C.ankusa_table_rows((*C.rocksdb_t)(d.cdb), (*C.rocksdb_column_family_handle_t)(f.c), C.int(n),
		&starts[0], &startLens[0], &limits[0], &limitLens[0], &out[0]); cerr != nil {
		return TableRows{}, d.cStatus("read the table properties", cf, cerr)
	}
	entries := int64(out[0])
	return TableRows{Entries: entries, Deletions: int64(out[1]), RangeDeletions: int64(out[4]),
		KeyBytes: int64(out[2]) - internalKeyTrailer*entries, ValueBytes: int64(out[3])}, nil
}
