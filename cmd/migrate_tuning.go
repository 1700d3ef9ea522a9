package cmd

import "github.com/ankusa/ankusa-store/pkg/rocks"

// migrateTuning bounds every family's memtables at the index family's own
// 16 MiB (RocksDB's default is 64 MiB): the steps write ~4 operations a row,
// and memtables that only flush at 64 MiB would make the process's memory
// grow with the store. Smaller ones bought no speed (the steps' writes reach
// RocksDB sorted, so memtable inserts are cheap either way). See
// bench/migrate_bench.sh. MaxTotalWALSize bounds the WAL during the run, as
// the fixture does: the counters family flushes often, but a family written
// rarely kept every WAL file alive (906 files, 1.1 GB after 10^7 rows), which a
// resume after a crash replays; the migration's end flushes every family, so the
// store it leaves has none (pkg/migration's flushAtRest).
//
// The counters family's memtable stays at the contract's 1 MiB, so it flushes
// every few steps; its L0 triggers are raised so that compaction catching up
// with those small files does not stall the steps' writes, and more
// background jobs keep a flush from waiting behind a compaction (at 10^7
// rows: 79 s of stalls, all in counters, before), and more memtables (8 MiB
// at most) keep its flushes from stopping writes.
//
// Every family compacts its level 0 at 12 files instead of 4: the counters
// family's keys (every tenant's) and the index family's new keys overlap all
// of level 1, so each level-0 compaction rewrote most of level 1. At 10^7
// rows compaction took 113 s of CPU (counters 42, index 71) of the run's
// 252 s on two cores; at 12 files, 45 s (20 and 25). Left at 12, a 10^8-row
// store kept 12 level-0 files in index and 18 in counters, which every later
// seek merges: the migration's end compacts them down to the node's trigger
// (pkg/migration settleAtRest; 6.6 s at 10^8 rows).
//
// The block cache is 16 MiB rather than 32: the steps read the index family once in key
// order, look up delivery rows whose index is on the heap (rocks.Options.LookupFamilies)
// without filling the cache, and read the hooks once into the hook table, so a block is
// seldom read twice; at 10^7 rows over 10^6 tenants the peak RSS went from 194 to 186 MiB
// for the same CPU (209 s, 210 s), margin under the 256 MiB bound that 10^8 rows met at
// 251 MiB with 32.
var migrateTuning = rocks.Tuning{WriteBufferSize: 16 << 20, MaxWriteBufferNumber: 2, MaxTotalWALSize: 64 << 20,
	L0SlowdownTrigger: 128, L0StopTrigger: 256, Parallelism: 4, CountersWriteBuffers: 8, L0CompactionTrigger: 12,
	BlockCacheBytes: 16 << 20}
