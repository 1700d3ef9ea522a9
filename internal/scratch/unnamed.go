package scratch

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// UnnamedFile makes a file in dir that has no name (O_TMPFILE): nothing is
// left behind however the run ends, kill -9 included, as the kernel frees
// its blocks when the process closes it or dies, and no Sweep is needed. Its
// name for errors is dir/(label). It fails where the file system has no
// unnamed files; callers then keep the data in memory or do without.
func UnnamedFile(dir, label string) (*os.File, error) {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, &os.PathError{Op: "open unnamed file in", Path: dir, Err: err}
	}
	return os.NewFile(uintptr(fd), filepath.Join(dir, "("+label+")")), nil
}
