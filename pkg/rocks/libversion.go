package rocks

// void ankusa_rocksdb_header_version(int* major, int* minor, int* patch);
import "C"

import "fmt"

// LibraryVersion is the version of the RocksDB headers this binary was built against
// (the library is the same build: Debian's package, or the static archive in a release).
func LibraryVersion() string {
	var major, minor, patch C.int
	C.ankusa_rocksdb_header_version(&major, &minor, &patch)
	return fmt.Sprintf("%d.%d.%d", major, minor, patch)
}
