package rocks

import (
	"os"
	"sync"
	"testing"
)

// Threads that allocate at once share malloc's arenas, at most mallocArenas of them
// (mallocarenas.c): glibc would give each contending thread one of its own, up to eight per
// core, each keeping what was freed in it.
func TestMallocArenasAreBounded(t *testing.T) {
	if os.Getenv("MALLOC_ARENA_MAX") != "" {
		t.Fatalf("MALLOC_ARENA_MAX=%s is set: the bound under test is the tool's own", os.Getenv("MALLOC_ARENA_MAX"))
	}
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A cgo call holds its thread: 32 at once run on as many threads.
			mallocChurn(20000)
		}()
	}
	wg.Wait()
	heaps := mallocHeaps()
	t.Logf("%d malloc arenas after 32 threads allocated at once", heaps)
	if heaps < 1 || heaps > mallocArenas {
		t.Fatalf("%d malloc arenas, bound %d", heaps, mallocArenas)
	}
}
