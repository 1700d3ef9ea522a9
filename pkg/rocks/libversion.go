package rocks

// #include <rocksdb/version.h>
import "C"

import "fmt"

// LibraryVersion is the version of the RocksDB headers this binary was built against
// (the library is the same build: Debian's package, or the static archive in a release).
func LibraryVersion() string {
	return fmt.Sprintf("%d.%d.%d", C.ROCKSDB_MAJOR, C.ROCKSDB_MINOR, C.ROCKSDB_PATCH)
}
