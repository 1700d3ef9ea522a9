package nofollow

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// ErrSymlink: the path to write is a symbolic link; nothing was written.
var ErrSymlink = errors.New("is a symbolic link, which this tool does not write through")

// open opens path for writing with O_NOFOLLOW; a link there is ErrSymlink (the kernel says
// ELOOP).
func open(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o644)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s %w (nothing was written; remove the link)", path, ErrSymlink)
	}
	return f, err
}

func write(f *os.File, data []byte, sync bool) error {
	_, err := f.Write(data)
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Append appends data to path, creating it, and syncs it.
func Append(path string, data []byte) error {
	f, err := open(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND)
	if err != nil {
		return err
	}
	return write(f, data, true)
}

// WriteFile writes data to path, creating or truncating it, synced when sync is set.
func WriteFile(path string, data []byte, sync bool) error {
	f, err := open(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
	if err != nil {
		return err
	}
	return write(f, data, sync)
}

// Replace replaces path with data atomically: path+".tmp" is created afresh (O_EXCL, after a
// regular file a killed run left there is removed; a link there is ErrSymlink), written, synced
// when sync is set, and renamed over path (a rename replaces a link at path itself, never its
// target).
func Replace(path string, data []byte, sync bool) error {
	tmp := path + ".tmp"
	if fi, err := os.Lstat(tmp); err == nil {
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s %w (nothing was written; remove the link)", tmp, ErrSymlink)
		}
		if err := os.Remove(tmp); err != nil {
			return err
		}
	}
	f, err := open(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
	if err != nil {
		return err
	}
	if err := write(f, data, sync); err != nil {
		os.Remove(tmp)
		return err
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		os.Remove(tmp)
		return fmt.Errorf("%s %w (nothing was written; remove the link)", path, ErrSymlink)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
