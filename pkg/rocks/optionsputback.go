package rocks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/ankusa/ankusa-store/internal/access"
)

// NodeOptionsSetAside says whether dir holds the node's OPTIONS files as a read-write open of
// this tool set them aside (optionsfile.go), not yet put back: the open is running, or its
// process was killed. Until they are back, the store's own OPTIONS files may be this tool's
// RocksDB's, which older RocksDB releases (Debian's 7.8.3 ldb) refuse to load.
func NodeOptionsSetAside(dir string) bool {
	for _, p := range []string{filepath.Join(dir, NodeOptionsStash), doneStash(dir)} {
		if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
			return true
		}
	}
	return false
}

// PutBackNodeOptions puts back the node's OPTIONS files a killed run left set aside, as the
// next read-write open would, for a command that has nothing else to write (migrate of a
// store that is at format 3 already: the run killed in its final flush or close). It holds
// the store's LOCK the way RocksDB takes it meanwhile, so no RocksDB opens the store while its
// OPTIONS files change; a process that holds it is ErrLocked, and nothing is changed. The
// families the store has that the node's newest file lacks get their sections, as at a close.
func PutBackNodeOptions(dir string) error {
	if !NodeOptionsSetAside(dir) {
		return nil
	}
	if err := probeLock(dir); err != nil {
		return err
	}
	p := lockPath(dir)
	f, err := os.OpenFile(p, os.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return access.Check(err, p, true)
	}
	if err == nil {
		defer f.Close()
		lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: 0, Len: 0}
		if err := unix.FcntlFlock(f.Fd(), unix.F_SETLK, &lk); err != nil {
			if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EACCES) {
				return fmt.Errorf("%w: another process took %s; stop it and run this again", ErrLocked, p)
			}
			return fmt.Errorf("rocks: locking %s: %w", p, err)
		}
		// Closing f (deferred) drops the lock.
	}
	families, err := listFamilies(dir)
	if err != nil {
		return err
	}
	if err := restoreOptions(dir); err != nil {
		return err
	}
	return describeFamilies(dir, families)
}
