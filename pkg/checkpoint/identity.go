package checkpoint

import (
	"path/filepath"

	"golang.org/x/sys/unix"
)

// A store, a checkpoint, the store a marker names and the paths the record holds are each one
// directory however the path to it is spelled: relative (status s), through a symbolic link
// in it or at it, or another mount of the same file system. So nothing here compares two
// spellings: each is resolved first (absolute, every link evaluated) to a dirID, and two
// dirIDs are the same directory when their device and inode are.
type dirID struct {
	Path     string // absolute, links resolved
	dev, ino uint64
}

// identify resolves path; ok is false when it is not there (a dirID of it then holds the path
// made absolute only, and is the same as nothing).
func identify(path string) (id dirID, ok bool) {
	real, err := filepath.EvalSymlinks(Abs(path))
	if err != nil {
		return dirID{Path: Abs(path)}, false
	}
	var st unix.Stat_t
	if err := unix.Stat(real, &st); err != nil {
		return dirID{Path: real}, false
	}
	return dirID{Path: real, dev: uint64(st.Dev), ino: uint64(st.Ino)}, true
}

// same: a and b are one directory (both there).
func (a dirID) same(b dirID) bool {
	return a.ino != 0 && a.dev == b.dev && a.ino == b.ino
}

// SameDir says whether the paths a and b name one directory, under any spelling; a path that
// is not there, or empty (a marker that names nothing), is the same as nothing.
func SameDir(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	ia, _ := identify(a)
	ib, _ := identify(b)
	return ia.same(ib)
}

// Resolve is path absolute with every symbolic link in it evaluated; path made absolute when
// it does not resolve (it is not there).
func Resolve(path string) string {
	id, _ := identify(path)
	return id.Path
}
