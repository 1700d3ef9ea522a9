package checkpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ankusa/ankusa-store/internal/nofollow"
)

// The marker files, one in each checkpoint this tool takes, saying what it is a checkpoint
// of: a rerun of the same command (the runbook's answer to a crash) tells the checkpoint of
// this migration from any other directory at --backup, and checkpoints rm removes only what
// one of them proves.
const (
	// MigrationMark is the marker migrate writes into its checkpoint (a Marker).
	MigrationMark = "ANKUSA-MIGRATION-CHECKPOINT"
	// RepairMark is the marker counters verify --repair writes into its checkpoint.
	RepairMark = "ANKUSA-REPAIR-CHECKPOINT"
)

// Marker is a marker file's content.
type Marker struct {
	// Store is the absolute path of the store the checkpoint was taken of.
	Store string `json:"store"`
	// StartedAtMS (migrate) is the start of the migration it was taken for, Unix ms.
	StartedAtMS int64 `json:"started_at_ms,omitempty"`
	// TakenAtMS (repair) is when it was taken, Unix ms.
	TakenAtMS int64 `json:"taken_at_ms,omitempty"`
}

// ReadMarker reads the marker in dir: which command's it is and what it says. A marker that
// does not decode is there (ok) and says nothing (an empty Marker).
func ReadMarker(dir string) (takenBy string, m Marker, ok bool) {
	for _, f := range []struct{ name, by string }{{MigrationMark, ByMigrate}, {RepairMark, ByRepair}} {
		b, err := nofollow.ReadFile(filepath.Join(dir, f.name))
		if err != nil {
			continue // a link in its place is none
		}
		if json.Unmarshal(b, &m) != nil {
			return f.by, Marker{}, true
		}
		return f.by, m, true
	}
	return "", Marker{}, false
}

// MarkMigration records, in the checkpoint dir just taken of store, that it is the checkpoint
// of the migration started at start, and appends it to the store's record.
func MarkMigration(dir, store string, start time.Time) error {
	m := Marker{Store: Abs(store), StartedAtMS: start.UnixMilli()}
	return writeMark(dir, MigrationMark, m, store, ByMigrate, start)
}

// MarkRepair marks a repair's checkpoint as MarkMigration marks migrate's, and records it in
// the store.
func MarkRepair(dir, store string, at time.Time) error {
	m := Marker{Store: Abs(store), TakenAtMS: at.UnixMilli()}
	return writeMark(dir, RepairMark, m, store, ByRepair, at)
}

// writeMark writes the marker name into the checkpoint dir, synced (a run killed right
// after it still knows its checkpoint), and appends dir to the store's record, so that
// status and checkpoints ls find it wherever it went.
func writeMark(dir, name string, m Marker, store, takenBy string, at time.Time) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := nofollow.WriteFile(filepath.Join(dir, name), append(b, '\n'), true); err != nil {
		return fmt.Errorf("recording the checkpoint %s: %w", dir, err)
	}
	return Record(store, dir, takenBy, at)
}

// OwnBackup reports whether dir is the checkpoint a run of this migration took of store: its
// marker names the store and the start time persisted in the store (migrating: the start time
// it recorded; not yet migrating, the first run stopped between the checkpoint and its first
// write, so any start time goes). A directory that is missing returns false, nil; one that is
// there but not ours returns the reason.
func OwnBackup(dir, store string, migrating bool, start time.Time) (bool, error) {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	b, err := os.ReadFile(filepath.Join(dir, MigrationMark))
	if err != nil {
		return false, fmt.Errorf("backup directory %s exists and is not a checkpoint migrate took (it has no %s); move it away, or give another --backup DIR or --no-backup", dir, MigrationMark)
	}
	var m Marker
	if err := json.Unmarshal(b, &m); err != nil {
		return false, fmt.Errorf("backup directory %s exists; its %s is not the JSON migrate writes (damaged or written by hand); move it away, or give another --backup DIR or --no-backup", dir, MigrationMark)
	}
	if !SameDir(m.Store, store) {
		return false, fmt.Errorf("backup directory %s exists and is the checkpoint of another store (%s); move it away, or give another --backup DIR or --no-backup", dir, m.Store)
	}
	if migrating && m.StartedAtMS != start.UnixMilli() {
		return false, fmt.Errorf("backup directory %s exists and is the checkpoint of another migration of this store (started %s, this one %s); move it away, or give another --backup DIR or --no-backup",
			dir, time.UnixMilli(m.StartedAtMS).UTC().Format(time.RFC3339Nano), start.Format(time.RFC3339Nano))
	}
	return true, nil
}

// RecordedBackup is the checkpoint the store's record holds for the migration started at
// start (a --backup DIR, wherever it went); "" when there is none, or it is gone or holds
// another migration's marker.
func RecordedBackup(store string, start time.Time) string {
	for _, l := range ReadRecord(store) {
		if own, err := OwnBackup(l.Path, store, true, start); own && err == nil {
			return l.Path
		}
	}
	return ""
}
