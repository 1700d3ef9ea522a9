package rocks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/ankusa/ankusa-store/internal/access"
)

// RocksDB finds out that a store is held only in DBImpl::Recover, after it has renamed the
// info log LOG to LOG.old.<time> and started a new one: a refused read-write open would still
// change a running node's store. So a read-write open first asks the kernel whether the LOCK
// file carries the lock RocksDB takes (env/fs_posix.cc LockOrUnlock: fcntl F_SETLK, F_WRLCK,
// SEEK_SET, start 0, length 0, the whole file), with F_GETLK on a read-only descriptor: nothing
// is created, written or locked. A node that takes the lock between the probe and RocksDB's
// own attempt is still refused by RocksDB (ErrLocked, with LOG rotated: the race is the
// node's start, not a running node).
//
// POSIX record locks belong to a process, and closing any descriptor of the file drops all of
// the process's locks on it; F_GETLK also does not report the caller's own locks. So, as
// RocksDB does with its locked_files set, stores this process holds read-write are remembered
// and refused without opening their LOCK at all.

var (
	heldMu sync.Mutex
	held   = map[string]bool{} // LOCK paths of the stores this process has open read-write
)

func lockPath(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return filepath.Join(dir, "LOCK")
}

// probeLock returns ErrLocked if a process (this one included) holds dir's LOCK.
func probeLock(dir string) error {
	p := lockPath(dir)
	heldMu.Lock()
	mine := held[p]
	heldMu.Unlock()
	if mine {
		return fmt.Errorf("%w: this process already has %s open read-write", ErrLocked, dir)
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_CLOEXEC, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // no LOCK yet: nobody has ever held it
	}
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return access.Check(err, p, false)
		}
		return fmt.Errorf("rocks: probing %s: %w", p, err)
	}
	defer f.Close()
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: 0, Len: 0}
	if err := unix.FcntlFlock(f.Fd(), unix.F_GETLK, &lk); err != nil {
		return fmt.Errorf("rocks: probing %s: %w", p, err)
	}
	if lk.Type == unix.F_UNLCK {
		return nil
	}
	who := "another process"
	if lk.Pid > 0 {
		who = fmt.Sprintf("process %d", lk.Pid)
	}
	return fmt.Errorf("%w: %s holds %s; stop it (or use a read-only command) and run this again", ErrLocked, who, p)
}

// markHeld records that this process has dir open read-write (on) or no longer (off).
func markHeld(dir string, on bool) {
	p := lockPath(dir)
	heldMu.Lock()
	defer heldMu.Unlock()
	if on {
		held[p] = true
	} else {
		delete(held, p)
	}
}

// ProbeLock returns ErrLocked if a process holds dir's LOCK (the probe a read-write open makes
// first), so that a command about to remove a directory can prove no RocksDB has it open.
func ProbeLock(dir string) error { return probeLock(dir) }
