package rocks

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/ankusa/ankusa-store/internal/access"
)

// The tool changes files of a store outside RocksDB's open: the stash of the node's OPTIONS
// files before the open, and putting them back after the close or after a failed open
// (optionsfile.go). Each such change is made only while this process holds the store's LOCK
// itself: a probe that found the LOCK free says nothing of the moment after it, and a node
// that started meanwhile would have the files it just wrote removed under it.
//
// The lock is the one RocksDB takes (env/io_posix.cc LockOrUnlock: fcntl F_SETLK, a write
// lock over the whole LOCK file), taken before the stash and held on through RocksDB's open:
// record locks belong to the process, so RocksDB's own F_SETLK in this process succeeds, and
// no node can take the store between the stash and the open (it is refused, as by a running
// tool). Because they belong to the process, closing any descriptor of LOCK drops them all,
// RocksDB's included: the descriptor is kept until RocksDB has closed the store, and RocksDB
// closing its own (at Close, or when its open fails) drops this one's too, so the lock is
// taken again (Relock) before the stash is put back; a node that took the store in that
// moment has nothing written into it.

// storeLock is dir's LOCK held by this process (lockStore).
type storeLock struct {
	f    *os.File
	path string
}

// lockStore takes dir's LOCK, as RocksDB would, or says who holds it: ErrLocked (a node, or
// this process's own read-write open of dir). A store without a LOCK file gets one, as
// RocksDB's open makes it.
func lockStore(dir string) (*storeLock, error) {
	if err := probeLock(dir); err != nil {
		return nil, err // the holder named, when the kernel says who it is
	}
	p := lockPath(dir)
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		if errors.Is(err, syscall.EROFS) {
			return nil, err
		}
		return nil, access.Check(err, p, true)
	}
	if err := regularFile(f, p); err != nil {
		f.Close()
		return nil, err
	}
	l := &storeLock{f: f, path: p}
	if err := l.Relock(); err != nil {
		f.Close()
		return nil, err
	}
	return l, nil
}

// Relock takes the lock (again) on the descriptor kept: after RocksDB closed its own
// descriptor of LOCK, which dropped this process's lock. ErrLocked if another process took it.
func (l *storeLock) Relock() error {
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: 0, Len: 0}
	if err := unix.FcntlFlock(l.f.Fd(), unix.F_SETLK, &lk); err != nil {
		if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EACCES) {
			return fmt.Errorf("%w: another process took %s; stop it and run this again", ErrLocked, l.path)
		}
		return fmt.Errorf("rocks: locking %s: %w", l.path, err)
	}
	return nil
}

// Unlock closes the descriptor, which drops every lock this process has on LOCK: never while
// this process's RocksDB has the store open. Nil-safe.
func (l *storeLock) Unlock() {
	if l != nil && l.f != nil {
		l.f.Close()
		l.f = nil
	}
}
