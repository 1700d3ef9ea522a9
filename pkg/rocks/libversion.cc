// rocksdb/version.h is C++ (it includes <string>), so the header version is
// read here and handed to Go through a C function.
#include <rocksdb/version.h>

extern "C" void ankusa_rocksdb_header_version(int* major, int* minor, int* patch) {
	*major = ROCKSDB_MAJOR;
	*minor = ROCKSDB_MINOR;
	*patch = ROCKSDB_PATCH;
}
