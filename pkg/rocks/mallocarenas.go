package rocks

// #include "mallocarenas.h"
import "C"

// mallocArenas is the bound mallocarenas.c sets on malloc's arenas.
const mallocArenas = C.ANKUSA_MALLOC_ARENAS

// mallocHeaps is how many arenas malloc has made, or -1.
func mallocHeaps() int { return int(C.ankusa_malloc_heaps()) }

// mallocChurn allocates and frees on the calling thread, which the cgo call holds.
func mallocChurn(rounds int) { C.ankusa_malloc_churn(C.int(rounds)) }
