package migration

import (
	"math"
	"runtime/debug"
)

// bulkGoMemory is the Go runtime's soft memory limit while a bulk run works. The run's
// heap is mostly its fixed buffers (the runs' 32 MiB, the join's batches) and garbage: at
// 10^7 rows over 10^6 tenants 70 to 100 MiB live, which GOGC=100 let grow to 180-220 MiB of
// mapped heap, the peak RSS's largest share beside the counter sums and RocksDB's own. With
// the limit the collector runs sooner when the heap nears it, and gives idle pages back to
// the kernel: the run's peak RSS 269 -> 225 MiB for about the same CPU (the live heap's
// large slices hold no pointers, so a collection marks little). At 10^8 rows over the same
// tenants what RocksDB holds beside grows (115 table files open where the tenth has 16) and
// the read stage peaked at 257 MiB with 150 MiB here; 128 MiB takes the tenth's peak from
// 226-229 to 202-204 MiB for 1 to 3 s more CPU in 47 (release build, alternated runs).
const bulkGoMemory = 128 << 20

// limitGoMemory sets the Go runtime's soft memory limit to n and returns what puts the one
// before back. A limit set already (GOMEMLIMIT, or the program's) is kept: whoever set it
// chose it for this machine.
func limitGoMemory(n int64) (restore func()) {
	prev := debug.SetMemoryLimit(-1)
	if prev != math.MaxInt64 {
		return func() {}
	}
	debug.SetMemoryLimit(n)
	return func() { debug.SetMemoryLimit(prev) }
}
