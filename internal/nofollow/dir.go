package nofollow

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"golang.org/x/sys/unix"
)

// Dir is a directory opened once, by a descriptor, so that every later step under it is made
// relative to that descriptor (openat, unlinkat, renameat, fstatat, as coreutils' rm and
// systemd's rm_rf work): a name swapped for a symbolic link, or a parent renamed, between a
// check and an act changes nothing the tool does to the directory it opened.
type Dir struct {
	f    *os.File
	fd   int
	Path string // the path it was opened by, for messages only
	Dev  uint64
	Ino  uint64
}

const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC

// OpenDir opens the directory path; a symbolic link there is ErrSymlink, never followed.
func OpenDir(path string) (*Dir, error) {
	fd, err := unix.Open(path, dirFlags, 0)
	if err != nil {
		return nil, dirErr(unix.AT_FDCWD, path, path, err)
	}
	return newDir(fd, path)
}

// OpenDir opens the directory name inside d; a symbolic link there is ErrSymlink.
func (d *Dir) OpenDir(name string) (*Dir, error) {
	fd, err := unix.Openat(d.fd, name, dirFlags, 0)
	if err != nil {
		return nil, dirErr(d.fd, name, d.join(name), err)
	}
	return newDir(fd, d.join(name))
}

func newDir(fd int, path string) (*Dir, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "fstat", Path: path, Err: err}
	}
	return &Dir{f: os.NewFile(uintptr(fd), path), fd: fd, Path: path, Dev: uint64(st.Dev), Ino: uint64(st.Ino)}, nil
}

// dirErr is the error of an open of name in the directory at: a link there is ErrSymlink
// (O_NOFOLLOW says ELOOP, or with O_DIRECTORY ENOTDIR, which a file there says too).
func dirErr(at int, name, path string, err error) error {
	var st unix.Stat_t
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) &&
		unix.Fstatat(at, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return fmt.Errorf("%s %w (not followed)", path, ErrSymlink)
	}
	return &os.PathError{Op: "open", Path: path, Err: err}
}

func (d *Dir) join(name string) string { return d.Path + "/" + name }

// Close closes the descriptor.
func (d *Dir) Close() error { return d.f.Close() }

// Fd is the descriptor, for a caller's own *at call.
func (d *Dir) Fd() int { return d.fd }

// Same says whether d is the directory of device dev and inode ino.
func (d *Dir) Same(dev, ino uint64) bool { return d.Dev == dev && d.Ino == ino }

// Lstat is what name inside d is, a link itself and not what it names.
func (d *Dir) Lstat(name string) (unix.Stat_t, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return st, &os.PathError{Op: "lstat", Path: d.join(name), Err: err}
	}
	return st, nil
}

// Names lists d's entries, sorted, read again from its start at each call (what a round of
// removal left, or what was added since).
func (d *Dir) Names() ([]string, error) {
	if _, err := d.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	names, err := d.f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	return names, nil
}

// ReadFile reads the regular file name inside d, at most max bytes (more is an error); a link
// there is ErrSymlink.
func (d *Dir) ReadFile(name string, max int64) ([]byte, error) {
	fd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, dirErr(d.fd, name, d.join(name), err)
	}
	f := os.NewFile(uintptr(fd), d.join(name))
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", d.join(name))
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(b)) > max {
		err = fmt.Errorf("%s is longer than %d bytes", d.join(name), max)
	}
	return b, err
}

// RenameNoReplace renames old to new, both inside d; new must not exist (RENAME_NOREPLACE: a
// name planted there is never replaced). A link at old is renamed as the link. A file system
// without RENAME_NOREPLACE (EINVAL) gets a look at new first and a plain renameat.
func (d *Dir) RenameNoReplace(old, new string) error {
	err := unix.Renameat2(d.fd, old, d.fd, new, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) {
		var st unix.Stat_t
		if err = unix.Fstatat(d.fd, new, &st, unix.AT_SYMLINK_NOFOLLOW); err == nil {
			err = unix.EEXIST
		} else if errors.Is(err, unix.ENOENT) {
			err = unix.Renameat(d.fd, old, d.fd, new)
		}
	}
	if err != nil {
		return &os.LinkError{Op: "rename", Old: d.join(old), New: d.join(new), Err: err}
	}
	return nil
}

// RemoveEmptyDir removes the empty directory name inside d (a link there is not removed:
// ENOTDIR).
func (d *Dir) RemoveEmptyDir(name string) error {
	if err := unix.Unlinkat(d.fd, name, unix.AT_REMOVEDIR); err != nil {
		return &os.PathError{Op: "rmdir", Path: d.join(name), Err: err}
	}
	return nil
}

// Unlink removes name inside d, a file or a link (the link, never what it names).
func (d *Dir) Unlink(name string) error {
	if err := unix.Unlinkat(d.fd, name, 0); err != nil {
		return &os.PathError{Op: "unlink", Path: d.join(name), Err: err}
	}
	return nil
}
