package cmd

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/ankusa/ankusa-store/internal/nofollow"
	"github.com/ankusa/ankusa-store/pkg/inspect"
)

// recordCheckpoint appends a checkpoint just taken of store to the store's record
// (inspect.CheckpointRecord, a file of its own in the store directory, which RocksDB
// ignores and no node reads): so that status and checkpoints ls find a migrate's or a
// repair's --backup wherever it went. The record is the tool's note, not the store's contract:
// no key changes.
func recordCheckpoint(store, dir, takenBy string, at time.Time) error {
	line, err := json.Marshal(inspect.CheckpointRecordLine{Path: absStore(dir), TakenBy: takenBy, AtMS: at.UnixMilli()})
	if err != nil {
		return err
	}
	p := filepath.Join(store, inspect.CheckpointRecord)
	if err := nofollow.Append(p, append(line, '\n')); err != nil {
		return fmt.Errorf("recording the checkpoint %s in %s: %w", dir, p, err)
	}
	return nil
}

// forgetCheckpoint drops dir from store's record (after checkpoints rm), atomically; a
// store without a record, or gone, has nothing to drop.
func forgetCheckpoint(store, dir string) error {
	lines := inspect.ReadCheckpointRecord(store)
	if len(lines) == 0 {
		return nil
	}
	var b []byte
	dropped := false
	for _, l := range lines {
		// The record holds the path as it was typed; dir is resolved (checkRemovable).
		if filepath.Clean(l.Path) == filepath.Clean(dir) || resolvedParent(l.Path) == filepath.Clean(dir) {
			dropped = true
			continue
		}
		j, err := json.Marshal(l)
		if err != nil {
			return err
		}
		b = append(append(b, j...), '\n')
	}
	if !dropped {
		return nil
	}
	return nofollow.Replace(filepath.Join(store, inspect.CheckpointRecord), b, true)
}

// writeRepairMark marks a repair's checkpoint as migrate marks its own
// (inspect.RepairMark), and records it in the store.
func writeRepairMark(dir, store string, at time.Time) error {
	m := inspect.CheckpointMark{Store: absStore(store), TakenAtMS: at.UnixMilli()}
	return writeMark(dir, inspect.RepairMark, m, store, "counters verify --repair", at)
}

// resolvedParent is p with symlinks in its parent resolved (p itself may be gone); "" when
// the parent does not resolve.
func resolvedParent(p string) string {
	d, err := filepath.EvalSymlinks(filepath.Dir(filepath.Clean(p)))
	if err != nil {
		return ""
	}
	return filepath.Join(d, filepath.Base(p))
}
