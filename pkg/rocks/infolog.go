package rocks

// #include <stdlib.h>
// #include <rocksdb/c.h>
// void ankusa_set_dropping_info_log(rocksdb_options_t* opts, const char* path);
import "C"

import (
	"path/filepath"
	"unsafe"

	"github.com/linxGnu/grocksdb"
)

// setDroppingInfoLog makes RocksDB write its info log for the store in dir to
// dir/LOG through a logger that drops the lines a full disk refuses, instead of
// RocksDB's own, which aborts the process on the first line logged after a failed
// one (see infolog.cc). Read-write opens use it: they are the ones that can fill a
// disk. The LOG is appended to, not rotated to LOG.old.<time>.
func setDroppingInfoLog(o *grocksdb.Options, dir string) {
	p := C.CString(filepath.Join(dir, "LOG"))
	defer C.free(unsafe.Pointer(p))
	C.ankusa_set_dropping_info_log((*C.rocksdb_options_t)(optionsPtr(o)), p)
}
