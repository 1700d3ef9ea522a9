package checkpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ankusa/ankusa-store/internal/nofollow"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/store"
)

// Protected is a store CheckRemovable refuses whatever a marker says of it: the one the
// environment names ($ANKUSA_STORE), Var being that variable's name for the message.
type Protected struct {
	Store, Var string
}

// Removable is a checkpoint CheckRemovable proved removable: what it is, the store it is a
// checkpoint of (resolved), and what Remove checks again once it has set it aside, on what the
// rename moved: the same directory (device and inode) and the same marker.
type Removable struct {
	Checkpoint
	Store string
	id    dirID
	proof proof
}

// proof is what makes a directory a checkpoint this tool took: its marker, or without one
// its name next to its store.
type proof struct {
	store     string // the store, as the marker (or the name) says it
	migrate   bool   // migrate's: refused while its store is mid-migration
	mark      string // the marker's file name, "" when proved by its name
	markBytes []byte // the marker as read
}

// maxMarkerBytes bounds a marker's read: the tool writes some hundred bytes.
const maxMarkerBytes = 64 << 10

// refusal is a Refused ending as every refusal of a removal ends.
func refusal(format string, args ...any) error {
	return &Refused{fmt.Errorf(format+": refused (nothing was removed)", args...)}
}

// CheckRemovable says whether path is, by every check, an idle checkpoint this tool took of a
// store that is there, opens and is not mid-migration, and of which store (resolved). It fails
// closed: whatever it cannot prove is refused, with the reason (Refused; InUse for a held
// LOCK; the store's error where its store does not open). Remove makes the checks that a
// process racing it could change again after the rename, on what the rename moved.
//
//   - path is the checkpoint's own directory, not a symlink to one; symlinks in its parents
//     are resolved, and so is the store its marker names, so no spelling of a path slips by.
//   - Its marker (or, without one, its STORE.backup-<time> / STORE.pre-repair-<time> name next
//     to a store) says what it is a checkpoint of; a marker that is empty, does not decode or
//     is a link proves nothing.
//   - It is not the store itself, nor the protected store, under any spelling (a checkpoint
//     restored in place keeps its marker).
//   - The rest is checkStore's.
func CheckRemovable(path string, protected Protected, now time.Time) (Removable, error) {
	abs := Abs(path)
	fi, err := os.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Removable{}, &Refused{fmt.Errorf("%s does not exist", path)}
	case err != nil:
		return Removable{}, &Refused{fmt.Errorf("%s: %v", path, errors.Unwrap(err))}
	case fi.Mode()&os.ModeSymlink != 0:
		target, _ := filepath.EvalSymlinks(abs)
		return Removable{}, refusal("%s is a symlink (to %s), not a checkpoint's own directory: name the directory itself", path, target)
	case !fi.IsDir():
		return Removable{}, refusal("%s is not a directory, so no checkpoint", path)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return Removable{}, refusal("%s: cannot resolve its path: %v", path, err)
	}
	d, err := nofollow.OpenDir(real)
	if err != nil {
		return Removable{}, refusal("%s: cannot open it: %v", path, err)
	}
	defer d.Close()
	id := dirID{Path: real, dev: d.Dev, ino: d.Ino}
	if s := protected.Store; s != "" {
		if ps, _ := identify(s); ps.same(id) {
			return Removable{}, refusal("%s is the store $%s names, not a checkpoint", path, protected.Var)
		}
	}
	pr, err := proveAt(d, path)
	if err != nil {
		return Removable{}, err
	}
	store, err := checkStore(d, id, pr, path)
	if err != nil {
		return Removable{}, err
	}
	for _, c := range Find(store.Path, []string{real}, now) {
		if c.Path == real {
			return Removable{Checkpoint: c, Store: store.Path, id: id, proof: pr}, nil
		}
	}
	return Removable{}, refusal("%s: not found as a checkpoint of %s", path, filepath.Clean(pr.store))
}

// marks are the marker files, in the order ReadMarker looks for them.
var marks = []struct{ name, by string }{{MigrationMark, ByMigrate}, {RepairMark, ByRepair}}

func isMark(name string) bool { return name == MigrationMark || name == RepairMark }

// proveAt reads what makes d, shown as path, a checkpoint this tool took.
func proveAt(d *nofollow.Dir, path string) (proof, error) {
	for _, f := range marks {
		b, err := d.ReadFile(f.name, maxMarkerBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		var m Marker
		if err != nil || json.Unmarshal(b, &m) != nil || m.Store == "" || !filepath.IsAbs(m.Store) {
			return proof{}, refusal("%s holds a checkpoint marker that is empty or does not decode (or is not a plain file it can read): it proves nothing", path)
		}
		return proof{store: m.Store, migrate: f.by == ByMigrate, mark: f.name, markBytes: b}, nil
	}
	if s, kind, ok := ParseName(d.Path); ok && hasCurrentAt(d) {
		return proof{store: s, migrate: kind == KindBackup}, nil
	}
	return proof{}, refusal("%s is not a checkpoint this tool took (no %s or %s marker in it, and no STORE.backup-<time> or STORE.pre-repair-<time> name with a store inside)", path, MigrationMark, RepairMark)
}

// checkStore makes the checks of a removal that look past the directory's own proof, the same
// for a first rm and for the finish of one killed part way (CheckFinish), and returns the
// store (resolved):
//
//   - The store it proves is there, and is not the directory itself (a checkpoint restored as
//     its store).
//   - No process holds its LOCK (the probe migrate makes): a node or a paused migrate that
//     runs on it makes it a live store.
//   - It has not been opened for writing since its marker was written: its CURRENT and
//     MANIFEST files are not newer than the marker (a copy of a checkpoint that was migrated
//     and used as a store keeps the old marker, naming the store it was taken of).
//   - Its store opens read-only and is not mid-migration: otherwise the checkpoint may be the
//     only good copy of the store.
func checkStore(d *nofollow.Dir, id dirID, pr proof, path string) (dirID, error) {
	orig, ok := identify(pr.store)
	if !ok {
		return orig, refusal("%s is a checkpoint of %s, which is not there (moved or removed): it may be the only copy of that store", path, filepath.Clean(pr.store))
	}
	if orig.same(id) {
		return orig, refusal("%s is a checkpoint restored as its store (its marker names it)", path)
	}
	if err := rocks.ProbeLock(id.Path); err != nil {
		if errors.Is(err, rocks.ErrLocked) {
			return orig, &InUse{fmt.Errorf("%s is in use as a store: %w: refused (nothing was removed)", path, err)}
		}
		return orig, fmt.Errorf("%s: %w: refused (nothing was removed)", path, err)
	}
	if pr.mark != "" {
		if used := writtenSinceAt(d, pr.mark); used != "" {
			return orig, refusal("%s has been opened for writing since it was taken (its %s is newer than its marker): it is in use as a store, not a checkpoint", path, used)
		}
	}
	st, err := store.Open(orig.Path, store.Options{Options: rocks.Options{Mode: rocks.ReadOnly}})
	if err != nil {
		return orig, fmt.Errorf("%s is a checkpoint of %s, which does not open (%w): it may be the only good copy of the store: refused (nothing was removed)", path, filepath.Clean(pr.store), err)
	}
	mid := st.Migrating
	st.Close()
	if mid && pr.migrate {
		return orig, refusal("%s is migrate's checkpoint of %s, which is mid-migration: it is the only copy of the store as it was; finish the migration (the same migrate command again) and verify it first", path, filepath.Clean(pr.store))
	}
	if mid {
		return orig, refusal("%s is a checkpoint of %s, which is mid-migration: finish the migration and verify it first", path, filepath.Clean(pr.store))
	}
	return orig, nil
}

// hasCurrentAt: d holds RocksDB's CURRENT file, as every store and checkpoint does.
func hasCurrentAt(d *nofollow.Dir) bool {
	_, err := d.Lstat("CURRENT")
	return err == nil
}

// writtenSinceAt names the first of d's CURRENT and MANIFEST files modified after its marker
// file mark was, "" when none was: RocksDB writes both at every read-write open.
func writtenSinceAt(d *nofollow.Dir, mark string) string {
	mst, err := d.Lstat(mark)
	if err != nil {
		return "marker (unreadable)"
	}
	names, err := d.Names()
	if err != nil {
		return "directory (unreadable)"
	}
	for _, n := range names {
		if n != "CURRENT" && !strings.HasPrefix(n, "MANIFEST-") {
			continue
		}
		st, err := d.Lstat(n)
		if err == nil && (st.Mtim.Sec > mst.Mtim.Sec || st.Mtim.Sec == mst.Mtim.Sec && st.Mtim.Nsec > mst.Mtim.Nsec) {
			return n
		}
	}
	return ""
}
