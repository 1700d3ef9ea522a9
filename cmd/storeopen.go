package cmd

import (
	"errors"

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
		return nil, usageErr("%v", err)
	}
	return h, err
}

// storeOptions is how this command opens a store: o, its wait shown on this command's
// progress stream, and the test's closing hook.
func (e *Env) storeOptions(o rocks.Options) store.Options {
	return store.Options{Options: o, Progress: e.progressStream(), WALShown: e.walShown, Closing: e.closing}
}
