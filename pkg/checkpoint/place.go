package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ankusa/ankusa-store/internal/access"
	"github.com/ankusa/ankusa-store/pkg/diskspace"
)

// CheckDir checks, before anything starts, that a checkpoint can be made at dir: its parent
// directory exists (RocksDB makes only the last element, and says so as a raw "IO error:
// While mkdir" once the work has begun) and this user may write it. what names the checkpoint
// for the message ("--backup", "the default checkpoint"), untouched says what state the store
// is left in. A missing parent is Refused; one this user may not write, permission denied
// (the file system's).
func CheckDir(what, dir, untouched string) error {
	parent := filepath.Dir(filepath.Clean(dir))
	fi, err := os.Stat(parent)
	switch {
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s %s: %w; %s", what, dir, access.Check(err, parent, false), untouched)
	case err != nil:
		return &Refused{fmt.Errorf("%s %s: the directory %s does not exist (the checkpoint is made inside an existing directory); %s", what, dir, parent, untouched)}
	case !fi.IsDir():
		return &Refused{fmt.Errorf("%s %s: %s is not a directory; %s", what, dir, parent, untouched)}
	}
	if err := unix.Access(parent, unix.W_OK|unix.X_OK); errors.Is(err, fs.ErrPermission) {
		aerr := access.Check(&os.PathError{Op: "access", Path: parent, Err: err}, parent, true)
		return fmt.Errorf("%s %s: %w; %s", what, dir, aerr, untouched)
	}
	return nil
}

// repairSlack covers a repair's corrective batch, its WAL record and RocksDB's own files.
const repairSlack = 4 << 20

// PlaceRepair picks a repair's checkpoint directory (cp, or by default PreRepairName) and
// checks, before the store is opened, that it is free and that its file system has room
// (Share, and the repair's few bytes a counter): a given cp that exists is Refused.
func PlaceRepair(store, cp string, now time.Time) (string, error) {
	if cp != "" {
		if _, err := os.Lstat(cp); err == nil {
			return "", &Refused{fmt.Errorf("checkpoint directory %s exists; give another --backup DIR (nothing was touched)", cp)}
		}
	} else {
		cp = PreRepairName(store, now)
	}
	if err := CheckDir("--backup", cp, "nothing was written, the store is untouched"); err != nil {
		return "", err
	}
	n, _, err := Share(store, cp)
	if err != nil {
		return "", err
	}
	if err := diskspace.Check("the repair's checkpoint", filepath.Dir(cp), n+repairSlack); err != nil {
		return "", err
	}
	return cp, nil
}
