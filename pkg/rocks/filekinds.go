package rocks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// RocksDB opens a store's files with a plain open(2): on a fifo that blocks until a writer
// comes, forever, inside a C call that no context or first signal reaches (status and
// tenants ls hung on a fifo planted as a WAL file or a table); a device would be read as
// whatever it yields. Every file an open reads, and the LOCK a read-write open takes, is a
// regular file in a store RocksDB made, so anything else is refused before any of them is
// opened.

// ErrNotRegular: a file of the store that an open would read is not a regular file (a fifo,
// a device, a socket, a directory). Exit 3, a store error.
var ErrNotRegular = errors.New("not a regular file")

// NotRegularError names the file and what it is.
type NotRegularError struct {
	Path string
	Kind string // "a fifo", "a character device", ...
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file: a store's files are regular files, and opening this one could wait forever; nothing was opened (remove it, or put the store's own file back)", e.Path, e.Kind)
}

func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// checkFileKinds refuses a store whose files (readFileRE's names, and LOCK) include one that
// is not a regular file, following a symbolic link as RocksDB would. A directory it cannot
// list is left to the open to report.
func checkFileKinds(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	for _, e := range ents {
		n := e.Name()
		if n != "LOCK" && !readFileRE.MatchString(n) {
			continue
		}
		if e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, n)
		fi, err := os.Stat(p) // a link: what it points at
		if errors.Is(err, fs.ErrNotExist) {
			continue // gone since the listing (a live writer), or a dangling link: the open says so
		}
		if err != nil {
			return nil // the open reports what stat met
		}
		if !fi.Mode().IsRegular() {
			return &NotRegularError{Path: p, Kind: kindOf(fi.Mode())}
		}
	}
	return nil
}

// openRegular opens path for reading without waiting (O_NONBLOCK: a fifo is opened, not
// waited on) and refuses anything but a regular file; a link is followed unless nofollow.
func openRegular(path string, nofollow bool) (*os.File, error) {
	flags := os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_CLOEXEC
	if nofollow {
		flags |= syscall.O_NOFOLLOW
	}
	f, err := os.OpenFile(path, flags, 0)
	if nofollow && errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is a symbolic link", path)
	}
	if err != nil {
		return nil, err
	}
	if err := regularFile(f, path); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// regularFile refuses f (opened at path) unless it is a regular file.
func regularFile(f *os.File, path string) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return &NotRegularError{Path: path, Kind: kindOf(fi.Mode())}
	}
	return nil
}

// kindOf names a file's type for a person.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (fifo)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "of type " + m.Type().String()
}
