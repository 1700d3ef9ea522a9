package metrics

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WriteFile writes s to path atomically: a temporary file in path's
// directory (named .<base>.tmp-*, which the textfile collector ignores, as
// it reads only *.prom), synced, then renamed over path, and the directory
// synced so that the rename survives a crash. On any error path is left as
// it was and the temporary file is removed.
//
// A path that is a symbolic link is written through: the file it points at is
// replaced (its temporary file beside it, in its own directory, so the rename
// stays atomic) and the link stays a link, as whoever linked it meant, when the file it points
// at is named as a metrics file (.prom); a link to any other name is refused.
func WriteFile(path string, s *Set) error {
	var buf bytes.Buffer
	if err := s.Write(&buf); err != nil {
		return err
	}
	target, err := linkTarget(path)
	if err != nil {
		return fmt.Errorf("metrics file: %w", err)
	}
	// A link is written through only to a file named as a metrics file: a link planted at the
	// metrics path would otherwise let the tool (often root) replace any file it points at.
	if target != path && !strings.HasSuffix(target, ".prom") {
		return fmt.Errorf("metrics file: %s is a symbolic link to %s, whose name does not end in .prom: refused, nothing was written (point it at a .prom file, or name the file itself)", path, target)
	}
	path = target
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

// linkTarget follows path while it is a symbolic link, to the file that is to be written
// (which need not exist yet: a link may be made before the first run).
func linkTarget(path string) (string, error) {
	for range 40 {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return path, nil
		}
		t, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(path), t)
		}
		path = t
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}
