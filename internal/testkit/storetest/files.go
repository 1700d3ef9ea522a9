package storetest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FileState is what a file or directory is on disk: its mode and, for a
// regular file, its size and the SHA-256 of its bytes.
type FileState struct {
	Mode fs.FileMode
	Size int64
	Hash string
}

// Tree is a directory and every file and directory below it (LOCK and LOG
// included), by slash-separated path relative to it ("./" is the directory
// itself); directories end in "/".
type Tree map[string]FileState

// ReadTree records the tree below dir.
func ReadTree(dir string) (Tree, error) {
	out := Tree{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			out[rel+"/"] = FileState{Mode: info.Mode()}
			return nil
		}
		st := FileState{Mode: info.Mode()}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			st.Size, st.Hash = info.Size(), hex.EncodeToString(sum[:])
		}
		out[rel] = st
		return nil
	})
	return out, err
}

// TreeOf is ReadTree that fails the test on error.
func TreeOf(t testing.TB, dir string) Tree {
	t.Helper()
	tr, err := ReadTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// String is one line per entry, sorted: a snapshot that can be written to
// a file and compared later.
func (tr Tree) String() string {
	var lines []string
	for p, s := range tr {
		lines = append(lines, fmt.Sprintf("%s %v %d %s", p, s.Mode, s.Size, s.Hash))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}

// Diff lists how after differs from tr, sorted; nil when they are the same.
func (tr Tree) Diff(after Tree) []string {
	var diffs []string
	for p, b := range tr {
		a, ok := after[p]
		switch {
		case !ok:
			diffs = append(diffs, "removed "+p)
		case a != b:
			diffs = append(diffs, fmt.Sprintf("changed %s (mode %v -> %v, size %d -> %d)", p, b.Mode, a.Mode, b.Size, a.Size))
		}
	}
	for p := range after {
		if _, ok := tr[p]; !ok {
			diffs = append(diffs, "added "+p)
		}
	}
	slices.Sort(diffs)
	return diffs
}

// SameTree fails the test unless after holds exactly the files of before,
// byte for byte, with the same modes.
func SameTree(t testing.TB, before, after Tree) {
	t.Helper()
	if d := before.Diff(after); len(d) > 0 {
		t.Fatalf("the store changed:\n  %s", strings.Join(d, "\n  "))
	}
}

// CopyTree copies the directories and regular files below src to dst, as
// one copies a closed store.
func CopyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
}

// CopyStore copies the closed store in src to a new directory of the test's
// and returns that directory.
func CopyStore(t testing.TB, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "store")
	if err := CopyTree(src, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}
