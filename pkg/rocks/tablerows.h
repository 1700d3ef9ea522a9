// What a family holds, by its table files' properties and its memtables' keys.
#ifndef ANKUSA_TABLEROWS_H
#define ANKUSA_TABLEROWS_H

#include <stdint.h>

#include <rocksdb/c.h>

#ifdef __cplusplus
extern "C" {
#endif

// ankusa_table_rows sums the properties of family cf's table files that reach into the n
// ranges [starts[i], limits[i]) (DB::GetPropertiesOfTablesInRange; every file when n is 0)
// and reads the keys of its memtables in them (an iterator of the memtable tier): out[0] the
// files' entries (puts, merges, deletions and range deletions) and the memtables' keys,
// out[1] the files' deletions, out[2] the files' internal keys' bytes (each user key and its
// 8 bytes of sequence and type) and the memtables' keys' bytes (8 bytes more each, the
// same), out[3] the values' bytes of both, out[4] the files' range deletions (among their
// deletions). Returns NULL, or RocksDB's status as text (the caller frees it).
char* ankusa_table_rows(rocksdb_t* db, rocksdb_column_family_handle_t* cf, int n,
                        const char* const* starts, const size_t* start_lens,
                        const char* const* limits, const size_t* limit_lens, uint64_t* out);

#ifdef __cplusplus
}
#endif

#endif
