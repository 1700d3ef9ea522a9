// The one atomic ingest of table files into several column families.
#ifndef ANKUSA_INGEST_H
#define ANKUSA_INGEST_H

#include <rocksdb/c.h>

#ifdef __cplusplus
extern "C" {
#endif

// ankusa_ingest_files hands table files of n families to RocksDB's DB::IngestExternalFiles in
// one call, counts[i] of them for the family cfs[i], end to end in files in the order of cfs:
// the MANIFEST records all of them or none. Each file
// is moved (hard-linked) into the store, given a global sequence number above every key in
// it when it overlaps what the family holds, after a flush of an overlapping memtable when
// allow_flush (an error instead when not). A family whose replace[i] is not 0 is replaced
// whole: every table file it held leaves it in the same record, and its files go to the last
// level. Returns NULL, or RocksDB's status as text (the caller frees it).
char* ankusa_ingest_files(rocksdb_t* db, int n, rocksdb_column_family_handle_t* const* cfs,
                          const int* counts, const char* const* files, const int* replace,
                          int allow_flush);

// ankusa_pause_background stops RocksDB's flushes and compactions (DB::PauseBackgroundWork:
// it waits for those running to end) until ankusa_continue_background; in memory only.
char* ankusa_pause_background(rocksdb_t* db);
char* ankusa_continue_background(rocksdb_t* db);

#ifdef __cplusplus
}
#endif

#endif
