package rocks

// void ankusa_rocksdb_header_version(int* major, int* minor, int* patch);
// int ankusa_rocksdb_has_assertions(void);
import "C"

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// LibraryVersion is the version of the RocksDB headers this binary was built against
// (the library is the same build: scripts/build-rocksdb.sh's static archive).
func LibraryVersion() string {
	var major, minor, patch C.int
	C.ankusa_rocksdb_header_version(&major, &minor, &patch)
	return fmt.Sprintf("%d.%d.%d", major, minor, patch)
}

// LibraryAssertions says whether the RocksDB this process runs was compiled with its
// assertions (without NDEBUG): Debian's binary package is (its CMake build type is not
// Release); scripts/build-rocksdb.sh's Release build, which every binary links, is not. It
// is read from the library itself (libversion.cc), not from a flag the build passed, so a
// binary cannot claim a release build it does not have.
func LibraryAssertions() bool {
	return C.ankusa_rocksdb_has_assertions() != 0
}

// LibraryFile is the shared librocksdb the process has mapped, or "" when RocksDB is linked
// into the binary itself. Read from /proc/self/maps: what the loader did, not what the
// build meant to do.
func LibraryFile() string {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 {
			continue
		}
		path := fields[len(fields)-1]
		if strings.HasPrefix(filepath.Base(path), "librocksdb.so") {
			return path
		}
	}
	return ""
}
