package nofollow

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// victim is a directory outside the tree that links in the tree point at: nothing in it may go.
func victim(t *testing.T) string {
	t.Helper()
	v := filepath.Join(t.TempDir(), "victim")
	if err := os.MkdirAll(filepath.Join(v, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"a", "sub/b"} {
		if err := os.WriteFile(filepath.Join(v, f), []byte("keep"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

func victimWhole(t *testing.T, v string) {
	t.Helper()
	for _, f := range []string{"a", "sub/b"} {
		if _, err := os.Stat(filepath.Join(v, f)); err != nil {
			t.Fatalf("a file outside the tree was removed: %v", err)
		}
	}
}

// TestRemovalNeverFollows: a tree holding files, directories and links to a directory outside
// it (a link in place of a subdirectory, a link at the top) is removed as links, the
// directory they name untouched; the entries Keep names stay; the counts are what went.
func TestRemovalNeverFollows(t *testing.T) {
	for _, tc := range []struct {
		name       string
		build      func(t *testing.T, top, v string)
		files      int
		bytes      uint64
		keptMarker bool
	}{
		{"files and a subdirectory", func(t *testing.T, top, v string) {
			mk(t, top, "000001.sst", "12345")
			mk(t, top, "sub/x", "12")
		}, 2, 7, true},
		{"a link in place of a subdirectory", func(t *testing.T, top, v string) {
			mk(t, top, "000001.sst", "12345")
			if err := os.Symlink(v, filepath.Join(top, "sub")); err != nil {
				t.Fatal(err)
			}
		}, 2, 5, true},
		{"a link deep down, and one to a file", func(t *testing.T, top, v string) {
			mk(t, top, "d/e/f", "1")
			if err := os.Symlink(filepath.Join(v, "sub"), filepath.Join(top, "d", "e", "link")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(v, "a"), filepath.Join(top, "d", "filelink")); err != nil {
				t.Fatal(err)
			}
		}, 3, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := victim(t)
			top := filepath.Join(t.TempDir(), "top")
			mk(t, top, "MARK", "m")
			tc.build(t, top, v)
			d, err := OpenDir(top)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			r := Removal{Keep: func(n string) bool { return n == "MARK" }}
			if err := r.Empty(d); err != nil {
				t.Fatal(err)
			}
			victimWhole(t, v)
			names, _ := d.Names()
			if fmt.Sprint(names) != "[MARK]" {
				t.Fatalf("left %v, want the kept MARK only", names)
			}
			if r.Files != tc.files || r.Bytes != tc.bytes {
				t.Fatalf("counted %d files, %d bytes; want %d, %d", r.Files, r.Bytes, tc.files, tc.bytes)
			}
		})
	}
}

// TestOpenDirRefusesALink: the top directory opened by a path that is a link is ErrSymlink.
func TestOpenDirRefusesALink(t *testing.T) {
	v := victim(t)
	l := filepath.Join(t.TempDir(), "l")
	if err := os.Symlink(v, l); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenDir(l); !errors.Is(err, ErrSymlink) {
		t.Fatalf("OpenDir of a link: %v, want ErrSymlink", err)
	}
}

// TestRemovalRacedBySwaps: while a goroutine swaps a subdirectory for a link to a directory
// outside the tree and back as fast as it can, the removal (behind 2,000 files, so that the
// swaps run during it) either finishes or gives up; the directory outside is never touched.
func TestRemovalRacedBySwaps(t *testing.T) {
	for run := 0; run < 5; run++ {
		v := victim(t)
		top := filepath.Join(t.TempDir(), "top")
		for i := 0; i < 2000; i++ {
			mk(t, top, fmt.Sprintf("f%05d", i), "x")
		}
		mk(t, top, "zz/inner", "y")
		var stop atomic.Bool
		done := make(chan struct{})
		go func() {
			defer close(done)
			zz, aside := filepath.Join(top, "zz"), filepath.Join(top, "zz.real")
			for !stop.Load() {
				if os.Rename(zz, aside) == nil {
					os.Symlink(v, zz)
					os.Remove(zz)
					os.Rename(aside, zz)
				}
			}
		}()
		d, err := OpenDir(top)
		if err != nil {
			t.Fatal(err)
		}
		r := Removal{}
		err = r.Empty(d)
		stop.Store(true)
		<-done
		d.Close()
		victimWhole(t, v)
		t.Logf("run %d: %d files removed, err %v", run, r.Files, err)
	}
}

func mk(t *testing.T, top, rel, content string) {
	t.Helper()
	p := filepath.Join(top, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
