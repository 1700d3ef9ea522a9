// Package rocks is the tool's only door to RocksDB (grocksdb v1.11.1 over
// RocksDB 11.1.2, upstream's v11.1.2 built as a Release build and linked
// statically): opening a store in one of three modes, the format guard, the
// table-format guard and the write rule, the counters merge operator, reads,
// folds and batched writes. The erlang-rocksdb releases a node may run, with the
// RocksDB and codecs each vendors, are here once (releases.go): status, version,
// fixture, the write rule's codecs and the docs test read them, and a store the
// tool creates is left with its node's OPTIONS file (nodeoptions.go).
//
// The code's shape follows from things measured with this exact binding and
// library build; each is a reason, not a style choice:
//
//   - Closing a DB before destroying its column family handles aborts the
//     process. DB.Close destroys the handles first, then closes, under a
//     write lock so that no read is running.
//   - Reading a merge key through a family opened without the merge operator
//     fails (a build with assertions aborts). Open lists the
//     column families first and opens every one of them; counters always gets
//     the operator (and the contract's 1 MiB write buffer, no compression).
//   - Options holding a Go merge operator own it through a shared_ptr;
//     grocksdb's Options.Destroy frees it a second time (a double free after
//     the DB closed, a use-after-free before). Options are kept alive until
//     after Close and then freed with rocksdb_options_destroy alone
//     (TestOpenCloseCycles).
//   - The merge operator is erlang-rocksdb's ErlangMergeOperator, int_add
//     only, FullMerge only: no partial merge, as the NIF has none. A failed
//     merge makes RocksDB return Corruption; during a flush or compaction it
//     also puts the DB into background error (later writes fail, the store
//     then opens read-only only, and a read-write open fails in WAL recovery).
//     Readers report the key as corrupt (*KeyError, errors.Is ErrCorrupt) and
//     carry on: an iterator that hits a failed merge only says "Corruption",
//     so the operator remembers the key it failed on, to name it.
//   - ReadOnly opens with error_if_wal_file_exists=false (a cleanly closed
//     node store keeps a WAL file), takes no LOCK and writes nothing, so it
//     works while the node runs; the store's files stay byte-identical
//     (TestReadOnlyLeavesFilesIdentical). Nothing is ever created for a
//     missing store: CreateIfMissing is only set in Create mode, and a
//     directory without CURRENT is refused before RocksDB sees it.
//   - RocksDB discovers a held LOCK only after it has rotated the info log
//     (LOG -> LOG.old.<time>). A ReadWrite open therefore first asks the
//     kernel (fcntl F_GETLK on a read-only descriptor, the lock RocksDB takes
//     with F_SETLK) whether the node holds LOCK, and refuses with ErrLocked,
//     "store is locked (is the node running?)", having changed nothing
//     (lockprobe.go; internal/faults TestLockedStoreIsUntouched).
//   - Errors are classified by RocksDB's status, parsed back from the C API's
//     text (Status::ToString: the code's name, the subcode's text, the state;
//     status.go): Corruption is ErrCorrupt, IOError/NoSpace is ErrNoSpace, the
//     LOCK failure on this store's own LOCK file is ErrLocked. A path or other
//     words in the message never decide a class.
//   - One read in RocksDB parses a block before checking its checksum: a
//     table file's properties block (table/meta_blocks.cc); a flipped bit
//     there aborts a build with assertions while the DB opens, and a release
//     build parses the damaged block. Every
//     open first verifies each table file's metaindex and properties block
//     checksums itself, with RocksDB's own hash functions (tablecheck.go,
//     tablesum.go; about 1/60 of what sst_dump takes to open the same files,
//     bench/tablecheck_vs_sstdump.sh). The same pass reads every footer
//     (tablefooter.go): a table of a format_version newer than this build
//     reads is refused as ErrNewerTable before RocksDB would call it
//     corrupt. Every other block is verified by
//     RocksDB before it is parsed (verify_checksums on every read,
//     paranoid_checks at open). A WAL record damaged before the tail is an
//     error (TolerateCorruptedTailRecords), not a silent point-in-time cut; a
//     torn tail is recovered, as a crash leaves it.
//   - ReadOnly and Secondary open every table file up front (max_open_files
//     -1). An open that fails because a file it listed vanished (a live
//     writer's flush or compaction; by status: PathNotFound, also when wrapped
//     in a Corruption) is retried while each attempt misses another file, up
//     to openRetries attempts (a count, not a time: a loaded machine slows the
//     attempts); a file missing a second time, on any attempt, is damage
//     (internal/faults TestChurn, TestDamagedFiles).
//   - The fold is the product's hot path. A plain grocksdb loop makes four
//     cgo calls a key (Valid, Key, Value, Next) and reads ~0.9M keys/s, 0.44x
//     of db_bench readseq. A small C helper (rockshelp.c) copies up to 4096
//     entries per call into a Go buffer; it reads 2.1-2.4M keys/s here, on par
//     with db_bench readseq on the same files (bench/fold_vs_dbbench.sh).
//     Entries bigger than the buffer get a buffer of their own. A reader on
//     a goroutine of its own (the views' joins, diff) takes each fill whole
//     (ScanFills), so that nothing is copied again to hand entries on.
//     Writes likewise: a Batch crosses in one call (ankusa_write builds the
//     WriteBatch in C), not one grocksdb call an operation.
//   - A read-write open writes its tables as the store's node reads them
//     (writerule.go): format_version, checksum and compression per family from
//     the node's OPTIONS file, never RocksDB 11.1's own defaults (format 7,
//     which no node before erlang-rocksdb 3.x reads).
//   - grocksdb has no accessor for its C handles, which the C helpers
//     need: cptr.go reads the unexported "c" field with reflect+unsafe, and
//     TestCPointerLayout fails if a grocksdb upgrade moves it. Iterators and
//     their read options are created in C, with the bounds copied into C
//     memory, because RocksDB keeps only a pointer to them.
//   - A fold must start at its family's lo sentinel and reach its hi
//     sentinel: the binding can report corruption as a plain end of
//     iteration. A fold that does not is a *CutShortError naming the family.
//   - RocksDB's C API drops the status of a manual compaction, so
//     CompactRange watches the rocksdb.background-errors property.
package rocks
