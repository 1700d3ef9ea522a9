package nofollow

import (
	"errors"
	"fmt"
	"io"
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

// Create writes data to path, which must not exist (O_EXCL: a link there is not followed
// either), synced when sync is set.
func Create(path string, data []byte, sync bool) error {
	f, err := open(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
	if err != nil {
		return err
	}
	return write(f, data, sync)
}

// ReadFile reads path, refusing a link there (ErrSymlink).
func ReadFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s %w (nothing was read; remove the link)", path, ErrSymlink)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// SyncDir syncs the directory dir, so that the files just created or renamed in it survive a
// power cut.
func SyncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// Replace replaces path with data atomically through path+".tmp" (ReplaceVia).
func Replace(path string, data []byte, sync bool) error {
	return ReplaceVia(path, path+".tmp", data, sync)
}

// ReplaceVia replaces path with data atomically: the temporary file tmp (in path's directory)
// is created afresh (O_EXCL, after a regular file a killed run left there is removed; a link
// there is ErrSymlink), written, synced when sync is set, and renamed over path (a link at
// path is ErrSymlink: a rename would replace the link, never its target, but the link is not
// the tool's to replace). For a file whose readers list names by a prefix (OPTIONS-*), tmp
// is a name outside it.
func ReplaceVia(path, tmp string, data []byte, sync bool) error {
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
