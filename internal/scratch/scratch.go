package scratch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/ankusa/ankusa-store/internal/access"
)

// Marker is the file every scratch directory holds, written once its owner holds the lock.
const Marker = "ANKUSA-SCRATCH"

// TempPrefix starts the name of every scratch directory this tool makes in the system's
// temporary directory (os.TempDir: $TMPDIR, else /tmp).
const TempPrefix = "ankusa-store-"

// Dir is a scratch directory this process owns.
type Dir struct {
	Path string
	lock *os.File
}

// Temp makes a scratch directory in the system's temporary directory, named
// ankusa-store-<kind>-<pid>-<random>; what says in its marker what it holds.
func Temp(kind, what string) (*Dir, error) {
	return New(os.TempDir(), TempPrefix+kind+"-", what)
}

// SweepTemp removes the scratch directories of dead runs from the system's temporary
// directory; it returns their paths.
func SweepTemp() []string {
	return Sweep(os.TempDir(), func(name string) bool { return strings.HasPrefix(name, TempPrefix) })
}

// New makes a scratch directory in parent named <prefix><pid>-<random> (mode 0700), locked
// for the life of this process, with its marker.
func New(parent, prefix, what string) (*Dir, error) {
	for attempt := 0; ; attempt++ {
		p, err := os.MkdirTemp(parent, prefix+strconv.Itoa(os.Getpid())+"-")
		if err != nil {
			return nil, access.Check(err, parent, true)
		}
		f, err := os.Open(p)
		if err != nil {
			os.Remove(p)
			return nil, err
		}
		// Blocking: only a sweep can hold it, for as long as it takes to look at the marker,
		// which is not there yet; it then leaves the directory alone.
		if err := flock(f, unix.LOCK_EX); err != nil {
			f.Close()
			os.Remove(p)
			return nil, fmt.Errorf("locking %s: %w", p, err)
		}
		if !samePath(f, p) {
			// Removed by a sweep between the mkdir and the lock (an empty directory whose
			// pid looked dead: not possible for our own pid, but cheap to survive).
			f.Close()
			if attempt < 3 {
				continue
			}
			return nil, fmt.Errorf("scratch directory %s vanished as it was made", p)
		}
		d := &Dir{Path: p, lock: f}
		text := fmt.Sprintf("ankusa-store pid %d: %s\nremoved when that process ends; if it was killed, by the next ankusa-store run\n", os.Getpid(), what)
		if err := os.WriteFile(filepath.Join(p, Marker), []byte(text), 0o600); err != nil {
			d.Remove()
			return nil, err
		}
		return d, nil
	}
}

// Remove removes the directory and everything in it, then releases its lock. Safe to call
// more than once.
func (d *Dir) Remove() error {
	if d == nil || d.lock == nil {
		return nil
	}
	err := os.RemoveAll(d.Path)
	d.lock.Close()
	d.lock = nil
	return err
}

// Sweep removes the scratch directories in parent whose names match and whose owners are
// gone (see the package doc), and returns their paths. It never fails: what it cannot open,
// lock or remove it leaves as it is.
func Sweep(parent string, match func(name string) bool) []string {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range ents {
		if !e.IsDir() || !match(e.Name()) {
			continue
		}
		p := filepath.Join(parent, e.Name())
		if sweepOne(p, e.Name()) {
			removed = append(removed, p)
		}
	}
	return removed
}

func sweepOne(p, name string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := flock(f, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return false // its owner is running
	}
	if !samePath(f, p) {
		return false
	}
	if _, err := os.Lstat(filepath.Join(p, Marker)); err != nil {
		// Not marked: someone else's directory, or an owner that died between its mkdir and
		// its marker, which left it empty.
		if pid, ok := pidOf(name); ok && !alive(pid) {
			return os.Remove(p) == nil
		}
		return false
	}
	return os.RemoveAll(p) == nil
}

func flock(f *os.File, how int) error {
	for {
		err := unix.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// samePath reports whether the open directory f is still the one at p.
func samePath(f *os.File, p string) bool {
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	li, err := os.Lstat(p)
	return err == nil && os.SameFile(fi, li)
}

// pidOf reads the pid of a name ending in -<pid>-<random>.
func pidOf(name string) (int, bool) {
	i := strings.LastIndexByte(name, '-')
	if i <= 0 {
		return 0, false
	}
	j := strings.LastIndexByte(name[:i], '-')
	pid, err := strconv.Atoi(name[j+1 : i])
	return pid, err == nil && pid > 0
}

// alive reports whether a process with this pid exists (one of another user's counts).
func alive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
