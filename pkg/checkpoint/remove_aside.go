package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/ankusa/ankusa-store/internal/access"
	"github.com/ankusa/ankusa-store/internal/selfstop"
	"github.com/ankusa/ankusa-store/internal/words"
)

// RemovePauseEnv names the environment variable that makes a removal (checkpoints rm) stop its own process
// (SIGSTOP, internal/selfstop) at one named point of a removal, so that the fault suite kills
// it there (kill -9) on every run. Nothing else reads it; unset or unknown, it does nothing.
const RemovePauseEnv = "ANKUSA_STORE_RM_PAUSE"

// The points of a removal, in order (RemovePauseEnv).
const (
	RemovePauseChecked       = "checked"        // every check passed, nothing touched
	RemovePauseSetAside      = "set-aside"      // renamed aside, the store's record still names it
	RemovePauseForgotten     = "forgotten"      // the record no longer names it, no file removed
	RemovePausePartlyRemoved = "partly-removed" // one file removed
	RemovePauseEmptied       = "emptied"        // every file removed but the marker
)

var removePause = os.Getenv(RemovePauseEnv)

func removePauseAt(point string) {
	if removePause == point {
		selfstop.Here()
	}
}

// asideInfix is in the name a checkpoint is renamed to while it is removed: a dot-name, next
// to it, that no rule of checkpoints ls, status or completion lists.
const asideInfix = ".ankusa-removing-"

func asideName(dir string) string {
	return filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+asideInfix+strconv.Itoa(os.Getpid()))
}

// Remove removes the checkpoint dir of store (as CheckRemovable resolved them) crash-safely. It is first renamed aside, so
// that a kill leaves either the checkpoint, whole, or nothing that anything lists; then the
// store's record forgets it; then its files go, its marker last, so that what a kill leaves
// aside still says what it was (Unfinished finds it, Finish finishes it). A
// failure says what is gone and what is left.
func Remove(dir, store string) (warning string, err error) {
	removePauseAt(RemovePauseChecked)
	aside := asideName(dir)
	if err := os.Rename(dir, aside); err != nil {
		return "", fmt.Errorf("removing %s: could not set it aside (%w); nothing was removed", dir, access.Check(err, filepath.Dir(dir), true))
	}
	removePauseAt(RemovePauseSetAside)
	if err := Forget(store, dir); err != nil {
		warning = fmt.Sprintf("warning: removing %s, but could not drop it from %s's record: %v", dir, store, err)
	}
	removePauseAt(RemovePauseForgotten)
	return warning, removeSetAside(dir, aside)
}

// removeSetAside removes aside, the checkpoint dir as set aside, every file before the
// markers, and says on failure what was removed and what is left.
func removeSetAside(dir, aside string) error {
	var t treeRemoval
	t.first = func() { removePauseAt(RemovePausePartlyRemoved) }
	err := t.remove(aside, true)
	if err == nil {
		removePauseAt(RemovePauseEmptied)
		for _, m := range []string{MigrationMark, RepairMark} {
			if err = t.removeFile(filepath.Join(aside, m)); err != nil {
				break
			}
		}
	}
	if err == nil {
		if err = os.Remove(aside); err != nil {
			err = access.Check(err, aside, true)
		}
	}
	if err == nil {
		return nil
	}
	left, leftBytes := treeSize(aside)
	return fmt.Errorf("removing %s: it was set aside as %s (no longer a checkpoint anything lists, dropped from its store's record) and partly removed: %s (%s) removed, %s (%s) left there; %v; once that is fixed, checkpoints rm --yes %s finishes it (or remove what is left by hand)",
		dir, aside, words.Count(int64(t.files), "file", "files"), words.Bytes(int64(t.bytes)), words.Count(int64(left), "file", "files"), words.Bytes(int64(leftBytes)), err, dir)
}

// treeRemoval removes a directory tree without following a symbolic link (a link is removed,
// never what it names), counting what it removed.
type treeRemoval struct {
	files int
	bytes uint64
	first func() // called once, after the first file removed
}

func (t *treeRemoval) removeFile(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return access.Check(err, path, false)
	}
	if err := os.Remove(path); err != nil {
		return access.Check(err, filepath.Dir(path), true)
	}
	t.files++
	if fi.Mode().IsRegular() {
		t.bytes += uint64(fi.Size())
	}
	if t.files == 1 && t.first != nil {
		t.first()
	}
	return nil
}

// remove removes what dir holds (and, unless top, dir), keeping the checkpoint markers of the
// top directory for the caller to remove last.
func (t *treeRemoval) remove(dir string, top bool) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return access.Check(err, dir, false)
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		switch {
		case top && (e.Name() == MigrationMark || e.Name() == RepairMark):
			continue
		case e.Type().IsDir():
			if err := t.remove(p, false); err != nil {
				return err
			}
		default:
			if err := t.removeFile(p); err != nil {
				return err
			}
		}
	}
	if !top {
		if err := os.Remove(dir); err != nil {
			return access.Check(err, filepath.Dir(dir), true)
		}
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

// UnfinishedRemoval is what a removal killed part way left: the checkpoint dir, set aside as
// Aside by process PID, which is gone.
type UnfinishedRemoval struct {
	Dir, Aside string
	PID        int
	Store      string // what its marker names, "" once the marker was removed
	Bytes      uint64 // what is left of it
}

// UnfinishedAt finds what killed removals of path left set aside, when path itself is no
// longer there (its parent resolved, as CheckRemovable resolves path).
func UnfinishedAt(path string) []UnfinishedRemoval {
	abs := Abs(path)
	if _, err := os.Lstat(abs); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	parent, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return nil
	}
	return Unfinished(filepath.Join(parent, filepath.Base(abs)))
}

// Finish finishes what a killed removal left: the store its marker names forgets it (a
// warning when it cannot), then what is left is removed, the marker last.
func Finish(u UnfinishedRemoval) (warning string, err error) {
	if u.Store != "" {
		if rs, err := filepath.EvalSymlinks(u.Store); err == nil {
			if err := Forget(rs, u.Dir); err != nil {
				warning = fmt.Sprintf("warning: removing %s, but could not drop it from %s's record: %v", u.Dir, rs, err)
			}
		}
	}
	return warning, removeSetAside(u.Dir, u.Aside)
}

// asideIn reads the entry e of parent as what a killed checkpoints rm left set aside: a
// directory (not a link) named by asideName for a process that is no longer running, holding
// a checkpoint marker or nothing but empty directories (the marker goes last). Anything else
// of such a name is not proved ours, and is left alone (ok false).
func asideIn(parent string, e fs.DirEntry) (u UnfinishedRemoval, ok bool) {
	n := e.Name()
	i := strings.LastIndex(n, asideInfix)
	if !strings.HasPrefix(n, ".") || i <= 1 || !e.Type().IsDir() {
		return u, false
	}
	pidText := n[i+len(asideInfix):]
	pid, err := strconv.Atoi(pidText)
	if err != nil || pid <= 0 || strconv.Itoa(pid) != pidText || processRunning(pid) {
		return u, false
	}
	u = UnfinishedRemoval{Dir: filepath.Join(parent, n[1:i]), Aside: filepath.Join(parent, n), PID: pid}
	files, bytes := treeSize(u.Aside)
	if _, m, ok := ReadMarker(u.Aside); ok && filepath.IsAbs(m.Store) {
		u.Store = m.Store
	} else if files != 0 {
		return u, false
	}
	u.Bytes = bytes
	return u, true
}

// Unfinished finds, next to dir, what killed checkpoints rm runs of dir left set aside
// (asideIn).
func Unfinished(dir string) []UnfinishedRemoval {
	parent := filepath.Dir(dir)
	ents, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	var out []UnfinishedRemoval
	for _, e := range ents {
		if u, ok := asideIn(parent, e); ok && u.Dir == dir {
			out = append(out, u)
		}
	}
	return out
}

// UnfinishedOf finds what killed removals of store's checkpoints left next to the
// store (where migrate and repair put their checkpoints by default) or next to the paths its
// record names.
func UnfinishedOf(store string) []UnfinishedRemoval {
	real, err := filepath.EvalSymlinks(Abs(store))
	if err != nil {
		return nil
	}
	parents := map[string]bool{filepath.Dir(real): true}
	for _, l := range ReadRecord(real) {
		if filepath.IsAbs(l.Path) {
			parents[filepath.Dir(filepath.Clean(l.Path))] = true
		}
	}
	var out []UnfinishedRemoval
	for parent := range parents {
		ents, err := os.ReadDir(parent)
		if err != nil {
			continue
		}
		for _, e := range ents {
			u, ok := asideIn(parent, e)
			if !ok {
				continue
			}
			if rs, err := filepath.EvalSymlinks(u.Store); err == nil && rs == real {
				out = append(out, u)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Aside < out[j].Aside })
	return out
}

// processRunning says whether pid names a running process (one that exists, whoever owns it;
// a zombie counts as gone).
func processRunning(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	if i := strings.LastIndexByte(string(b), ')'); i > 0 && i+2 < len(b) && b[i+2] == 'Z' {
		return false
	}
	return true
}
