package access

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// ErrDenied is what every *Error is (errors.Is): the user lacks the permission.
var ErrDenied = errors.New("permission denied")

// Error is a path this user may not read or write.
type Error struct {
	Path    string // the file or directory the tool opened
	Write   bool   // it was to be written (created in, for a directory)
	Blocker string // the path whose mode stopped it: Path, or a directory above it
	Mode    fs.FileMode
	Owner   string // the Blocker's owner ("root", or "uid 1000")
	HasMode bool   // Mode and Owner are known (the Blocker could be looked at)
	Err     error  // the system's error
}

// Check returns err as an *Error when it is a permission error about path (to be read, or
// written when write), and err unchanged otherwise (nil included).
func Check(err error, path string, write bool) error {
	if err == nil || !errors.Is(err, fs.ErrPermission) {
		return err
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	e = &Error{Path: path, Write: write, Blocker: blocker(path), Err: err}
	if fi, serr := os.Lstat(e.Blocker); serr == nil {
		e.HasMode, e.Mode, e.Owner = true, fi.Mode(), ownerOf(fi)
	}
	return e
}

func (e *Error) Error() string {
	verb := "read"
	if e.Write {
		verb = "write"
	}
	why := ""
	switch {
	case e.Blocker != e.Path && e.HasMode:
		why = fmt.Sprintf(": the directory %s (%s, owner %s) does not let it in", e.Blocker, e.Mode, e.Owner)
	case e.Blocker != e.Path:
		why = fmt.Sprintf(": the directory %s does not let it in", e.Blocker)
	case e.HasMode:
		why = fmt.Sprintf(" (%s, owner %s)", e.Mode, e.Owner)
	}
	owner := "the owner of the store's files"
	if e.HasMode {
		owner = e.Owner
	}
	return fmt.Sprintf("%s: %s cannot %s %s%s; run the command as %s, or give this user access", ErrDenied, Who(), verb, e.Path, why, owner)
}

func (e *Error) Unwrap() error { return e.Err }

func (e *Error) Is(target error) bool { return target == ErrDenied }

// Who names the user this process runs as: "this user (nobody, uid 65534)".
func Who() string {
	uid := os.Geteuid()
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		return fmt.Sprintf("this user (%s, uid %d)", u.Username, uid)
	}
	return fmt.Sprintf("this user (uid %d)", uid)
}

// blocker is the first directory above path that this user cannot search, else path.
func blocker(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	var dirs []string
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if d == filepath.Dir(d) {
			break
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := unix.Access(dirs[i], unix.X_OK); errors.Is(err, syscall.EACCES) {
			return dirs[i]
		}
	}
	return path
}

func ownerOf(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "unknown"
	}
	if u, err := user.LookupId(strconv.FormatUint(uint64(st.Uid), 10)); err == nil {
		return u.Username
	}
	return "uid " + strconv.FormatUint(uint64(st.Uid), 10)
}
