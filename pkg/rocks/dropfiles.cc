// RocksDB's C API has rocksdb_delete_file_in_range_cf, but it includes the range's end: a
// file whose last key is the end itself (a key the range deletion does not cover) would go
// with the rest. DeleteFilesInRange takes include_end.

#include <stdlib.h>
#include <string.h>

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>

#include "dropfiles.h"

// The C API's handles hold the C++ objects (db/c.cc); these repeat its definitions, as
// ingest.cc does.
struct rocksdb_t {
	rocksdb::DB* rep;
};
struct rocksdb_column_family_handle_t {
	rocksdb::ColumnFamilyHandle* rep;
	bool immortal;
};

char* ankusa_drop_files(rocksdb_t* db, rocksdb_column_family_handle_t* cf, const char* lo,
                        size_t lo_len, const char* hi, size_t hi_len) {
	rocksdb::Slice begin(lo, lo_len), end(hi, hi_len);
	rocksdb::Status s = rocksdb::DeleteFilesInRange(db->rep, cf->rep, &begin, &end, false);
	if (s.ok()) {
		return nullptr;
	}
	return strdup(s.ToString().c_str());
}
