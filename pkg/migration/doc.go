// Package migration upgrades a store from one format to the next: a registry of
// steps and a runner. Today it holds one entry, {2, 3, TenantKeys}, the 2 -> 3
// migration of design record TEN-1.a as the store contract pins it
// (docs/format.md, "The 2 -> 3 migration, byte by byte"), which re-keys the
// due, inflight and dead rows by tenant ordinal and seeds the per-tenant
// counters.
//
// # Crash safety
//
// The migration is a one-way door, and a node may lose power in the middle of
// it, so every state it leaves behind is one it can resume from:
//
//   - The preparation (families, sentinels, m:next_ord, the cursor and the
//     start time) is one synced batch, skipped on resume. Creating the two new
//     column families happens just before it and is skipped where done.
//   - Each step reads at most 500 rows after the cursor and commits their row
//     operations, counter merges, new ordinals and the new cursor in one synced
//     batch. A crash loses a whole step or nothing; the rerun seeks to the
//     cursor's last_old_key (skipping it if it is still there, never starting a
//     family over: moved rows are tombstones) and recomputes exactly the batch
//     that was lost.
//   - The finish (range deletes of the old d and f families, the cursor and
//     start-time keys removed, m:format = 3) rides in the batch of the last
//     step.
//
// Everything a step writes is a pure function of the input store, the
// persisted start time and the ordinals already committed: ordinals are handed
// out in first-sight order over phases 1 to 4, and a resumed run reads
// m:next_ord and the ordinals it needs from the store. So a run killed at any
// instant and resumed ends byte-identical, key for key and value for value,
// to a run that was never interrupted (the kill -9 test in cmd checks this).
//
// # Speed
//
// A step's cost is its synced write and the random reads of its hooks. Run
// overlaps them: one goroutine scans the next steps' keys (the scan of step
// N+1 only needs step N's last key, not its writes; one iterator serves a few
// steps), fetch workers multi-get and decode the hooks and delivery rows of
// several steps at once, one goroutine resolves tenants to ordinals and
// encodes the batches strictly in step order, and the calling goroutine
// commits them in order. A crash in the middle of that pipeline loses only
// uncommitted steps, which the rerun recomputes identically; an error met
// reading ahead stops the run right before the step it belongs to.
//
// A step's ~2 000 writes reach RocksDB sorted by family and key (opBuf), so
// its memtable inserts follow each other instead of searching the skiplist
// from the top: alone, the batches commit about twice as fast as db_bench's
// fillrandom writes as many operations. bench/migrate_bench.sh measures the
// whole run against that floor.
//
// # The bulk method
//
// RunBulk writes the same store another way (bulk*.go): it runs the same steps with their
// commits withheld, keeps their writes in sorted runs, resolves each key's writes as RocksDB
// would, writes one table file per column family with the write rule's options and makes
// them visible with one atomic ingest. Before the ingest the store is as it was; after it,
// migrated: never half-way. docs/format.md, "The bulk commit", says why the result is the
// steps'. Two goroutines of its own use the second core: the runs' feed takes the builder's
// steps into the runs and spills them (bulkfeed.go), and each family's table file is written
// by a writer of its own while the merge resolves the next keys (bulkwriters.go). Its
// memory is bounded, not grown with the rows: the runs, the joins' batches and the writers'
// buffers are fixed, the counter sums (bulkcounters.go) and the hook table's names grow with
// the tenants only, and the Go collector is held to a soft limit while it runs
// (bulkmemory.go), since its heap is mostly garbage.
//
// # Values it will not guess
//
// The contract says what to do with a missing or undecodable hook (file under
// "default"), a missing or undecodable delivery row (size 0) and a stray key
// (count it, do not migrate it); the migration counts and reports each of
// them. An index value it would have to rewrite but cannot read (a due,
// inflight or archive value that is not <<size::32>>, a dead value that is not
// {source_id, id}) is not covered by the contract; the node's own migration
// would crash on it, and this one stops with an error naming the key rather
// than invent a size or an id. Plan (the dry run) finds such values before
// anything is written.
package migration
