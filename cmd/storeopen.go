package cmd

import (
	"errors"

	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/ui/progress"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/store"
)

// openStore opens the store a command was pointed at through the one opener (pkg/store):
// an archive extracted, the WAL replay shown on this command's progress, the newer-RocksDB
// hint on a failed open. closeFn closes it.
func (e *Env) openStore(path string, o rocks.Options) (st *rocks.Store, closeFn func(), err error) {
	h, err := e.openHandle(path, o)
	if err != nil {
		return nil, nil, err
	}
	return h.Store, h.Close, nil
}

// openHandle is openStore for a command that hands the store on to be opened again
// (Handle.Reopen: a dead-letter listing's lookups by key). Close the handle.
func (e *Env) openHandle(path string, o rocks.Options) (*store.Handle, error) {
	if o.Mode == rocks.ReadWrite {
		e.wrote = true
	}
	h, err := store.Open(path, e.storeOptions(o))
	if errors.Is(err, store.ErrArchiveWrite) {
		return nil, exitcode.Usagef("%v", err)
	}
	return h, err
}

// storeOptions is how this command opens a store: o, its wait shown on this command's
// progress stream (once a store in a log: onceWaits), and the test's closing hook.
func (e *Env) storeOptions(o rocks.Options) store.Options {
	return store.Options{Options: o, Progress: onceWaits{e}, WALShown: e.walShown, Closing: e.closing}
}

// onceWaits shows an open's wait on the command's progress stream, and in a log only the
// first time a label is said: a command that opens a store twice (migrate's look, then its
// open to write; a locked store fails the second at once) printed the replay line twice
// (issue 46). A live line is erased when the open ends, so a terminal shows it each time.
type onceWaits struct{ e *Env }

func (w onceWaits) Wait(label string) store.Waiting {
	s := w.e.progressStream()
	if s.Mode != progress.TTY {
		if w.e.replayShown[label] {
			return noWait{}
		}
		if w.e.replayShown == nil {
			w.e.replayShown = map[string]bool{}
		}
		w.e.replayShown[label] = true
	}
	return s.Wait(label)
}

type noWait struct{}

func (noWait) Done() {}
