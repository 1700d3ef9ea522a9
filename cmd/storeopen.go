package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ankusa/ankusa-store/internal/ui/progress"
	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// walReplayShown is the WAL size from which opening a store is shown as progress: RocksDB
// replays the WAL before Open returns (4 s at 63 MB, 11 s after a 10^7-row migration), and a
// silent terminal for that long looks hung.
const walReplayShown = 8 << 20

// openStore opens a store as openStore does, and shows the WAL replay when there is one to
// wait for: "opening STORE (replaying N MiB of WAL)".
func (e *Env) openStore(path string, o rocks.Options) (*rocks.Store, func(), error) {
	if o.Mode == rocks.ReadWrite {
		e.wrote = true
	}
	wal := walBytes(path)
	var p *progress.Progress
	if wal >= walReplayShown {
		p = e.Progress(fmt.Sprintf("opening %s (replaying %s of WAL)", path, words.Bytes(int64(wal))), "", 0)
		p.Show() // RocksDB says nothing until the replay ends: say it before
	}
	st, closeFn, err := openStore(path, o)
	if p != nil {
		p.Done()
	}
	if err == nil && e.closing != nil {
		inner := closeFn
		closeFn = func() { e.closing(st); inner() }
	}
	return st, closeFn, err
}

// walBytes is the size of the WAL files in a store directory (0 for an archive).
func walBytes(dir string) int64 {
	if isArchive(dir) {
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
