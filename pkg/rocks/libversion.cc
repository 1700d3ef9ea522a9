// rocksdb/version.h is C++ (it includes <string>), so the header version is
// read here and handed to Go through a C function.
#include <rocksdb/version.h>

extern "C" void ankusa_rocksdb_header_version(int* major, int* minor, int* patch) {
	*major = ROCKSDB_MAJOR;
	*minor = ROCKSDB_MINOR;
	*patch = ROCKSDB_PATCH;
}

// Whether the linked library keeps RocksDB's assertions cannot be read from the
// headers (NDEBUG is the library's compile flag, not ours). It can be read from
// the library itself: rocksdb::SyncPoint::GetInstance() is compiled only under
// the same `#ifndef NDEBUG` as every assert() (test_util/sync_point.cc), and a
// build with assertions references it from the write path (TEST_SYNC_POINT), so
// it is in every such binary, static or dynamic. A weak reference resolves to it
// when it is there and to null when the library was built with NDEBUG; being
// weak, it never pulls the symbol in itself.
extern "C" void* ankusa_rocksdb_sync_point_instance() __asm__("_ZN7rocksdb9SyncPoint11GetInstanceEv")
	__attribute__((weak));

extern "C" int ankusa_rocksdb_has_assertions(void) {
	return ankusa_rocksdb_sync_point_instance != nullptr;
}
