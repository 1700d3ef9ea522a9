// glibc's malloc gives a thread that finds the arenas busy an arena of its own, up to eight
// per core, and every arena keeps what was freed in it for its own later use. RocksDB
// allocates from its background threads and from every thread a cgo call runs on, and Go
// runs cgo calls on many threads: a migration at 10^7 rows over 10^6 tenants peaked at 233
// MiB of RSS with glibc's default, at 186 MiB with two arenas, for the same CPU within the
// noise (docs/testing.md, bench/memory_bench.sh). A constructor runs before any thread exists,
// so the bound holds for every allocation. MALLOC_ARENA_MAX, when set, is the operator's.
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mallocarenas.h"

__attribute__((constructor)) static void ankusa_malloc_arenas(void) {
	if (getenv("MALLOC_ARENA_MAX") == NULL) mallopt(M_ARENA_MAX, ANKUSA_MALLOC_ARENAS);
}

// ankusa_malloc_heaps counts the arenas malloc has made (malloc_info's <heap> elements).
int ankusa_malloc_heaps(void) {
	char* buf = NULL;
	size_t len = 0;
	FILE* f = open_memstream(&buf, &len);
	if (f == NULL) return -1;
	if (malloc_info(0, f) != 0) {
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	int n = 0;
	for (char* p = buf; (p = strstr(p, "<heap nr=")) != NULL; p++) n++;
	free(buf);
	return n;
}

// ankusa_malloc_churn allocates and frees, for a test that runs it on many threads at once.
void ankusa_malloc_churn(int rounds) {
	for (int i = 0; i < rounds; i++) {
		void* p[64];
		for (int j = 0; j < 64; j++) p[j] = malloc(64 + j * 32);
		for (int j = 0; j < 64; j++) free(p[j]);
	}
}
