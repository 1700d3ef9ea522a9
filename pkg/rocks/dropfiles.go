package rocks

// #include <stdlib.h>
// #include "dropfiles.h"
import "C"

import "errors"

// DropFiles removes from the family cf every table file of level 1 and below whose keys all
// lie in [lo, hi), without reading or rewriting them: one MANIFEST record. It is for a range
// a range deletion already covers, once that deletion is committed: what the files held is
// deleted already, and what compaction would have spent reading them and writing nothing
// back is not spent. A file in L0, one that reaches outside the range, one whose last key is
// hi, and a file being compacted stay (the range deletion still covers what they hold).
func (d *DB) DropFiles(cf string, lo, hi []byte) error {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.dropFiles(cf, lo, hi)
}

// dropFiles is DropFiles with d.mu held.
func (d *DB) dropFiles(cf string, lo, hi []byte) error {
	if d.closed {
		return ErrClosed
	}
	if d.mode != ReadWrite {
		return ErrReadOnly
	}
	if len(lo) == 0 || len(hi) == 0 {
		return errors.New("rocks: drop files: the range needs both ends")
	}
	f, err := d.cf(cf)
	if err != nil {
		return err
	}
	clo, chi := C.CBytes(lo), C.CBytes(hi)
	defer C.free(clo)
	defer C.free(chi)
	cerr := C.ankusa_drop_files((*C.rocksdb_t)(d.cdb), (*C.rocksdb_column_family_handle_t)(f.c),
		(*C.char)(clo), C.size_t(len(lo)), (*C.char)(chi), C.size_t(len(hi)))
	if cerr != nil {
		return d.cStatus("drop files", cf, cerr)
	}
	return nil
}
