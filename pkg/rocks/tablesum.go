package rocks

// The table file checksums, computed by RocksDB's own hash functions (its bundled xxHash,
// exported from librocksdb under XXH_NAMESPACE ROCKSDB_, util/xxhash.h), so that what
// tablecheck.go accepts is exactly what RocksDB would.

// #include <stddef.h>
// unsigned int ROCKSDB_XXH32(const void* p, size_t n, unsigned int seed);
// unsigned long long ROCKSDB_XXH64(const void* p, size_t n, unsigned long long seed);
// unsigned long long ROCKSDB_XXH3_64bits(const void* p, size_t n);
import "C"

import (
	"hash/crc32"
	"unsafe"
)

// RocksDB's ChecksumType (include/rocksdb/table.h).
const (
	sumNone     = 0
	sumCRC32c   = 1
	sumXXHash   = 2
	sumXXHash64 = 3
	sumXXH3     = 4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// blockChecksum is table/format.cc's ComputeBuiltinChecksum over a block's contents followed
// by its one-byte compression type (data holds both); ok is false for a type it does not know.
func blockChecksum(typ byte, data []byte) (sum uint32, ok bool) {
	if len(data) == 0 {
		return 0, false
	}
	p := unsafe.Pointer(&data[0])
	n := C.size_t(len(data))
	switch typ {
	case sumCRC32c:
		return crcMask(crc32.Checksum(data, castagnoli)), true
	case sumXXHash:
		return uint32(C.ROCKSDB_XXH32(p, n, 0)), true
	case sumXXHash64:
		return uint32(C.ROCKSDB_XXH64(p, n, 0)), true
	case sumXXH3:
		// The last byte is mixed in separately (ModifyChecksumForLastByte).
		v := uint32(C.ROCKSDB_XXH3_64bits(p, n-1))
		return v ^ uint32(data[len(data)-1])*0x6b9083d9, true
	}
	return 0, false
}

// crcMask is util/crc32c.h's Mask.
func crcMask(crc uint32) uint32 {
	const maskDelta = 0xa282ead8
	return ((crc >> 15) | (crc << 17)) + maskDelta
}
