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
)

// UnfinishedRemoval is what a removal killed part way left: the checkpoint Dir, set aside as
// Aside by process PID, which is gone (or, Running, a process of that pid runs: the removal
// itself, or a process that reused the pid of one that was killed).
type UnfinishedRemoval struct {
	Dir     string `json:"dir"`
	Aside   string `json:"aside"`
	PID     int    `json:"pid"`
	Running bool   `json:"running"`
	Store   string `json:"store"` // what its marker names, "" once the marker was removed
	Bytes   uint64 `json:"bytes"` // what is left of it

	id      dirID // the directory found (device and inode)
	proof   proof // what CheckFinish read of it
	checked bool  // CheckFinish passed
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
	var out []UnfinishedRemoval
	for _, u := range Unfinished(filepath.Join(parent, filepath.Base(abs))) {
		if !u.Running {
			out = append(out, u)
		}
	}
	return out
}

// asideIn reads the entry e of parent as what a checkpoints rm left set aside: a directory
// (not a link) named by asideBase, holding a checkpoint marker or nothing but empty
// directories (the marker goes last); Running when a process of its pid runs. Anything else
// of such a name is not proved ours, and is left alone (ok false).
func asideIn(parent string, e fs.DirEntry) (u UnfinishedRemoval, ok bool) {
	n := e.Name()
	i := strings.LastIndex(n, asideInfix)
	if !strings.HasPrefix(n, ".") || i <= 1 || !e.Type().IsDir() {
		return u, false
	}
	pidText := n[i+len(asideInfix):]
	pid, err := strconv.Atoi(pidText)
	if err != nil || pid <= 0 || strconv.Itoa(pid) != pidText {
		return u, false
	}
	u = UnfinishedRemoval{Dir: filepath.Join(parent, n[1:i]), Aside: filepath.Join(parent, n), PID: pid, Running: processRunning(pid)}
	fi, err := os.Lstat(u.Aside)
	if err != nil || !fi.IsDir() {
		return u, false
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		u.id = dirID{Path: u.Aside, dev: uint64(st.Dev), ino: uint64(st.Ino)}
	}
	files, bytes := treeSize(u.Aside)
	if _, m, ok := ReadMarker(u.Aside); ok && filepath.IsAbs(m.Store) {
		u.Store = m.Store
	} else if files != 0 {
		return u, false
	}
	u.Bytes = bytes
	return u, true
}

// Unfinished finds, next to dir, what checkpoints rm runs of dir left set aside (asideIn).
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

// UnfinishedOf finds what removals of store's checkpoints left set aside next to the store
// (where migrate and repair put their checkpoints by default) or next to the paths its record
// names: those whose marker names the store (the same directory), and those that hold nothing
// but empty directories any more and are named after one of its checkpoints' names.
func UnfinishedOf(store string) []UnfinishedRemoval {
	real, ok := identify(store)
	if !ok {
		return nil
	}
	parents := map[string]bool{filepath.Dir(real.Path): true}
	if abs := Abs(store); filepath.Dir(abs) != filepath.Dir(real.Path) {
		parents[filepath.Dir(abs)] = true
	}
	for _, l := range ReadRecord(real.Path) {
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
			if u.Store == "" {
				if s, _, named := ParseName(u.Dir); !named || !SameDir(s, real.Path) {
					continue
				}
			} else if ms, _ := identify(u.Store); !ms.same(real) {
				continue
			}
			out = append(out, u)
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
