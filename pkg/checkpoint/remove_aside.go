package checkpoint

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/ankusa/ankusa-store/internal/access"
	"github.com/ankusa/ankusa-store/internal/nofollow"
	"github.com/ankusa/ankusa-store/internal/pausepoint"
	"github.com/ankusa/ankusa-store/internal/words"
)

// RemovePauseEnv names the environment variable that makes a removal (checkpoints rm) stop its own process
// (SIGSTOP, internal/pausepoint) at one named point of a removal, so that the fault suite kills
// it there (kill -9) on every run. Nothing else reads it; unset or unknown, it does nothing.
const RemovePauseEnv = "ANKUSA_STORE_RM_PAUSE"

// The points of a removal, in order (RemovePauseEnv).
const (
	RemovePauseChecked       = "checked"        // every check passed, nothing touched
	RemovePauseSetAside      = "set-aside"      // renamed aside and checked again, locked; the store's record still names it
	RemovePauseForgotten     = "forgotten"      // the record no longer names it, no file removed
	RemovePausePartlyRemoved = "partly-removed" // one file removed
	RemovePauseEmptied       = "emptied"        // every file removed but the marker
)

var removePauses = pausepoint.FromEnv(RemovePauseEnv)

func removePauseAt(point string) { removePauses.Stop(point) }

// asideInfix is in the name a checkpoint is renamed to while it is removed: a dot-name, next
// to it, that no rule of checkpoints ls, status or completion lists.
const asideInfix = ".ankusa-removing-"

func asideBase(base string) string {
	return "." + base + asideInfix + strconv.Itoa(os.Getpid())
}

// Remove removes the checkpoint r crash-safely and without following a link anywhere. Its
// parent is opened once, and every step is made relative to that descriptor. The checkpoint
// is first renamed aside (so that a kill leaves either the checkpoint, whole, or nothing that
// anything lists), and then what the rename moved is checked again: the directory checked
// (device and inode; a link or another directory swapped in after the checks is put back and
// refused), its LOCK taken and held until the end (a node that opened it after the checks
// makes the removal refuse; one that tries later is refused), its marker the one checked, its
// CURRENT and MANIFEST not written since. Then the store's record forgets it; then its files
// go, through the directory's descriptor (nofollow.Removal), its marker last, so that what a
// kill leaves aside still says what it was (Unfinished finds it, Finish finishes it). A
// failure says what is gone and what is left. The warning, when the record could not
// forget it, is the text alone: the command says it as a warning (cmd's one printer).
func Remove(r Removable) (warning string, err error) {
	removePauseAt(RemovePauseChecked)
	parent, err := nofollow.OpenDir(filepath.Dir(r.id.Path))
	if err != nil {
		return "", fmt.Errorf("removing %s: its directory cannot be opened (%w); nothing was removed", r.Path, access.Check(err, filepath.Dir(r.id.Path), false))
	}
	defer parent.Close()
	base := filepath.Base(r.id.Path)
	aside := asideBase(base)
	if err := parent.RenameNoReplace(base, aside); err != nil {
		return "", fmt.Errorf("removing %s: could not set it aside (%w); nothing was removed", r.Path, access.Check(err, parent.Path, true))
	}
	cp, lock, err := recheckAside(parent, aside, r.id, r.proof, r.Path)
	if err != nil {
		return "", putBack(parent, aside, base, err)
	}
	defer cp.Close()
	defer lock.close()
	removePauseAt(RemovePauseSetAside)
	if err := Forget(r.Store, r.Path); err != nil {
		warning = fmt.Sprintf("removing %s, but could not drop it from %s's record: %v", r.Path, r.Store, err)
	}
	removePauseAt(RemovePauseForgotten)
	return warning, removeSetAside(r.Path, parent, aside, cp)
}

// recheckAside checks what the rename set aside as aside in parent: the directory checked
// (id), opened without following a link, its LOCK held, its proof (the marker) unchanged and
// it not written since. On success the caller holds the directory and the lock.
func recheckAside(parent *nofollow.Dir, aside string, id dirID, pr proof, path string) (*nofollow.Dir, *heldLock, error) {
	cp, err := parent.OpenDir(aside)
	switch {
	case errors.Is(err, nofollow.ErrSymlink), errors.Is(err, unix.ENOTDIR):
		return nil, nil, refusal("%s was replaced between the checks and its removal (what was set aside is a link or a file: %v)", path, err)
	case err != nil:
		return nil, nil, fmt.Errorf("%s: what was set aside cannot be opened (%w): refused (nothing was removed)", path, access.Check(err, filepath.Join(parent.Path, aside), false))
	}
	if !cp.Same(id.dev, id.ino) {
		cp.Close()
		return nil, nil, refusal("%s was replaced between the checks and its removal (what was set aside is another directory)", path)
	}
	lock, err := holdLock(cp, path)
	if err != nil {
		cp.Close()
		return nil, nil, err
	}
	fail := func(err error) (*nofollow.Dir, *heldLock, error) {
		lock.release()
		cp.Close()
		return nil, nil, err
	}
	if pr.mark != "" {
		if b, err := cp.ReadFile(pr.mark, maxMarkerBytes); err != nil || !bytes.Equal(b, pr.markBytes) {
			return fail(refusal("%s: its %s changed between the checks and its removal", path, pr.mark))
		}
		if used := writtenSinceAt(cp, pr.mark); used != "" {
			return fail(refusal("%s was opened for writing between the checks and its removal (its %s is newer than its marker): it is in use as a store", path, used))
		}
	}
	return cp, lock, nil
}

// putBack renames aside back to base after a recheck refused what the rename moved, and
// returns why it was refused (and, if it could not be put back, where it is).
func putBack(parent *nofollow.Dir, aside, base string, why error) error {
	if err := parent.RenameNoReplace(aside, base); err != nil {
		return fmt.Errorf("%w; and what was set aside could not be put back (%v): it is %s, untouched", why, err, filepath.Join(parent.Path, aside))
	}
	return why
}

// removeSetAside removes the checkpoint dir, set aside as aside in parent and open as cp,
// every file before the markers, and says on failure what was removed and what is left.
func removeSetAside(dir string, parent *nofollow.Dir, aside string, cp *nofollow.Dir) error {
	first := true
	r := nofollow.Removal{Keep: isMark, Removed: func() {
		if first {
			first = false
			removePauseAt(RemovePausePartlyRemoved)
		}
	}}
	err := r.Empty(cp)
	if err == nil {
		removePauseAt(RemovePauseEmptied)
		for _, m := range marks {
			if err = r.RemoveEntry(cp, m.name); err != nil {
				break
			}
		}
	}
	if err == nil {
		err = removeEmptyAside(parent, aside, cp)
	}
	if err == nil {
		return nil
	}
	asidePath := filepath.Join(parent.Path, aside)
	left, leftBytes := treeSize(asidePath)
	return fmt.Errorf("removing %s: it was set aside as %s (no longer a checkpoint anything lists, dropped from its store's record) and partly removed: %s (%s) removed, %s (%s) left there; %v; once that is fixed, checkpoints rm --yes %s finishes it (or remove what is left by hand)",
		dir, asidePath, words.Count(int64(r.Files), "file", "files"), words.Bytes(int64(r.Bytes)), words.Count(int64(left), "file", "files"), words.Bytes(int64(leftBytes)), err, dir)
}

// removeEmptyAside removes the emptied directory cp, named aside in parent, when that name is
// still it.
func removeEmptyAside(parent *nofollow.Dir, aside string, cp *nofollow.Dir) error {
	st, err := parent.Lstat(aside)
	if err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR || !cp.Same(uint64(st.Dev), uint64(st.Ino)) {
		return fmt.Errorf("%s was replaced while it was removed (left alone)", filepath.Join(parent.Path, aside))
	}
	if err := parent.RemoveEmptyDir(aside); err != nil {
		return access.Check(err, parent.Path, true)
	}
	return nil
}

// treeSize counts the files under dir and their bytes, without following links.
func treeSize(dir string) (files int, bytes uint64) {
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		files++
		if fi, err := d.Info(); err == nil && fi.Mode().IsRegular() {
			bytes += uint64(fi.Size())
		}
		return nil
	})
	return files, bytes
}

// CheckFinish makes, on what a killed removal left set aside, every check a first rm makes of
// a checkpoint (checkStore: its store there, not held, opens, not mid-migration; the directory
// not written since its marker): a finish removes what is left of a checkpoint, which may be
// all of it. What holds no marker and no file (the marker goes last) holds nothing to check.
// It returns u with what Finish checks again once it holds the directory.
func CheckFinish(u UnfinishedRemoval, protected Protected) (UnfinishedRemoval, error) {
	if u.Store == "" {
		return u, nil
	}
	wrap := func(err error) error {
		e := fmt.Errorf("the removal of %s did not finish (set aside as %s), and finishing it is refused as a first rm would refuse it: %w", u.Dir, u.Aside, err)
		var refused *Refused
		var inUse *InUse
		switch {
		case errors.As(err, &inUse):
			return &InUse{e}
		case errors.As(err, &refused):
			return &Refused{e}
		}
		return e
	}
	d, err := nofollow.OpenDir(u.Aside)
	if err != nil {
		return u, wrap(refusal("%s: cannot open it: %v", u.Aside, err))
	}
	defer d.Close()
	if !d.Same(u.id.dev, u.id.ino) {
		return u, wrap(refusal("%s was replaced since it was found", u.Aside))
	}
	if ps, _ := identify(protected.Store); protected.Store != "" && ps.same(u.id) {
		return u, wrap(refusal("%s is the store $%s names", u.Aside, protected.Var))
	}
	pr, err := proveAt(d, u.Dir)
	if err != nil {
		return u, wrap(err)
	}
	if _, err := checkStore(d, u.id, pr, u.Dir); err != nil {
		return u, wrap(err)
	}
	u.proof, u.checked = pr, true
	return u, nil
}

// Finish finishes what a killed removal left, once CheckFinish passed: as Remove from its
// rename on (the directory found, not a link, its LOCK held, its marker the one checked), the
// store its marker names forgets it (a warning when it cannot), then what is left is
// removed, the marker last.
func Finish(u UnfinishedRemoval) (warning string, err error) {
	if u.Store != "" && !u.checked {
		return "", fmt.Errorf("finishing the removal of %s: not checked (CheckFinish)", u.Dir)
	}
	parent, err := nofollow.OpenDir(filepath.Dir(u.Aside))
	if err != nil {
		return "", fmt.Errorf("finishing the removal of %s: %w; nothing was removed", u.Dir, access.Check(err, filepath.Dir(u.Aside), false))
	}
	defer parent.Close()
	aside := filepath.Base(u.Aside)
	var cp *nofollow.Dir
	if u.Store != "" {
		var lock *heldLock
		if cp, lock, err = recheckAside(parent, aside, u.id, u.proof, u.Dir); err != nil {
			return "", err
		}
		defer lock.close()
		if rs, ok := identify(u.Store); ok {
			if err := Forget(rs.Path, u.Dir); err != nil {
				warning = fmt.Sprintf("removing %s, but could not drop it from %s's record: %v", u.Dir, rs.Path, err)
			}
		}
	} else {
		if cp, err = parent.OpenDir(aside); err != nil || !cp.Same(u.id.dev, u.id.ino) {
			if cp != nil {
				cp.Close()
			}
			return "", refusal("%s was replaced since it was found", u.Aside)
		}
	}
	defer cp.Close()
	return warning, removeSetAside(u.Dir, parent, aside, cp)
}
