package rocks

import "github.com/linxGnu/grocksdb"

// blockCacheBytes is the one block cache of an open store, shared by all its families, in
// every mode. It holds the blocks point reads fill it with and, unless the open looks keys up
// at random (Options.RandomLookups, or in some families, Options.LookupFamilies), every
// table's index and filter blocks, at high priority, so that what the tables cost a scanning
// reader or a writer in memory is bounded by it and not by the store's size.
//
// Without it, each family's table factory made its own cache (RocksDB 9 and later: 32 MiB
// each when none is set; the write rule's 8 MiB each before), and the index and filter
// blocks of every table were held by the table readers outside any cache: RocksDB keeps
// every table open when max_open_files is -1, which read-only and secondary opens need
// and is the default. A table's index is about 1.5% of it (a megabyte for a 64 MiB table of
// the index family): at 10^8 rows (a 9.4 GB store) some 140 MB that grew with the store,
// and counters verify peaked at 563 MiB, diff at 369 MiB (docs/testing.md, the 10^8-row run).
// A reader that walks the families in key order needs one index block a table at a time;
// one that looks up at random needs them all, and gets them on the heap as before.
const blockCacheBytes = 32 << 20

// newBlockCache is the store's one cache. The table factories hold it by a shared_ptr; the
// DB's handle goes with the options (freeOptions).
// bytes, when > 0, replaces blockCacheBytes (Tuning.BlockCacheBytes).
func newBlockCache(bytes uint64) *grocksdb.Cache {
	if bytes == 0 {
		bytes = blockCacheBytes
	}
	return grocksdb.NewLRUCache(bytes)
}

// tableOptions are the block-based table options every family is opened with: the shared
// cache, and index and filter blocks in it unless indexOnHeap. The write rule adds how new
// tables are written (TableRule.apply); nothing here changes a table's bytes.
func tableOptions(cache *grocksdb.Cache, indexOnHeap bool) *grocksdb.BlockBasedTableOptions {
	bbto := grocksdb.NewDefaultBlockBasedTableOptions()
	bbto.SetBlockCache(cache)
	if indexOnHeap {
		return bbto
	}
	bbto.SetCacheIndexAndFilterBlocks(true)
	// Index blocks are what every read of a table needs first: they stay while data blocks
	// read once by a point lookup go.
	bbto.SetCacheIndexAndFilterBlocksWithHighPriority(true)
	// A partitioned index's top level is small and read by every lookup in its table.
	bbto.SetPinTopLevelIndexAndFilter(true)
	return bbto
}

// setTableFactory sets bbto on opts and frees the Go handle: the factory holds a copy of
// the table options (rocksdb_options_set_block_based_table_factory).
func setTableFactory(opts *grocksdb.Options, bbto *grocksdb.BlockBasedTableOptions) {
	opts.SetBlockBasedTableFactory(bbto)
	bbto.Destroy()
}
