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
	// A log says so once a store: a command that opens it twice (migrate's look, then its
	// open to write; a locked store fails the second at once) printed the line twice
	// (issue 46). A live line is erased when the open ends, so it is shown each time.
	again := e.replayShown[path] && e.progressMode() != progress.TTY
	if wal >= walReplayShown && !again {
		if e.replayShown == nil {
			e.replayShown = map[string]bool{}
		}
		e.replayShown[path] = true
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

// reopenForLookups is how a dead-letter listing opened for a sorted join (its tables'
// indexes in the block cache) opens the store again with them on the heap
// (rocks.Options.RandomLookups) when it reads by key after all (inspect's
// DLQExportOptions.Lookups, DLQOptions.Lookups): open, and the close of what open opened,
// to defer (nothing when it was not called).
func (e *Env) reopenForLookups(path string) (open func() (*rocks.Store, error), closeFn func()) {
	closeOpened := func() {}
	open = func() (*rocks.Store, error) {
		st, c, err := e.openStore(path, rocks.Options{Mode: rocks.ReadOnly, RandomLookups: true})
		if err == nil {
			closeOpened = c
		}
		return st, err
	}
	return open, func() { closeOpened() }
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
