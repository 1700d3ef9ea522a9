package checkpoint

import (
	"strings"

	"github.com/ankusa/ankusa-store/pkg/diskspace"
)

// Share is what a checkpoint of store taken into dir writes on dir's file system, the one
// figure migrate, its --dry-run, status and a repair check: on the store's own file system
// RocksDB hard-links the table files and copies every other file (the WAL, MANIFEST and
// OPTIONS); on another it copies every file. sameFS says which of the two it is.
func Share(store, dir string) (bytes int64, sameFS bool, err error) {
	same, err := diskspace.SameFS(store, dir)
	if err != nil {
		return 0, false, err
	}
	keep := func(name string) bool { return !strings.HasSuffix(name, ".sst") }
	if !same {
		keep = nil
	}
	n, err := diskspace.DirSize(store, keep)
	return n, same, err
}
