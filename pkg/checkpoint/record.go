package checkpoint

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ankusa/ankusa-store/internal/nofollow"
	"github.com/ankusa/ankusa-store/internal/words"
)

// RecordFile is the file in the store directory listing the checkpoints taken of it, one JSON
// RecordLine a line, oldest first: a migrate's or a repair's --backup anywhere is found from the
// store. A plain file a line of which proves nothing by itself (find.go's untrustedRecordLine).
const RecordFile = "ANKUSA-CHECKPOINTS"

// RecordLine is one line of the store's RecordFile.
type RecordLine struct {
	Path    string `json:"path"`
	TakenBy string `json:"taken_by"`
	AtMS    int64  `json:"at_ms"`
}

// The record gets one line per checkpoint taken, so a real one is a few lines; it is a
// plain file in the store's directory all the same, and one planted or grown to hundreds
// of megabytes must not cost status or checkpoints ls its size in memory, or a look at
// every line. It is read a line at a time, at most MaxRecordLines lines of at most
// maxRecordLineBytes (a longer line is skipped, never held), and each path once.
const (
	// MaxRecordLines is how many lines of the record are read.
	MaxRecordLines     = 1 << 14
	maxRecordLineBytes = 64 << 10
)

// ReadRecord reads the store's record of its checkpoints; a missing record is none, a line
// that does not decode is skipped, and a path met again is the first line's.
func ReadRecord(store string) []RecordLine {
	out, _ := ReadRecordWhole(store)
	return out
}

// ReadRecordWhole is ReadRecord, and whether the record was read to its end: false when it
// is longer than MaxRecordLines lines (the rest is not read).
func ReadRecordWhole(store string) (lines []RecordLine, whole bool) {
	whole = eachRecordLine(store, func(l RecordLine) { lines = append(lines, l) })
	return lines, whole
}

// eachRecordLine hands fn each line of store's record that decodes, each path once, in the
// record's order; whole is false when the record has more lines than are read.
func eachRecordLine(store string, fn func(RecordLine)) (whole bool) {
	f, err := os.Open(filepath.Join(store, RecordFile))
	if err != nil {
		return true
	}
	defer f.Close()
	seen := map[string]bool{}
	r := bufio.NewReaderSize(f, maxRecordLineBytes)
	for n := 0; ; n++ {
		line, err := r.ReadSlice('\n')
		long := false
		for err == bufio.ErrBufferFull {
			long = true // skip the rest of a line too long to be one of ours
			_, err = r.ReadSlice('\n')
		}
		if n == MaxRecordLines {
			return len(line) == 0 && err != nil
		}
		var l RecordLine
		if !long && len(line) > 0 && json.Unmarshal(line, &l) == nil && l.Path != "" && !seen[l.Path] {
			seen[l.Path] = true
			fn(l)
		}
		if err != nil {
			return true
		}
	}
}

// Record appends a checkpoint just taken of store to the store's record (RecordFile, a file
// of its own in the store directory, which RocksDB ignores and no node reads): so that status
// and checkpoints ls find a migrate's or a repair's --backup wherever it went. The record is the
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

// maxRecordRewrite bounds the record Forget rewrites: it is read whole to be written back
// without the removed checkpoint's lines, every other byte as it was.
const maxRecordRewrite = 64 << 20

// Forget drops dir from store's record (after a removal), atomically; a store without a
// record, or gone, has nothing to drop. Only the lines that decode and name dir go: every
// other line (one that does not decode, a long one, a path met again) is written back as it
// was, byte for byte, since the record is not only this version's to read.
func Forget(store, dir string) error {
	p := filepath.Join(store, RecordFile)
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxRecordRewrite+1))
	if err != nil {
		return err
	}
	if len(b) > maxRecordRewrite {
		// Rewriting what was read would drop the rest; a path that is gone is not listed
		// anyway.
		return fmt.Errorf("%s is larger than %s: %s is left in it", p, words.Bytes(maxRecordRewrite), dir)
	}
	var out []byte
	dropped := false
	for rest := b; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line = rest[:i+1]
		}
		rest = rest[len(line):]
		var l RecordLine
		// The record holds the path as it was typed; dir is resolved (CheckRemovable).
		if json.Unmarshal(line, &l) == nil && l.Path != "" && (filepath.Clean(l.Path) == filepath.Clean(dir) || resolvedParent(l.Path) == filepath.Clean(dir)) {
			dropped = true
			continue
		}
		out = append(out, line...)
	}
	if !dropped {
		return nil
	}
	return nofollow.Replace(p, out, true)
}

// resolvedParent is p made absolute with symlinks in its parent resolved (p itself may be
// gone); "" when the parent does not resolve.
func resolvedParent(p string) string {
	d, err := filepath.EvalSymlinks(filepath.Dir(Abs(p)))
	if err != nil {
		return ""
	}
	return filepath.Join(d, filepath.Base(p))
}
