package rocks

// #include <stdlib.h>
// #include "rockshelp.h"
import "C"

import "unsafe"

// wireBuf is a batch as ankusa_write takes it: each live operation's kind, column family
// handle and four offsets into the batch's bytes. It is kept in the Batch, so that a batch
// written again and again (Clear, refill, Write) allocates nothing once it has grown.
type wireBuf struct {
	kinds []C.uchar
	cfs   []*C.rocksdb_column_family_handle_t
	offs  []C.size_t
}

func (w *wireBuf) reset() {
	w.kinds = w.kinds[:0]
	w.cfs = w.cfs[:0]
	w.offs = w.offs[:0]
}

func (w *wireBuf) add(kind opKind, cf unsafe.Pointer, a, b, c, d int) {
	w.kinds = append(w.kinds, C.uchar(kind))
	w.cfs = append(w.cfs, (*C.rocksdb_column_family_handle_t)(cf))
	w.offs = append(w.offs, C.size_t(a), C.size_t(b), C.size_t(c), C.size_t(d))
}

// write hands the operations to RocksDB in one call (an empty batch too: a synced one
// still syncs the WAL). The caller holds d.mu for reading.
func (w *wireBuf) write(d *DB, data []byte, sync bool) error {
	var kinds *C.uchar
	var cfs **C.rocksdb_column_family_handle_t
	var offs *C.size_t
	if n := len(w.kinds); n > 0 {
		kinds, cfs, offs = &w.kinds[0], &w.cfs[0], &w.offs[0]
	}
	cerr := C.ankusa_write((*C.rocksdb_t)(d.cdb), cbool(sync), C.size_t(len(w.kinds)),
		kinds, cfs, offs, cbytes(data))
	if cerr != nil {
		return cError(cerr)
	}
	return nil
}
