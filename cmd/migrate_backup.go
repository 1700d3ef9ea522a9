package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ankusa/ankusa-store/pkg/inspect"
)

// checkpointMark is the file migrate writes into the checkpoint it takes, so
// that a rerun of the same command (the runbook's answer to a crash) can tell
// the checkpoint of this migration from any other directory at --backup. RocksDB
// ignores files it does not know, and a checkpoint restored as the store keeps
// working with it inside.
const checkpointMark = inspect.MigrationMark

// migrationMark is checkpointMark's content.
type migrationMark struct {
	// Store is the absolute path of the store the checkpoint was taken of.
	Store string `json:"store"`
	// StartedAtMS is the start time of the migration it was taken for (Unix ms).
	StartedAtMS int64 `json:"started_at_ms"`
}

func absStore(store string) string {
	if abs, err := filepath.Abs(store); err == nil {
		return filepath.Clean(abs)
	}
	return filepath.Clean(store)
}

// writeCheckpointMark records, in the checkpoint just taken, what it is a checkpoint of.
func writeCheckpointMark(dir, store string, start time.Time) error {
	b, err := json.Marshal(migrationMark{Store: absStore(store), StartedAtMS: start.UnixMilli()})
	if err != nil {
		return err
	}
	p := filepath.Join(dir, checkpointMark)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("recording the checkpoint %s: %w", dir, err)
	}
	if _, err = f.Write(append(b, '\n')); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("recording the checkpoint %s: %w", dir, err)
	}
	// The store's record says where the checkpoint went, so status finds a --backup.
	return recordCheckpoint(store, dir, "migrate", start)
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
	var m migrationMark
	if err := json.Unmarshal(b, &m); err != nil {
		return false, fmt.Errorf("backup directory %s exists; its %s does not decode (%v); move it away, or give another --backup DIR or --no-backup", dir, checkpointMark, err)
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
