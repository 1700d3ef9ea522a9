// Command migrategen writes a large format 2 store for the bench scripts: ROWS index rows
// over TENANTS tenants, shaped like a node's backlog (hooks of a few hundred bytes with one or
// two sinks, due rows on both sides of now, inflight, dead rows with their delivery rows,
// archive obligations). The fixture command plays the queue's whole history instead, which
// is right for tests and far too slow for 10^6 rows.
//
// It writes the store one of two ways, the same rows from the same seed either way:
//   - tables (the default): every family's rows in sorted table files, written with the
//     family's own table options, made visible by one atomic ingest, as the bulk migration
//     writes (rows.go's stream, tables.go). The hooks, the deliveries and the inflight and
//     archive index keys come out of the stream in key order and go straight to their
//     files (the hooks and deliveries encoded and written on goroutines of their own:
//     async.go); the due and dead index keys, ordered by time first, are sorted externally
//     in runs of bounded size spilled to $TMPDIR (duekeys.go) and written after.
//   - batches: the same rows through RocksDB's write path, unsynced batches of 20,000 then a
//     flush and a compaction of every family (batches.go): the slow path the tables are
//     checked against (gen_test.go), 13 minutes for 10^7 rows on a 2-core machine where the
//     tables take under a minute and a half.
//
// Either way the store ends at rest: every family flushed and compacted, no WAL to replay.
package main
