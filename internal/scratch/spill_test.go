package scratch_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/ankusa/ankusa-store/internal/scratch"
	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
)

// A spill file is made at its first write, in $TMPDIR and with no name there; what is
// appended is read back where Append said it lies, and Empty starts it again at 0.
func TestSpillFileAppendsAndReadsBack(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	s := scratch.NewSpillFile("a test's spill")
	defer s.Close()
	if s.Err() != nil || s.Size() != 0 {
		t.Fatalf("before a write: err %v, size %d", s.Err(), s.Size())
	}
	parts := [][]byte{[]byte("first"), bytes.Repeat([]byte{7}, 70000), []byte("third")}
	var offs []int64
	for _, p := range parts {
		off, ok := s.Append(p)
		if !ok {
			t.Fatalf("append: %v", s.Err())
		}
		offs = append(offs, off)
	}
	if offs[0] != 0 || offs[1] != 5 || offs[2] != 70005 || s.Size() != 70010 {
		t.Fatalf("offsets %v, size %d", offs, s.Size())
	}
	for i, p := range parts {
		got := make([]byte, len(p))
		if _, err := s.ReadAt(got, offs[i]); err != nil || !bytes.Equal(got, p) {
			t.Fatalf("part %d read back: %v", i, err)
		}
	}
	if names, _ := os.ReadDir(tmp); len(names) != 0 {
		t.Fatalf("the spill file has a name in $TMPDIR: %v", names)
	}
	s.Empty()
	if off, ok := s.Append([]byte("again")); !ok || off != 0 || s.Size() != 5 {
		t.Fatalf("after Empty: at %d, %v, size %d", off, ok, s.Size())
	}
}

// Its first failure is kept and every later write refused, nothing kept of it: a
// $TMPDIR that is not there, and a full one.
func TestSpillFileKeepsItsFirstFailure(t *testing.T) {
	t.Run("no $TMPDIR", func(t *testing.T) {
		t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "gone"))
		s := scratch.NewSpillFile("a test's spill")
		defer s.Close()
		if _, ok := s.Append([]byte("x")); ok || !errors.Is(s.Err(), fs.ErrNotExist) {
			t.Fatalf("append: %v, err %v", ok, s.Err())
		}
		if _, ok := s.Append([]byte("y")); ok || s.Size() != 0 {
			t.Fatalf("a second append: %v, size %d", ok, s.Size())
		}
	})
	t.Run("full", func(t *testing.T) {
		t.Setenv("TMPDIR", storetest.MountTmpfs(t, 64<<10))
		s := scratch.NewSpillFile("a test's spill")
		defer s.Close()
		if _, ok := s.Append(make([]byte, 32<<10)); !ok {
			t.Fatalf("the first 32 KiB: %v", s.Err())
		}
		if _, ok := s.Append(make([]byte, 64<<10)); ok || !errors.Is(s.Err(), syscall.ENOSPC) {
			t.Fatalf("64 KiB more in 64: %v, err %v", ok, s.Err())
		}
		if _, ok := s.Append([]byte("small")); ok || s.Size() != 32<<10 {
			t.Fatalf("after the failure: %v, size %d", ok, s.Size())
		}
	})
}
