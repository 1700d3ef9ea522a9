package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// Protected is a store CheckRemovable refuses whatever a marker says of it: the one the
// environment names ($ANKUSA_STORE), Var being that variable's name for the message.
type Protected struct {
	Store, Var string
}

// CheckRemovable says whether path is, by every check, an idle checkpoint this tool took of a
// store that is there, opens and is not mid-migration, and of which store (resolved). It fails
// closed: whatever it cannot prove is refused, with the reason (Refused; InUse for a held
// LOCK; the store's error where its store does not open).
//
//   - path is the checkpoint's own directory, not a symlink to one; symlinks in its parents
//     are resolved, and so is the store its marker names, so no spelling of a path slips by.
//   - Its marker (or, without one, its STORE.backup-<time> / STORE.pre-repair-<time> name next
//     to a store) says what it is a checkpoint of; a marker that is empty or does not decode
//     proves nothing.
//   - It is not the store itself, nor the protected store, under any spelling (a checkpoint
//     restored in place keeps its marker).
//   - No process holds its LOCK (the probe migrate makes): a node or a paused migrate that
//     runs on it makes it a live store.
//   - It has not been opened for writing since its marker was written: its CURRENT and
//     MANIFEST files are not newer than the marker (a copy of a checkpoint that was migrated
//     and used as a store keeps the old marker, naming the store it was taken of).
//   - Its store is there, opens read-only, and is not mid-migration: otherwise the
//     checkpoint may be the only good copy of the store.
func CheckRemovable(path string, protected Protected, now time.Time) (Checkpoint, string, error) {
	refuse := func(format string, args ...any) (Checkpoint, string, error) {
		return Checkpoint{}, "", &Refused{fmt.Errorf(format+": refused (nothing was removed)", args...)}
	}
	abs := Abs(path)
	fi, err := os.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Checkpoint{}, "", &Refused{fmt.Errorf("%s does not exist", path)}
	case err != nil:
		return Checkpoint{}, "", &Refused{fmt.Errorf("%s: %v", path, errors.Unwrap(err))}
	case fi.Mode()&os.ModeSymlink != 0:
		target, _ := filepath.EvalSymlinks(abs)
		return refuse("%s is a symlink (to %s), not a checkpoint's own directory: name the directory itself", path, target)
	case !fi.IsDir():
		return refuse("%s is not a directory, so no checkpoint", path)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return refuse("%s: cannot resolve its path: %v", path, err)
	}
	if s := protected.Store; s != "" {
		if rs, err := filepath.EvalSymlinks(Abs(s)); err == nil && rs == real {
			return refuse("%s is the store $%s names, not a checkpoint", path, protected.Var)
		}
	}
	var store string
	migrateCP := false
	markPath := ""
	if by, m, ok := ReadMarker(real); ok {
		if m.Store == "" || !filepath.IsAbs(m.Store) {
			return refuse("%s holds a checkpoint marker that is empty or does not decode: it proves nothing", path)
		}
		store, migrateCP = m.Store, by == ByMigrate
		markPath = filepath.Join(real, MigrationMark)
		if by != ByMigrate {
			markPath = filepath.Join(real, RepairMark)
		}
	} else if s, kind, ok := ParseName(real); ok && hasCurrent(real) {
		store, migrateCP = s, kind == KindBackup
	} else {
		return refuse("%s is not a checkpoint this tool took (no %s or %s marker in it, and no STORE.backup-<time> or STORE.pre-repair-<time> name with a store inside)", path, MigrationMark, RepairMark)
	}
	storeReal, err := filepath.EvalSymlinks(store)
	if err != nil {
		return refuse("%s is a checkpoint of %s, which is not there (moved or removed): it may be the only copy of that store", path, filepath.Clean(store))
	}
	if storeReal == real {
		return refuse("%s is a checkpoint restored as its store (its marker names it)", path)
	}
	if err := rocks.ProbeLock(real); err != nil {
		if errors.Is(err, rocks.ErrLocked) {
			return Checkpoint{}, "", &InUse{fmt.Errorf("%s is in use as a store: %w: refused (nothing was removed)", path, err)}
		}
		return Checkpoint{}, "", fmt.Errorf("%s: %w: refused (nothing was removed)", path, err)
	}
	if markPath != "" {
		if used := writtenSince(real, markPath); used != "" {
			return refuse("%s has been opened for writing since it was taken (its %s is newer than its marker): it is in use as a store, not a checkpoint", path, used)
		}
	}
	st, err := rocks.OpenStore(storeReal, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		return Checkpoint{}, "", fmt.Errorf("%s is a checkpoint of %s, which does not open (%w): it may be the only good copy of the store: refused (nothing was removed)", path, filepath.Clean(store), err)
	}
	mid := st.Migrating
	st.Close()
	if mid && migrateCP {
		return refuse("%s is migrate's checkpoint of %s, which is mid-migration: it is the only copy of the store as it was; finish the migration (the same migrate command again) and verify it first", path, filepath.Clean(store))
	}
	if mid {
		return refuse("%s is a checkpoint of %s, which is mid-migration: finish the migration and verify it first", path, filepath.Clean(store))
	}
	for _, c := range Find(storeReal, []string{real}, now) {
		if c.Path == real {
			return c, storeReal, nil
		}
	}
	return refuse("%s: not found as a checkpoint of %s", path, filepath.Clean(store))
}

// hasCurrent: dir holds RocksDB's CURRENT file, as every store and checkpoint does.
func hasCurrent(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "CURRENT"))
	return err == nil
}

// writtenSince names the first of dir's CURRENT and MANIFEST files modified after the marker
// file mark was, "" when none was: RocksDB writes both at every read-write open.
func writtenSince(dir, mark string) string {
	mfi, err := os.Stat(mark)
	if err != nil {
		return "marker (unreadable)"
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "directory (unreadable)"
	}
	for _, e := range ents {
		n := e.Name()
		if n != "CURRENT" && !strings.HasPrefix(n, "MANIFEST-") {
			continue
		}
		fi, err := e.Info()
		if err == nil && fi.ModTime().After(mfi.ModTime()) {
			return n
		}
	}
	return ""
}
