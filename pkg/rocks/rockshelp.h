// C helpers for package rocks: batched iteration and batched multi-get.
// Each call does the work of many cgo crossings (see doc.go for why).
#ifndef ANKUSA_ROCKSHELP_H
#define ANKUSA_ROCKSHELP_H

#include <stddef.h>
#include <stdint.h>
#include <rocksdb/c.h>

typedef struct ankusa_iter ankusa_iter;

// ankusa_iter_new creates an iterator over cf bounded to [lo, hi) (a bound is
// absent when its has_ flag is 0). The bounds are copied into C memory that
// lives as long as the iterator, because RocksDB keeps only a pointer to them. readahead,
// when not 0, is ReadOptions::readahead_size (ReadOpts.Readahead).
ankusa_iter* ankusa_iter_new(rocksdb_t* db, rocksdb_column_family_handle_t* cf,
                             const rocksdb_snapshot_t* snap, int fill_cache, size_t readahead,
                             const char* lo, size_t lolen, int has_lo,
                             const char* hi, size_t hilen, int has_hi);

// ankusa_iter_seek positions forward at the first key >= lo (or the first key).
void ankusa_iter_seek(ankusa_iter* it);
// ankusa_iter_range positions a forward iterator made without bounds at the first key >= lo
// and makes its fills end before the first key >= hi (has_hi 0: none). One iterator reads
// range after range of a family this way, keeping its table files' readers and readahead.
void ankusa_iter_range(ankusa_iter* it, const char* lo, size_t lolen, const char* hi, size_t hilen, int has_hi);
// ankusa_iter_set_skip makes every later forward fill copy only the first key of each run
// of keys sharing their first prefix_len bytes, and seek past the rest (0: every key). A key
// shorter than prefix_len is followed by the next key, as without skipping.
void ankusa_iter_set_skip(ankusa_iter* it, size_t prefix_len);
// ankusa_iter_seek_last positions at the last key < hi (or the last key).
void ankusa_iter_seek_last(ankusa_iter* it);

// ankusa_iter_fill copies entries from the current position into buf, each as
// [klen u32][vlen u32][key][value] (native byte order), advancing (Next, or
// Prev when reverse) past every entry copied. It stops when the buffer or
// max_entries is full or the iterator is exhausted (*done = 1). When the first
// entry does not fit at all, it returns 0 and sets *need to its size, leaving
// the iterator on it. Returns the number of entries copied; *used is the
// number of bytes written. With keys_only every value is copied as empty:
// a join that needs only the keys (the hooks of verify) does not pay for
// copying values that are most of the family's bytes. *last is the offset of
// the last entry copied, for a reader handed the buffer whole (a Fill).
int ankusa_iter_fill(ankusa_iter* it, int reverse, int keys_only, char* buf, size_t cap,
                     int max_entries, size_t* used, size_t* last, size_t* need, int* done);

// ankusa_iter_error returns the iterator's error (malloc'd, free with
// rocksdb_free) or NULL.
char* ankusa_iter_error(ankusa_iter* it);

void ankusa_iter_free(ankusa_iter* it);

// ankusa_multiget looks up n keys (packed back to back in kbuf, lengths in
// klens) with one rocksdb_batched_multi_get_cf. vals[i] is NULL when the key
// is absent; errs[i] holds an error string (free with rocksdb_free). vlens[i]
// receives each found value's length.
void ankusa_multiget(rocksdb_t* db, rocksdb_column_family_handle_t* cf,
                     const rocksdb_snapshot_t* snap, int fill_cache, size_t n,
                     const char* kbuf, const size_t* klens,
                     rocksdb_pinnableslice_t** vals, size_t* vlens, char** errs);

// ankusa_multiget_collect copies the found values back to back into out and
// destroys the pinnable slices.
void ankusa_multiget_collect(size_t n, rocksdb_pinnableslice_t** vals, char* out);

// The kinds of ankusa_write's operations (package rocks's opKind).
enum { ANKUSA_OP_PUT = 0, ANKUSA_OP_DELETE = 1, ANKUSA_OP_MERGE = 2, ANKUSA_OP_DELETE_RANGE = 3 };

// ankusa_write applies n operations as one write batch with one rocksdb_write: operation i
// is kinds[i] on cfs[i], its key data[offs[4i]:offs[4i+1]] and its value (or range end)
// data[offs[4i+2]:offs[4i+3]]. It returns the write's error (malloc'd, free with
// rocksdb_free) or NULL. One cgo call a batch instead of one an operation.
char* ankusa_write(rocksdb_t* db, int sync, size_t n, const unsigned char* kinds,
                   rocksdb_column_family_handle_t* const* cfs, const size_t* offs, const char* data);

// ankusa_sst_add adds n puts and deletions to a table file's writer in one call: entry i is
// kinds[i] (ANKUSA_OP_PUT or ANKUSA_OP_DELETE), its key data[offs[3i]:offs[3i+1]] and its
// value data[offs[3i+1]:offs[3i+2]]. It stops at the first that fails, with RocksDB's error
// in *err (malloc'd, free with rocksdb_free), and returns how many it added.
int ankusa_sst_add(rocksdb_sstfilewriter_t* w, size_t n, const unsigned char* kinds, const size_t* offs,
                   const char* data, char** err);

// ankusa_options_destroy frees an options object without touching the merge
// operator it holds: the options own it through a shared_ptr, so grocksdb's
// extra rocksdb_mergeoperator_destroy would free it twice.
void ankusa_options_destroy(rocksdb_options_t* o);

#endif
