package checkpoint

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Checkpoint is a checkpoint of a store this tool took: found by the name rules next to
// the store, or at a path the store's record holds.
type Checkpoint struct {
	Path string `json:"path"`
	// Kind is "backup" (migrate's), "pre-repair" (counters verify --repair's) or
	// "recorded" (in the store's record, with no marker saying which).
	Kind string `json:"kind"`
	// TakenBy is the command that took it: "migrate", "counters verify --repair", or ""
	// when neither its marker nor the record says.
	TakenBy string `json:"taken_by"`
	// Marked: it holds the marker file of the command that took it; MarkStore is the store
	// the marker names ("" without one).
	Marked    bool   `json:"marked"`
	MarkStore string `json:"mark_store"`
	// TakenAt is its marker's time, else the time in its name, else its directory's
	// modification time.
	TakenAt time.Time `json:"taken_at"`
	AgeMS   int64     `json:"age_ms"`
	// Bytes is the size of its files, each file (inode) counted once however many links
	// it has; SharedBytes the part that is hard links to files the store still has;
	// OwnBytes the part with no link outside the checkpoint: what removing it frees.
	Bytes       uint64 `json:"bytes"`
	SharedBytes uint64 `json:"shared_bytes"`
	OwnBytes    uint64 `json:"own_bytes"`
	Files       int    `json:"files"`
}

// Find lists the checkpoints of the store directory store: those next to it by
// the name rules, those its record holds, and the extra paths given, oldest first. It only
// reads directories, markers and the record.
func Find(store string, extra []string, now time.Time) []Checkpoint {
	clean := Abs(store)
	dir, base := filepath.Dir(clean), filepath.Base(clean)
	inodes := storeInodes(clean)
	storeInfo, _ := os.Stat(clean)
	var out []Checkpoint
	seen := map[string]bool{}
	add := func(path, kind, takenBy string, taken time.Time) {
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		path = filepath.Clean(path)
		if seen[path] {
			return
		}
		// A checkpoint is a directory the tool made: a symbolic link named like one (to the
		// store itself, say) is not one, and is not followed; nor is the store by another name.
		info, err := os.Lstat(path)
		if err != nil || !info.IsDir() || storeInfo != nil && os.SameFile(info, storeInfo) {
			return
		}
		seen[path] = true
		c := Checkpoint{Path: path, Kind: kind, TakenBy: takenBy}
		if by, m, ok := ReadMarker(path); ok {
			c.Marked, c.TakenBy, c.MarkStore = true, by, m.Store
			if by == ByMigrate {
				c.Kind = KindBackup
			} else {
				c.Kind = KindPreRepair
			}
			switch {
			case m.TakenAtMS > 0:
				taken = time.UnixMilli(m.TakenAtMS).UTC()
			case m.StartedAtMS > 0:
				taken = time.UnixMilli(m.StartedAtMS).UTC()
			}
		}
		if taken.IsZero() {
			taken = info.ModTime().UTC()
		}
		c.TakenAt, c.AgeMS = taken, now.Sub(taken).Milliseconds()
		checkpointSize(&c, inodes)
		out = append(out, c)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		for _, k := range kinds {
			prefix := base + k.infix
			if !strings.HasPrefix(e.Name(), prefix) {
				continue
			}
			t, err := time.Parse(k.layout, strings.TrimPrefix(e.Name(), prefix))
			if err != nil {
				t = time.Time{}
			}
			add(filepath.Join(dir, e.Name()), k.kind, "", t)
		}
	}
	rs, _ := identify(clean)
	eachRecordLine(clean, func(r RecordLine) {
		if why := untrustedRecordLine(rs, r.Path); why != "" {
			return
		}
		var t time.Time
		if r.AtMS > 0 {
			t = time.UnixMilli(r.AtMS).UTC()
		}
		add(r.Path, KindRecorded, r.TakenBy, t)
	})
	for _, p := range extra {
		add(p, KindRecorded, "", time.Time{})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].TakenAt.Before(out[j].TakenAt) })
	if out == nil {
		out = []Checkpoint{}
	}
	return out
}

// checkpointSize fills the sizes: each inode once; shared with the store; own, with every
// link of it inside the checkpoint.
func checkpointSize(c *Checkpoint, storeInodes map[inodeKey]bool) {
	type inode struct {
		size        uint64
		links, seen uint64
	}
	found := map[inodeKey]*inode{}
	_ = filepath.WalkDir(c.Path, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		fi, err := d.Info()
		if err != nil || !fi.Mode().IsRegular() {
			return nil
		}
		c.Files++
		sys, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			c.Bytes += uint64(fi.Size())
			return nil
		}
		k := inodeKey{uint64(sys.Dev), uint64(sys.Ino)}
		in := found[k]
		if in == nil {
			in = &inode{size: uint64(fi.Size()), links: uint64(sys.Nlink)}
			found[k] = in
		}
		in.seen++
		return nil
	})
	for k, in := range found {
		c.Bytes += in.size
		if storeInodes[k] {
			c.SharedBytes += in.size
		}
		if in.seen >= in.links {
			c.OwnBytes += in.size
		}
	}
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

// untrustedRecordLine says why a path in the record of the store rs is not counted as a
// checkpoint of it, "" when it is: the record is a plain file in the store's directory, and a
// line in it proves nothing by itself. A recorded path counts only where its marker is there
// and names this store (the same directory, however either is spelled), and never when it is
// the file system's root, the store itself or one of its ancestors (each of which a walk for
// sizes would cross whole). A path that is gone is not listed either (no reason given: a
// removed checkpoint).
func untrustedRecordLine(rs dirID, path string) string {
	rp, ok := identify(path)
	if !ok {
		return "" // gone: add skips it
	}
	if rp.Path == "/" || rp.same(rs) || strings.HasPrefix(rs.Path, rp.Path+"/") {
		return "it is the file system's root, the store or a directory above the store"
	}
	_, m, marked := ReadMarker(rp.Path)
	if !marked {
		if s, _, named := ParseName(rp.Path); named {
			if sid, _ := identify(s); sid.same(rs) {
				return "" // named as this store's checkpoint, next to it
			}
		}
		return "it holds no checkpoint marker of this tool's"
	}
	if ms, _ := identify(m.Store); !filepath.IsAbs(m.Store) || !ms.same(rs) {
		return "its marker names another store (" + m.Store + ")"
	}
	return ""
}

// IgnoredRecordLines lists the paths in store's record that are not counted as its
// checkpoints, each with the reason (untrustedRecordLine), for a note; whole is false
// when the record is longer than what is read of it (MaxRecordLines).
func IgnoredRecordLines(store string) (ignored []string, whole bool) {
	rs, _ := identify(store)
	whole = eachRecordLine(filepath.Clean(store), func(r RecordLine) {
		if why := untrustedRecordLine(rs, r.Path); why != "" {
			ignored = append(ignored, r.Path+": "+why)
		}
	})
	return ignored, whole
}
