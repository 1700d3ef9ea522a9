package diskspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/ankusa/ankusa-store/internal/words"
)

// ErrShort is wrapped by the error Check returns when there is not room.
var ErrShort = errors.New("not enough free space")

// Free is the space an unprivileged writer may still use on the file system
// holding path (statfs f_bavail: root's reserve is not counted, as a node that
// does not run as root could not use it either). A path that does not exist
// yet is measured at its nearest existing parent.
func Free(path string) (int64, error) {
	p := path
	for {
		var s syscall.Statfs_t
		err := syscall.Statfs(p, &s)
		if err == nil {
			return int64(s.Bavail) * int64(s.Bsize), nil
		}
		parent := filepath.Dir(p)
		if !errors.Is(err, syscall.ENOENT) || parent == p {
			return 0, &os.PathError{Op: "statfs", Path: p, Err: err}
		}
		p = parent
	}
}

// SameFS reports whether a and b (or their nearest existing parents) are on
// one file system: a checkpoint hard-links table files only then.
func SameFS(a, b string) (bool, error) {
	da, err := device(a)
	if err != nil {
		return false, err
	}
	db, err := device(b)
	if err != nil {
		return false, err
	}
	return da == db, nil
}

func device(path string) (uint64, error) {
	p := path
	for {
		var s syscall.Stat_t
		err := syscall.Stat(p, &s)
		if err == nil {
			return uint64(s.Dev), nil
		}
		parent := filepath.Dir(p)
		if !errors.Is(err, syscall.ENOENT) || parent == p {
			return 0, &os.PathError{Op: "stat", Path: p, Err: err}
		}
		p = parent
	}
}

// ShortError says how much was needed and how much there was.
type ShortError struct {
	What   string // what would have been written ("the migration")
	Where  string
	Needed int64
	Free   int64
}

func (e *ShortError) Error() string {
	return fmt.Sprintf("%v for %s: it needs about %s, the file system of %s has %s free; nothing was written",
		ErrShort, e.What, words.Bytes(e.Needed), e.Where, words.Bytes(e.Free))
}

func (e *ShortError) Unwrap() error { return ErrShort }

// Check returns a *ShortError unless the file system of where has needed bytes free.
func Check(what, where string, needed int64) error {
	free, err := Free(where)
	if err != nil {
		return err
	}
	if s := Judge(what, where, needed, free); s != nil {
		return s
	}
	return nil
}

// Judge is Check's verdict on free bytes read already: a *ShortError when they are fewer
// than needed, else nil. A report that prints the free bytes judges the figure it read.
func Judge(what, where string, needed, free int64) *ShortError {
	if free < needed {
		return &ShortError{What: what, Where: where, Needed: needed, Free: free}
	}
	return nil
}

// DirSize is the bytes of the regular files below dir, and of those whose name
// matches keep (nil: all), for estimating what a copy of them needs.
func DirSize(dir string, keep func(name string) bool) (int64, error) {
	var n int64
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.Mode().IsRegular() && (keep == nil || keep(info.Name())) {
			n += info.Size()
		}
		return nil
	})
	return n, err
}
