package checkpoint

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ankusa/ankusa-store/internal/nofollow"
)

// RecordFile is the file in the store directory listing the checkpoints taken of it, one JSON
// RecordLine a line, oldest first: a --backup or --checkpoint anywhere is found from the
// store. A plain file a line of which proves nothing by itself (find.go's untrustedRecordLine).
const RecordFile = "ANKUSA-CHECKPOINTS"

// RecordLine is one line of the store's RecordFile.
type RecordLine struct {
	Path    string `json:"path"`
	TakenBy string `json:"taken_by"`
	AtMS    int64  `json:"at_ms"`
}

// ReadRecord reads the store's record of its checkpoints; a missing record is none, and a
// line that does not decode is skipped.
func ReadRecord(store string) []RecordLine {
	f, err := os.Open(filepath.Join(store, RecordFile))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []RecordLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l RecordLine
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.Path != "" {
			out = append(out, l)
		}
	}
	return out
}

// Record appends a checkpoint just taken of store to the store's record (RecordFile, a file
// of its own in the store directory, which RocksDB ignores and no node reads): so that status
// and checkpoints ls find a --backup or --checkpoint wherever it went. The record is the
// tool's note, not the store's contract: no key changes.
func Record(store, dir, takenBy string, at time.Time) error {
	line, err := json.Marshal(RecordLine{Path: Abs(dir), TakenBy: takenBy, AtMS: at.UnixMilli()})
	if err != nil {
		return err
	}
	p := filepath.Join(store, RecordFile)
	if err := nofollow.Append(p, append(line, '\n')); err != nil {
		return fmt.Errorf("recording the checkpoint %s in %s: %w", dir, p, err)
	}
	return nil
}

// Forget drops dir from store's record (after a removal), atomically; a store without a
// record, or gone, has nothing to drop.
func Forget(store, dir string) error {
	lines := ReadRecord(store)
	if len(lines) == 0 {
		return nil
	}
	var b []byte
	dropped := false
	for _, l := range lines {
		// The record holds the path as it was typed; dir is resolved (CheckRemovable).
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
	return nofollow.Replace(filepath.Join(store, RecordFile), b, true)
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
