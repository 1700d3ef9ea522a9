package destdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Prepare makes sure destDir exists and is empty; created reports whether
// this call made it.
func Prepare(destDir string) (created bool, err error) {
	ents, err := os.ReadDir(destDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return true, os.Mkdir(destDir, 0o755)
	case err != nil:
		return false, err
	case len(ents) > 0:
		return false, fmt.Errorf("extract: %s is not empty", destDir)
	}
	return false, nil
}

// RemoveMade removes what was made in dir after a failure: dir itself when
// Prepare created it, else only its entries (an empty directory the caller
// handed in stays).
func RemoveMade(dir string, created bool) {
	if created {
		os.RemoveAll(dir)
		return
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}

// Check is Prepare's rule without making anything: destDir is absent or empty.
// A caller that builds aside and renames into place checks with it first.
func Check(destDir string) error {
	ents, err := os.ReadDir(destDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case len(ents) > 0:
		return fmt.Errorf("%s is not empty", destDir)
	}
	return nil
}
