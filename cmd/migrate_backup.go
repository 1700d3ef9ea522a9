package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ankusa/ankusa-store/internal/access"
	"github.com/ankusa/ankusa-store/internal/nofollow"
	"github.com/ankusa/ankusa-store/pkg/inspect"
)

// checkpointMark is the file migrate writes into the checkpoint it takes, so
// that a rerun of the same command (the runbook's answer to a crash) can tell
// the checkpoint of this migration from any other directory at --backup. RocksDB
// ignores files it does not know, and a checkpoint restored as the store keeps
// working with it inside.
const checkpointMark = inspect.MigrationMark

func absStore(store string) string {
	if abs, err := filepath.Abs(store); err == nil {
		return filepath.Clean(abs)
	}
	return filepath.Clean(store)
}

// writeCheckpointMark records, in the checkpoint just taken, what it is a checkpoint of.
func writeCheckpointMark(dir, store string, start time.Time) error {
	m := inspect.CheckpointMark{Store: absStore(store), StartedAtMS: start.UnixMilli()}
	return writeMark(dir, checkpointMark, m, store, "migrate", start)
}

// writeMark writes the marker name into the checkpoint dir, synced (a run killed right
// after it still knows its checkpoint), and appends dir to the store's record, so that
// status and checkpoints ls find it wherever it went.
func writeMark(dir, name string, m inspect.CheckpointMark, store, takenBy string, at time.Time) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := nofollow.WriteFile(filepath.Join(dir, name), append(b, '\n'), true); err != nil {
		return fmt.Errorf("recording the checkpoint %s: %w", dir, err)
	}
	return recordCheckpoint(store, dir, takenBy, at)
}

// ownCheckpoint reports whether dir is the checkpoint a run of this migration
// took of store: its mark names the store and the start time persisted in the
// store (migrating: the start time it recorded; not yet migrating, the first
// run stopped between the checkpoint and its first write, so any start time
// goes). A directory that is missing returns false, nil; one that is there but
// not ours returns the reason.
func ownCheckpoint(dir, store string, migrating bool, start time.Time) (bool, error) {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	b, err := os.ReadFile(filepath.Join(dir, checkpointMark))
	if err != nil {
		return false, fmt.Errorf("backup directory %s exists and is not a checkpoint migrate took (it has no %s); move it away, or give another --backup DIR or --no-backup", dir, checkpointMark)
	}
	var m inspect.CheckpointMark
	if err := json.Unmarshal(b, &m); err != nil {
		return false, fmt.Errorf("backup directory %s exists; its %s is not the JSON migrate writes (damaged or written by hand); move it away, or give another --backup DIR or --no-backup", dir, checkpointMark)
	}
	if m.Store != absStore(store) {
		return false, fmt.Errorf("backup directory %s exists and is the checkpoint of another store (%s); move it away, or give another --backup DIR or --no-backup", dir, m.Store)
	}
	if migrating && m.StartedAtMS != start.UnixMilli() {
		return false, fmt.Errorf("backup directory %s exists and is the checkpoint of another migration of this store (started %s, this one %s); move it away, or give another --backup DIR or --no-backup",
			dir, time.UnixMilli(m.StartedAtMS).UTC().Format(time.RFC3339Nano), start.Format(time.RFC3339Nano))
	}
	return true, nil
}

// recordedBackup is the checkpoint the store's record holds for the migration started at
// start (a --backup DIR, wherever it went); "" when there is none, or it is gone or holds
// another migration's marker.
func recordedBackup(store string, start time.Time) string {
	for _, l := range inspect.ReadCheckpointRecord(store) {
		if own, err := ownCheckpoint(l.Path, store, true, start); own && err == nil {
			return l.Path
		}
	}
	return ""
}

// checkCheckpointDir checks, before anything starts, that a checkpoint can be made at dir:
// its parent directory exists (RocksDB makes only the last element, and says so as a raw
// "IO error: While mkdir" once the work has begun) and this user may write it. what names
// the checkpoint for the message ("--backup", "the default checkpoint"), untouched says
// what state the store is left in. A missing parent is a usage error (exit 2); one this
// user may not write, permission denied (exit 3).
func checkCheckpointDir(what, dir, untouched string) error {
	parent := filepath.Dir(filepath.Clean(dir))
	fi, err := os.Stat(parent)
	switch {
	case errors.Is(err, fs.ErrPermission):
		return &ExitError{Code: ExitStore, Err: fmt.Errorf("%s %s: %w; %s", what, dir, access.Check(err, parent, false), untouched)}
	case err != nil:
		return usageErr("%s %s: the directory %s does not exist (the checkpoint is made inside an existing directory); %s", what, dir, parent, untouched)
	case !fi.IsDir():
		return usageErr("%s %s: %s is not a directory; %s", what, dir, parent, untouched)
	}
	if err := unix.Access(parent, unix.W_OK|unix.X_OK); errors.Is(err, fs.ErrPermission) {
		aerr := access.Check(&os.PathError{Op: "access", Path: parent, Err: err}, parent, true)
		return &ExitError{Code: ExitStore, Err: fmt.Errorf("%s %s: %w; %s", what, dir, aerr, untouched)}
	}
	return nil
}
