package rocks

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"golang.org/x/sys/unix"

	"github.com/ankusa/ankusa-store/internal/access"
)

// ErrPermission: a file or directory of the store cannot be read (or, by a read-write open,
// written) by this user. Exit 3 like any store error, with its own message (access.Error).
var ErrPermission = access.ErrDenied

// readFileRE matches the files of a store RocksDB or this tool reads when it opens the store.
var readFileRE = regexp.MustCompile(`^(CURRENT|IDENTITY|MANIFEST-[0-9]+|OPTIONS-[0-9]+|[0-9]+\.(log|blob|sst|ldb))$`)

// checkAccess asks the kernel (access(2): nothing is opened, so no lock of this process on a
// store file can be dropped by a close) whether this user may read what an open of the store
// in dir reads (the directory's listing, CURRENT, IDENTITY, the MANIFEST, OPTIONS, WAL
// and table files) and, for a read-write open, write the directory and its LOCK. RocksDB reports a file
// it may not open as an I/O error like any other, strerror's text its only sign, so this is
// where "permission denied" is found, by the system's error number.
func checkAccess(dir string, write bool) error {
	if err := canAccess(dir, unix.R_OK|unix.X_OK, false); err != nil {
		return err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil // RocksDB says what is wrong
	}
	for _, e := range ents {
		if e.Type().IsRegular() && readFileRE.MatchString(e.Name()) {
			if err := canAccess(filepath.Join(dir, e.Name()), unix.R_OK, false); err != nil {
				return err
			}
		}
	}
	if !write {
		return nil
	}
	if err := canAccess(dir, unix.W_OK|unix.X_OK, true); err != nil {
		return err
	}
	return canAccess(filepath.Join(dir, "LOCK"), unix.R_OK|unix.W_OK, true)
}

// canAccess is an *access.Error when this user lacks mode on path, nil otherwise (a path that
// is missing included: that is for the open to report).
func canAccess(path string, mode uint32, write bool) error {
	err := unix.Access(path, mode)
	if errors.Is(err, fs.ErrPermission) {
		return access.Check(&os.PathError{Op: "access", Path: path, Err: err}, path, write)
	}
	return nil
}
