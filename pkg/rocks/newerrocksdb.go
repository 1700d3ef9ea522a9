package rocks

import (
	"errors"
	"fmt"
)

// NewerRocksDB says, in one line, that the store's newest OPTIONS file names a RocksDB newer
// than tool; "" when it does not. It is a fact about the node, not advice: a table this
// build cannot read is refused at open (NewerTableError), and anything else a newer
// RocksDB wrote is read in full or fails with RocksDB's own status.
func NewerRocksDB(fv *FileVersions, tool string) string {
	if !NewerThan(fv.RocksDBVersion, tool) {
		return ""
	}
	return fmt.Sprintf("the store's %s names RocksDB %s, newer than this tool's %s",
		fv.OptionsFile, fv.RocksDBVersion, tool)
}

// WithNewerRocksDB is err, a failed open of the store in dir, with NewerRocksDB added when
// the store's files name a newer RocksDB: the message an operator can act on, where
// RocksDB's own is generic. A table this build cannot read says so itself (ErrNewerTable).
func WithNewerRocksDB(dir string, err error) error {
	if errors.Is(err, ErrNewerTable) {
		return err
	}
	fv, ferr := ReadFileVersions(dir)
	if ferr != nil {
		return err
	}
	if msg := NewerRocksDB(fv, LibraryVersion()); msg != "" {
		return fmt.Errorf("%w (%s)", err, msg)
	}
	return err
}
