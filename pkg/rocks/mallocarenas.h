#ifndef ANKUSA_MALLOCARENAS_H
#define ANKUSA_MALLOCARENAS_H

// How many malloc arenas the process may have (mallocarenas.c).
#define ANKUSA_MALLOC_ARENAS 2

int ankusa_malloc_heaps(void);
void ankusa_malloc_churn(int rounds);

#endif
