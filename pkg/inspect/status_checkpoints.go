package inspect

import (
	"bufio"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// The checkpoints this tool takes of a store, and how they are found again. migrate (its
// --backup, by default STORE.backup-<start time>) and counters verify --repair (its
// --checkpoint, by default STORE.pre-repair-<time>) each leave a marker file inside the
// checkpoint, saying what it is a checkpoint of, and append its path to the record file in
// the store's directory: a --backup anywhere is found from the store. RocksDB ignores files
// it does not know (it neither copies nor deletes them), so neither file is part of the
// store's contract, and a checkpoint restored as the store keeps working with its marker
// inside.
const (
	// MigrationMark is the marker migrate writes into its checkpoint (a CheckpointMark).
	MigrationMark = "ANKUSA-MIGRATION-CHECKPOINT"
	// RepairMark is the marker counters verify --repair writes into its checkpoint.
	RepairMark = "ANKUSA-REPAIR-CHECKPOINT"
	// CheckpointRecord is the file in the store directory listing the checkpoints taken of
	// it, one JSON CheckpointRecordLine a line, oldest first.
	CheckpointRecord = "ANKUSA-CHECKPOINTS"
)

// CheckpointMark is a marker file's content.
type CheckpointMark struct {
	// Store is the absolute path of the store the checkpoint was taken of.
	Store string `json:"store"`
	// StartedAtMS (migrate) is the start of the migration it was taken for, Unix ms.
	StartedAtMS int64 `json:"started_at_ms,omitempty"`
	// TakenAtMS (repair) is when it was taken, Unix ms.
	TakenAtMS int64 `json:"taken_at_ms,omitempty"`
}

// CheckpointRecordLine is one line of the store's CheckpointRecord.
type CheckpointRecordLine struct {
	Path    string `json:"path"`
	TakenBy string `json:"taken_by"`
	AtMS    int64  `json:"at_ms"`
}

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

// checkpointKinds are the name rules of the checkpoints this tool takes, with
// the time layouts their names carry.
var checkpointKinds = []struct {
	kind, infix, layout, takenBy string
}{
	{"backup", ".backup-", "20060102T150405.000Z", "migrate"},
	{"pre-repair", ".pre-repair-", "20060102T150405Z", "counters verify --repair"},
}

// CheckpointNameRule reports whether path is named by a checkpoint name rule
// (STORE.backup-<time>, STORE.pre-repair-<time>[-N]), and of which store.
func CheckpointNameRule(path string) (store, kind string, ok bool) {
	clean := filepath.Clean(path)
	dir, base := filepath.Dir(clean), filepath.Base(clean)
	for _, k := range checkpointKinds {
		if i := strings.LastIndex(base, k.infix); i > 0 {
			rest := base[i+len(k.infix):]
			if _, err := time.Parse(k.layout, rest); err != nil {
				if j := strings.LastIndex(rest, "-"); j < 0 {
					continue
				} else if _, err := time.Parse(k.layout, rest[:j]); err != nil {
					continue
				}
			}
			return filepath.Join(dir, base[:i]), k.kind, true
		}
	}
	return "", "", false
}

// ReadCheckpointMark reads the marker in dir: which command's it is and what it says.
func ReadCheckpointMark(dir string) (takenBy string, m CheckpointMark, ok bool) {
	for _, f := range []struct{ name, by string }{{MigrationMark, "migrate"}, {RepairMark, "counters verify --repair"}} {
		b, err := os.ReadFile(filepath.Join(dir, f.name))
		if err != nil {
			continue
		}
		if json.Unmarshal(b, &m) != nil {
			return f.by, CheckpointMark{}, true
		}
		return f.by, m, true
	}
	return "", CheckpointMark{}, false
}

// ReadCheckpointRecord reads the store's record of its checkpoints; a missing record is
// none, and a line that does not decode is skipped.
func ReadCheckpointRecord(store string) []CheckpointRecordLine {
	f, err := os.Open(filepath.Join(store, CheckpointRecord))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []CheckpointRecordLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l CheckpointRecordLine
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.Path != "" {
			out = append(out, l)
		}
	}
	return out
}

// FindCheckpoints lists the checkpoints of the store directory store: those next to it by
// the name rules, those its record holds, and the extra paths given, oldest first. It only
// reads directories, markers and the record.
func FindCheckpoints(store string, extra []string, now time.Time) []Checkpoint {
	clean := filepath.Clean(store)
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
		if by, m, ok := ReadCheckpointMark(path); ok {
			c.Marked, c.TakenBy, c.MarkStore = true, by, m.Store
			if by == "migrate" {
				c.Kind = "backup"
			} else {
				c.Kind = "pre-repair"
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
		for _, k := range checkpointKinds {
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
	for _, r := range ReadCheckpointRecord(clean) {
		if why := untrustedRecordLine(clean, r.Path); why != "" {
			continue
		}
		var t time.Time
		if r.AtMS > 0 {
			t = time.UnixMilli(r.AtMS).UTC()
		}
		add(r.Path, "recorded", r.TakenBy, t)
	}
	for _, p := range extra {
		add(p, "recorded", "", time.Time{})
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

// untrustedRecordLine says why a path in store's record is not counted as a checkpoint of it,
// "" when it is: the record is a plain file in the store's directory, and a line in it proves
// nothing by itself. A recorded path counts only where its marker is there and names this
// store (both resolved), and never when it is the file system's root, the store itself or
// one of its ancestors (each of which a walk for sizes would cross whole). A path that is gone
// is not listed either (no reason given: a removed checkpoint).
func untrustedRecordLine(store, path string) string {
	rs, err := filepath.EvalSymlinks(store)
	if err != nil {
		rs = store
	}
	rp, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "" // gone: add skips it
	}
	if rp == "/" || rp == rs || strings.HasPrefix(rs, rp+"/") {
		return "it is the file system's root, the store or a directory above the store"
	}
	if _, _, ok := ReadCheckpointMark(rp); !ok {
		if s, _, named := CheckpointNameRule(rp); named {
			if r, err := filepath.EvalSymlinks(s); err == nil && r == rs {
				return "" // named as this store's checkpoint, next to it
			}
		}
		return "it holds no checkpoint marker of this tool's"
	}
	_, m, _ := ReadCheckpointMark(rp)
	ms, err := filepath.EvalSymlinks(m.Store)
	if m.Store == "" || err != nil || ms != rs {
		return "its marker names another store (" + m.Store + ")"
	}
	return ""
}

// IgnoredRecordLines lists the paths in store's record that are not counted as its
// checkpoints, each with the reason (untrustedRecordLine), for a note.
func IgnoredRecordLines(store string) []string {
	var out []string
	for _, r := range ReadCheckpointRecord(filepath.Clean(store)) {
		if why := untrustedRecordLine(filepath.Clean(store), r.Path); why != "" {
			out = append(out, r.Path+": "+why)
		}
	}
	return out
}
