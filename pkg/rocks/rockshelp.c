#include <stdlib.h>
#include <string.h>
#include "rockshelp.h"

struct ankusa_iter {
	rocksdb_readoptions_t* ro;
	rocksdb_iterator_t* it;
	char* lo;
	size_t lolen;
	int has_lo;
	char* hi;
	size_t hilen;
	int has_hi;
	size_t skip; // ankusa_iter_set_skip
	char* succ;  // skip bytes: the prefix past the one just read
	char* stop;  // ankusa_iter_range: a forward fill ends at the first key >= stop
	size_t stoplen;
	int has_stop;
};

static char* dup_bytes(const char* p, size_t n) {
	char* d = (char*)malloc(n ? n : 1);
	if (n) memcpy(d, p, n);
	return d;
}

ankusa_iter* ankusa_iter_new(rocksdb_t* db, rocksdb_column_family_handle_t* cf,
                             const rocksdb_snapshot_t* snap, int fill_cache, size_t readahead,
                             const char* lo, size_t lolen, int has_lo,
                             const char* hi, size_t hilen, int has_hi) {
	ankusa_iter* it = (ankusa_iter*)calloc(1, sizeof(ankusa_iter));
	it->ro = rocksdb_readoptions_create();
	rocksdb_readoptions_set_fill_cache(it->ro, (unsigned char)(fill_cache != 0));
	if (readahead) rocksdb_readoptions_set_readahead_size(it->ro, readahead);
	if (snap) rocksdb_readoptions_set_snapshot(it->ro, snap);
	if (has_lo) {
		it->lo = dup_bytes(lo, lolen);
		it->lolen = lolen;
		it->has_lo = 1;
		rocksdb_readoptions_set_iterate_lower_bound(it->ro, it->lo, it->lolen);
	}
	if (has_hi) {
		it->hi = dup_bytes(hi, hilen);
		it->hilen = hilen;
		it->has_hi = 1;
		rocksdb_readoptions_set_iterate_upper_bound(it->ro, it->hi, it->hilen);
	}
	it->it = rocksdb_create_iterator_cf(db, it->ro, cf);
	return it;
}

void ankusa_iter_seek(ankusa_iter* it) {
	if (it->has_lo) rocksdb_iter_seek(it->it, it->lo, it->lolen);
	else rocksdb_iter_seek_to_first(it->it);
}

void ankusa_iter_range(ankusa_iter* it, const char* lo, size_t lolen, const char* hi, size_t hilen, int has_hi) {
	free(it->stop);
	it->stop = has_hi ? dup_bytes(hi, hilen) : NULL;
	it->stoplen = hilen;
	it->has_stop = has_hi;
	rocksdb_iter_seek(it->it, lo, lolen);
}

// at_stop says whether k is at or past the iterator's stop key, in the bytewise order of the
// store's comparator.
static int at_stop(const ankusa_iter* it, const char* k, size_t klen) {
	if (!it->has_stop) return 0;
	size_t n = klen < it->stoplen ? klen : it->stoplen;
	int c = memcmp(k, it->stop, n);
	return c > 0 || (c == 0 && klen >= it->stoplen);
}

void ankusa_iter_set_skip(ankusa_iter* it, size_t prefix_len) {
	free(it->succ);
	it->skip = prefix_len;
	it->succ = prefix_len ? (char*)malloc(prefix_len) : NULL;
}

// skip_nexts is how many Nexts skip_past tries before it seeks: a run of a few keys (a tenant
// with one due row, the common case at 10^6 tenants) is left cheaper by Next than by a seek,
// which costs about as much as a dozen Nexts.
#define skip_nexts 4

// skip_past moves to the first key whose first it->skip bytes are greater than k's: a few
// Nexts, then a seek to the prefix taken as a big-endian number plus one. Returns 0 when
// there is no such prefix (k's is all 0xff bytes) and the keys left all share k's, which
// ends the iteration.
static int skip_past(ankusa_iter* it, const char* k) {
	memcpy(it->succ, k, it->skip); // k is the iterator's: copied before it moves
	for (int i = 0; i < skip_nexts; i++) {
		rocksdb_iter_next(it->it);
		if (!rocksdb_iter_valid(it->it)) return 1;
		size_t klen;
		const char* nk = rocksdb_iter_key(it->it, &klen);
		if (klen < it->skip || memcmp(nk, it->succ, it->skip) != 0) return 1;
	}
	size_t n = it->skip;
	while (n > 0 && (unsigned char)it->succ[n - 1] == 0xff) n--;
	if (n == 0) return 0;
	it->succ[n - 1]++;
	rocksdb_iter_seek(it->it, it->succ, n);
	return 1;
}

void ankusa_iter_seek_last(ankusa_iter* it) {
	// With iterate_upper_bound set, SeekToLast lands on the last key below it.
	rocksdb_iter_seek_to_last(it->it);
}

int ankusa_iter_fill(ankusa_iter* it, int reverse, int keys_only, char* buf, size_t cap,
                     int max_entries, size_t* used, size_t* last, size_t* need, int* done) {
	size_t off = 0;
	int n = 0;
	*need = 0;
	*done = 0;
	*last = 0;
	while (n < max_entries) {
		if (!rocksdb_iter_valid(it->it)) {
			*done = 1;
			break;
		}
		size_t klen, vlen;
		const char* k = rocksdb_iter_key(it->it, &klen);
		if (!reverse && at_stop(it, k, klen)) {
			*done = 1;
			break;
		}
		const char* v = NULL;
		vlen = 0;
		if (!keys_only) v = rocksdb_iter_value(it->it, &vlen);
		size_t sz = 8 + klen + vlen;
		if (sz > cap - off) {
			if (n == 0) *need = sz;
			break;
		}
		uint32_t k32 = (uint32_t)klen, v32 = (uint32_t)vlen;
		memcpy(buf + off, &k32, 4);
		memcpy(buf + off + 4, &v32, 4);
		memcpy(buf + off + 8, k, klen);
		if (vlen) memcpy(buf + off + 8 + klen, v, vlen);
		*last = off;
		off += sz;
		n++;
		if (reverse) rocksdb_iter_prev(it->it);
		else if (it->skip && klen >= it->skip) {
			if (!skip_past(it, k)) {
				*done = 1;
				break;
			}
		} else rocksdb_iter_next(it->it);
	}
	*used = off;
	return n;
}

char* ankusa_iter_error(ankusa_iter* it) {
	char* err = NULL;
	rocksdb_iter_get_error(it->it, &err);
	return err;
}

void ankusa_iter_free(ankusa_iter* it) {
	if (!it) return;
	// The iterator refers to the read options (and they to the bounds): free
	// in reverse order of creation.
	rocksdb_iter_destroy(it->it);
	rocksdb_readoptions_destroy(it->ro);
	free(it->lo);
	free(it->hi);
	free(it->succ);
	free(it->stop);
	free(it);
}

void ankusa_multiget(rocksdb_t* db, rocksdb_column_family_handle_t* cf,
                     const rocksdb_snapshot_t* snap, int fill_cache, size_t n,
                     const char* kbuf, const size_t* klens,
                     rocksdb_pinnableslice_t** vals, size_t* vlens, char** errs) {
	if (n == 0) return;
	const char** keys = (const char**)malloc(n * sizeof(char*));
	size_t off = 0;
	for (size_t i = 0; i < n; i++) {
		keys[i] = kbuf + off;
		off += klens[i];
	}
	rocksdb_readoptions_t* ro = rocksdb_readoptions_create();
	rocksdb_readoptions_set_fill_cache(ro, (unsigned char)(fill_cache != 0));
	if (snap) rocksdb_readoptions_set_snapshot(ro, snap);
	rocksdb_batched_multi_get_cf(db, ro, cf, n, keys, klens, vals, errs, 0);
	rocksdb_readoptions_destroy(ro);
	free(keys);
	for (size_t i = 0; i < n; i++) {
		vlens[i] = 0;
		if (vals[i]) {
			size_t l = 0;
			rocksdb_pinnableslice_value(vals[i], &l);
			vlens[i] = l;
		}
	}
}

void ankusa_multiget_collect(size_t n, rocksdb_pinnableslice_t** vals, char* out) {
	size_t off = 0;
	for (size_t i = 0; i < n; i++) {
		if (!vals[i]) continue;
		size_t l = 0;
		const char* v = rocksdb_pinnableslice_value(vals[i], &l);
		if (l) memcpy(out + off, v, l);
		off += l;
		rocksdb_pinnableslice_destroy(vals[i]);
		vals[i] = NULL;
	}
}

void ankusa_options_destroy(rocksdb_options_t* o) { rocksdb_options_destroy(o); }

char* ankusa_write(rocksdb_t* db, int sync, size_t n, const unsigned char* kinds,
                   rocksdb_column_family_handle_t* const* cfs, const size_t* offs, const char* data) {
	rocksdb_writebatch_t* wb = rocksdb_writebatch_create();
	for (size_t i = 0; i < n; i++) {
		const size_t* o = offs + 4 * i;
		const char* k = data + o[0];
		const char* v = data + o[2];
		size_t kl = o[1] - o[0], vl = o[3] - o[2];
		switch (kinds[i]) {
		case ANKUSA_OP_PUT: rocksdb_writebatch_put_cf(wb, cfs[i], k, kl, v, vl); break;
		case ANKUSA_OP_DELETE: rocksdb_writebatch_delete_cf(wb, cfs[i], k, kl); break;
		case ANKUSA_OP_MERGE: rocksdb_writebatch_merge_cf(wb, cfs[i], k, kl, v, vl); break;
		case ANKUSA_OP_DELETE_RANGE: rocksdb_writebatch_delete_range_cf(wb, cfs[i], k, kl, v, vl); break;
		}
	}
	rocksdb_writeoptions_t* wo = rocksdb_writeoptions_create();
	rocksdb_writeoptions_set_sync(wo, (unsigned char)(sync != 0));
	char* err = NULL;
	rocksdb_write(db, wo, wb, &err);
	rocksdb_writeoptions_destroy(wo);
	rocksdb_writebatch_destroy(wb);
	return err;
}

int ankusa_sst_add(rocksdb_sstfilewriter_t* w, size_t n, const unsigned char* kinds, const size_t* offs,
                   const char* data, char** err) {
	for (size_t i = 0; i < n; i++) {
		const size_t* o = offs + 3 * i;
		if (kinds[i] == ANKUSA_OP_DELETE) {
			rocksdb_sstfilewriter_delete(w, data + o[0], o[1] - o[0], err);
		} else {
			rocksdb_sstfilewriter_put(w, data + o[0], o[1] - o[0], data + o[1], o[2] - o[1], err);
		}
		if (*err) return (int)i;
	}
	return (int)n;
}
