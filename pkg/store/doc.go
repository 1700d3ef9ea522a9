// Package store is the one way into a store for the commands: a path or a .tar.zst archive
// opened with one Options value (rocks.Options and what every open adds) and one Progress.
//
// Open extracts an archive to a scratch directory that Close removes, and opens it read-only
// (a write to a copy that is thrown away would report success for work that is lost:
// ErrArchiveWrite); it says the WAL replay before RocksDB starts it, since RocksDB says
// nothing until the replay ends (Progress.Wait, from Options.WALShown); when the open fails,
// it adds what the store's files say of the RocksDB that wrote them (rocks.WithNewerRocksDB), the
// message an operator can act on where RocksDB's own is generic. Handle.Reopen opens the
// same store again with other rocks.Options (a dead-letter listing's lookups by key, with
// the indexes on the heap), from the directory already extracted, and Handle.Close closes
// both: a view below the commands reopens through the handle it was given, never through a
// function of theirs.
//
// It stands on pkg/rocks and pkg/archive and on nothing above them: the views (pkg/inspect)
// take a Handle, the commands (cmd) make one, and so do pkg/checkpoint (a checkpoint's
// store opened before its removal), pkg/fixture (a new store) and the bench tools.
package store
