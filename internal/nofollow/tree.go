package nofollow

import (
	"errors"
	"fmt"
	"io/fs"

	"golang.org/x/sys/unix"

	"github.com/ankusa/ankusa-store/internal/access"
)

// Removal removes directory trees through descriptors (Dir), counting what it removed. Each
// entry is looked at (fstatat, not following), then removed relative to its directory's
// descriptor: a file or a link by unlinkat (a link is removed, never what it names); a
// directory opened with O_NOFOLLOW|O_DIRECTORY, emptied through that descriptor, then removed
// with unlinkat(AT_REMOVEDIR). An entry swapped between the look and the act (a directory for
// a link, say) fails the act, and is looked at again; a second process swapping links in a
// loop can make the removal give up (maxTries), never follow a link or leave the tree.
type Removal struct {
	Files int    // files and links removed
	Bytes uint64 // the regular files' sizes among them
	// Keep, when set, names entries of the top directory Empty leaves in place (what the
	// caller removes last).
	Keep func(name string) bool
	// Removed, when set, is called after each file or link removed.
	Removed func()
}

// maxTries bounds the rounds of one directory's emptying and the looks at one entry: a tree
// that keeps changing while it is removed is an error, not a loop.
const maxTries = 16

// Empty removes everything inside d but the top entries Keep names.
func (r *Removal) Empty(d *Dir) error { return r.empty(d, true) }

func (r *Removal) empty(d *Dir, top bool) error {
	for round := 0; ; round++ {
		names, err := d.Names()
		if err != nil {
			return access.Check(err, d.Path, false)
		}
		left := names[:0]
		for _, n := range names {
			if !top || r.Keep == nil || !r.Keep(n) {
				left = append(left, n)
			}
		}
		if len(left) == 0 {
			return nil
		}
		if round == maxTries {
			return fmt.Errorf("%s: entries are added to it as fast as they are removed", d.Path)
		}
		for _, n := range left {
			if err := r.RemoveEntry(d, n); err != nil {
				return err
			}
		}
	}
}

// RemoveEntry removes name inside d, whatever it is (a tree on d's file system: a mount point
// below it is an error, as rm --one-file-system has it).
func (r *Removal) RemoveEntry(d *Dir, name string) error {
	for try := 0; try < maxTries; try++ {
		st, err := d.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return access.Check(err, d.Path, false)
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
			err := d.Unlink(name)
			switch {
			case err == nil:
				r.Files++
				if st.Mode&unix.S_IFMT == unix.S_IFREG {
					r.Bytes += uint64(st.Size)
				}
				if r.Removed != nil {
					r.Removed()
				}
				return nil
			case errors.Is(err, fs.ErrNotExist):
				return nil
			case errors.Is(err, unix.EISDIR):
				continue // a directory swapped in since the look
			}
			return access.Check(err, d.Path, true)
		}
		sub, err := d.OpenDir(name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil
		case errors.Is(err, ErrSymlink), errors.Is(err, unix.ENOTDIR):
			continue // a link or a file swapped in since the look: removed as one
		case err != nil:
			return access.Check(err, d.join(name), false)
		}
		if sub.Dev != d.Dev {
			sub.Close()
			return fmt.Errorf("%s is another file system mounted there, which a removal does not cross", sub.Path)
		}
		err = r.empty(sub, false)
		sub.Close()
		if err != nil {
			return err
		}
		err = d.RemoveEmptyDir(name)
		switch {
		case err == nil, errors.Is(err, fs.ErrNotExist):
			return nil
		case errors.Is(err, unix.ENOTDIR), errors.Is(err, unix.ENOTEMPTY), errors.Is(err, unix.EEXIST):
			continue // swapped, or written into, since it was emptied
		}
		return access.Check(err, d.Path, true)
	}
	return fmt.Errorf("%s changed %d times while it was removed (a file, a link, a directory in turn)", d.join(name), maxTries)
}
