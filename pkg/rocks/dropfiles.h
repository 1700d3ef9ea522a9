// Table files dropped whole from a range a range deletion already covers.
#ifndef ANKUSA_DROPFILES_H
#define ANKUSA_DROPFILES_H

#include <rocksdb/c.h>

#ifdef __cplusplus
extern "C" {
#endif

// ankusa_drop_files hands [lo, hi) of the family cf to RocksDB's DeleteFilesInRange with the
// end excluded: every table file of level 1 and below whose keys all lie in [lo, hi) leaves
// the store, in one MANIFEST record, without being read. Returns NULL, or RocksDB's status as
// text (the caller frees it).
char* ankusa_drop_files(rocksdb_t* db, rocksdb_column_family_handle_t* cf, const char* lo,
                        size_t lo_len, const char* hi, size_t hi_len);

#ifdef __cplusplus
}
#endif

#endif
