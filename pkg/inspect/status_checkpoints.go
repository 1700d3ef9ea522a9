package inspect

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Checkpoint is a RocksDB checkpoint found next to a store: the one migrate
// takes before its first write (STORE.backup-<time>), the one counters
// verify --repair takes (STORE.pre-repair-<time>), or one named explicitly.
type Checkpoint struct {
	Path string `json:"path"`
	// Kind is "backup", "pre-repair" or "recorded".
	Kind string `json:"kind"`
	// TakenAt is the time in its name, else its directory's modification time.
	TakenAt time.Time `json:"taken_at"`
	AgeMS   int64     `json:"age_ms"`
	// Bytes is the size of its files; SharedBytes the part that is hard links
	// to files the store still has (a checkpoint costs disk only as the store
	// compacts away from it).
	Bytes       uint64 `json:"bytes"`
	SharedBytes uint64 `json:"shared_bytes"`
	Files       int    `json:"files"`
}

// checkpointKinds are the name rules of the checkpoints this tool takes, with
// the time layouts their names carry.
var checkpointKinds = []struct {
	kind, infix, layout string
}{
	{"backup", ".backup-", "20060102T150405.000Z"},
	{"pre-repair", ".pre-repair-", "20060102T150405Z"},
}

// FindCheckpoints lists the checkpoints next to the store directory store
// (by the name rules above) and the extra paths given (a recorded --backup),
// oldest first. It only stats files.
func FindCheckpoints(store string, extra []string, now time.Time) []Checkpoint {
	clean := filepath.Clean(store)
	dir, base := filepath.Dir(clean), filepath.Base(clean)
	inodes := storeInodes(clean)
	var out []Checkpoint
	seen := map[string]bool{}
	add := func(path, kind string, taken time.Time) {
		if seen[path] {
			return
		}
		info, err := os.Stat(path)
		if err != nil || !info.IsDir() {
			return
		}
		seen[path] = true
		if taken.IsZero() {
			taken = info.ModTime().UTC()
		}
		c := Checkpoint{Path: path, Kind: kind, TakenAt: taken, AgeMS: now.Sub(taken).Milliseconds()}
		_ = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return nil
			}
			c.Files++
			c.Bytes += uint64(fi.Size())
			if sys, ok := fi.Sys().(*syscall.Stat_t); ok && inodes[inodeKey{uint64(sys.Dev), uint64(sys.Ino)}] {
				c.SharedBytes += uint64(fi.Size())
			}
			return nil
		})
		out = append(out, c)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		for _, k := range checkpointKinds {
			prefix := base + k.infix
			if !strings.HasPrefix(e.Name(), prefix) {
				continue
			}
			t, err := time.Parse(k.layout, strings.TrimPrefix(e.Name(), prefix))
			if err != nil {
				t = time.Time{}
			}
			add(filepath.Join(dir, e.Name()), k.kind, t)
		}
	}
	for _, p := range extra {
		add(filepath.Clean(p), "recorded", time.Time{})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].TakenAt.Before(out[j].TakenAt) })
	if out == nil {
		out = []Checkpoint{}
	}
	return out
}

type inodeKey struct{ dev, ino uint64 }

func storeInodes(dir string) map[inodeKey]bool {
	m := map[inodeKey]bool{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			continue
		}
		if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
			m[inodeKey{uint64(sys.Dev), uint64(sys.Ino)}] = true
		}
	}
	return m
}
