package diskspace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestFreeOfMissingPathIsItsParents(t *testing.T) {
	dir := t.TempDir()
	a, err := Free(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Free(filepath.Join(dir, "not", "yet"))
	if err != nil {
		t.Fatal(err)
	}
	if a <= 0 || b <= 0 {
		t.Fatalf("free %d and %d; want > 0", a, b)
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	if err := Check("x", dir, 1); err != nil {
		t.Fatalf("1 byte: %v", err)
	}
	err := Check("the test", dir, 1<<62)
	var se *ShortError
	if !errors.As(err, &se) || !errors.Is(err, ErrShort) || se.Needed != 1<<62 || se.Where != dir || se.Free <= 0 {
		t.Fatalf("Check of 4 EiB: %v", err)
	}
}

func TestSameFSAndDirSize(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.sst"), make([]byte, 100), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.log"), make([]byte, 30), 0o644); err != nil {
		t.Fatal(err)
	}
	same, err := SameFS(dir, filepath.Join(dir, "new"))
	if err != nil || !same {
		t.Fatalf("SameFS: %v %v", same, err)
	}
	all, _ := DirSize(dir, nil)
	logs, _ := DirSize(dir, func(n string) bool { return filepath.Ext(n) == ".log" })
	if all != 130 || logs != 30 {
		t.Fatalf("DirSize: %d, %d", all, logs)
	}
}
