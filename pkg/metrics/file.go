package metrics

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// WriteFile writes s to path atomically: a temporary file in path's
// directory (named .<base>.tmp-*, which the textfile collector ignores, as
// it reads only *.prom), synced, then renamed over path, and the directory
// synced so that the rename survives a crash. On any error path is left as
// it was and the temporary file is removed.
func WriteFile(path string, s *Set) error {
	var buf bytes.Buffer
	if err := s.Write(&buf); err != nil {
		return err
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("metrics file: %w", err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("metrics file: %w", err)
	}
	// node_exporter runs as another user: the file must be readable to it.
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("metrics file: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("metrics file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("metrics file: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("metrics file: %w", err)
	}
	done = true
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
