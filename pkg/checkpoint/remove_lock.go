package checkpoint

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"

	"github.com/ankusa/ankusa-store/internal/access"
	"github.com/ankusa/ankusa-store/internal/nofollow"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// heldLock is the lock a removal holds on the checkpoint's LOCK from the moment it has set it
// aside until it is gone: the lock RocksDB takes (env/fs_posix.cc: F_WRLCK on the whole file,
// see pkg/rocks lockprobe.go), so that a node opening the checkpoint after the checks is
// refused by its RocksDB, and one that opened it before makes the removal refuse. It is an
// open file description lock (F_OFD_SETLK): Linux sets those against RocksDB's
// process-associated locks, and, unlike those, no close of another descriptor of the file in
// this process (rocks.ProbeLock's) drops it.
type heldLock struct {
	fd      int
	d       *nofollow.Dir
	created bool // the checkpoint had no LOCK (RocksDB's checkpoint copies none): made here
}

// holdLock takes d's LOCK (made when there is none, never through a link), shown as path; a
// process holding it already is InUse.
func holdLock(d *nofollow.Dir, path string) (*heldLock, error) {
	h := &heldLock{d: d}
	fd, err := unix.Openat(d.Fd(), "LOCK", unix.O_RDWR|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		fd, err = unix.Openat(d.Fd(), "LOCK", unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
		h.created = err == nil
	}
	if err != nil {
		lock := d.Path + "/LOCK"
		return nil, fmt.Errorf("%s: its LOCK cannot be held while it is removed (%w): refused (nothing was removed)", path, access.Check(&os.PathError{Op: "open", Path: lock, Err: err}, lock, true))
	}
	h.fd = fd
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart}
	err = unix.FcntlFlock(uintptr(fd), unix.F_OFD_SETLK, &lk)
	if err == nil {
		return h, nil
	}
	who := "a process"
	probe := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart}
	if unix.FcntlFlock(uintptr(fd), unix.F_GETLK, &probe) == nil && probe.Pid > 0 {
		who = fmt.Sprintf("process %d", probe.Pid)
	}
	h.release()
	if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EACCES) {
		return nil, &InUse{fmt.Errorf("%s is in use as a store: %w: %s took its LOCK (%s/LOCK) after the checks: refused (nothing was removed)", path, rocks.ErrLocked, who, path)}
	}
	return nil, fmt.Errorf("%s: its LOCK cannot be held while it is removed (%w): refused (nothing was removed)", path, err)
}

// release lets the lock go, and takes back the LOCK it made where the directory stays (a
// refusal): a refused removal leaves the checkpoint as it found it.
func (h *heldLock) release() {
	if h.created {
		_ = unix.Unlinkat(h.d.Fd(), "LOCK", 0)
	}
	unix.Close(h.fd)
}

// close lets the lock go once the directory is removed.
func (h *heldLock) close() { unix.Close(h.fd) }
