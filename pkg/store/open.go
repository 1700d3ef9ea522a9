package store

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/archive"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// Options is how a store is opened: rocks.Options, how a wait is shown, and when.
type Options struct {
	rocks.Options
	// Progress shows the WAL replay; nil shows nothing (completion, checkpoints ls).
	Progress Progress
	// WALShown is the WAL size from which the replay is shown (0: DefaultWALShown).
	WALShown int64
	// Closing, when set (by tests), sees every store opened through the handle just
	// before it is closed: what RocksDB did for the command is known only then.
	Closing func(*rocks.Store)
}

// Progress is the one progress an open takes. RocksDB replays the WAL before its open
// returns and says nothing until then, so the wait is said before (Wait) and its line
// ended after (Waiting.Done).
type Progress interface {
	Wait(label string) Waiting
}

// Waiting is a wait being shown. An alias, so that a Progress need not import this package
// (internal/ui/progress.Stream is one).
type Waiting = interface{ Done() }

// DefaultWALShown is the WAL size from which opening a store is shown as progress: RocksDB
// replays the WAL before Open returns (4 s at 63 MB, 11 s after a 10^7-row migration), and
// a silent terminal for that long looks hung.
const DefaultWALShown = 8 << 20

// ErrArchiveWrite is an archive opened read-write: refused before anything is extracted.
var ErrArchiveWrite = errors.New("archives are opened read-only")

// IsArchive reports whether a store argument names a .tar.zst archive rather than a directory.
func IsArchive(path string) bool { return strings.HasSuffix(path, ".tar.zst") }

// Handle is an open store, with what Close must undo: the stores opened through it and the
// archive's extracted copy.
type Handle struct {
	*rocks.Store
	path    string // as given: what errors and progress name
	dir     string // what RocksDB opens: path, or the archive's extracted copy
	o       Options
	closers []func()
}

// Open opens the store at path (a directory or a .tar.zst) as o says.
func Open(path string, o Options) (*Handle, error) {
	h := &Handle{path: path, dir: path, o: o}
	if IsArchive(path) {
		if o.Mode == rocks.ReadWrite {
			return nil, fmt.Errorf("%s is an archive; extract it first to change it (%w)", path, ErrArchiveWrite)
		}
		x, err := archive.ExtractTemp(path)
		if err != nil {
			return nil, err
		}
		h.closers = append(h.closers, func() { x.Remove() })
		h.dir = x.Dir
	}
	st, err := h.open(o.Options)
	if err != nil {
		h.Close()
		return nil, err
	}
	h.Store = st
	return h, nil
}

// Reopen opens the store again with ro in place of the rocks.Options it was opened with
// (from the same extracted copy for an archive); Close closes it too.
func (h *Handle) Reopen(ro rocks.Options) (*rocks.Store, error) {
	return h.open(ro)
}

// Close closes every store opened through h, the last opened first, then removes an
// archive's extracted copy.
func (h *Handle) Close() {
	for i := len(h.closers) - 1; i >= 0; i-- {
		h.closers[i]()
	}
	h.closers = nil
}

func (h *Handle) open(ro rocks.Options) (*rocks.Store, error) {
	if h.dir != h.path {
		// An archive never has a running node behind it: a plain read-only open is right.
		ro.Mode = rocks.ReadOnly
	}
	shown := h.o.WALShown
	if shown <= 0 {
		shown = DefaultWALShown
	}
	var w Waiting
	if wal := WALBytes(h.dir); h.o.Progress != nil && wal >= shown {
		w = h.o.Progress.Wait(fmt.Sprintf("opening %s (replaying %s of WAL)", h.path, words.Bytes(wal)))
	}
	st, err := rocks.OpenStore(h.dir, ro)
	if w != nil {
		w.Done()
	}
	if err != nil {
		err = rocks.WithNewerRocksDB(h.dir, err)
		if h.dir != h.path {
			// What RocksDB says names the directory the archive was extracted to.
			return nil, fmt.Errorf("%s: %w", h.path, err)
		}
		return nil, err // it names the store already
	}
	closing := h.o.Closing
	h.closers = append(h.closers, func() {
		if closing != nil {
			closing(st)
		}
		st.Close()
	})
	return st, nil
}
