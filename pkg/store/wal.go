package store

import (
	"os"
	"path/filepath"
	"strings"
)

// WALBytes is the size of the WAL files in a store directory (0 for an archive, whose WAL
// is replayed from its extracted copy).
func WALBytes(dir string) int64 {
	if IsArchive(dir) {
		return 0
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".log") {
			continue
		}
		if fi, err := os.Stat(filepath.Join(dir, e.Name())); err == nil {
			n += fi.Size()
		}
	}
	return n
}
