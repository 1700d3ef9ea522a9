package storetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// MountTmpfs mounts a tmpfs of size bytes on a new directory and unmounts it when the test
// ends: a real file system that runs out of space. The suite runs as root (CI does); a
// machine that refuses the mount fails the test rather than skipping it.
func MountTmpfs(t testing.TB, size int64) string {
	t.Helper()
	return MountTmpfsAt(t, t.TempDir(), size)
}

// MountTmpfsAt is MountTmpfs on dir, which exists.
func MountTmpfsAt(t testing.TB, dir string, size int64) string {
	t.Helper()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+strconv.FormatInt(size, 10), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Fatalf("mount tmpfs (the suite needs root, as CI has): %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v\n%s", dir, err, out)
		}
	})
	return dir
}

// Fill takes every free byte of the file system holding dir with one file, and returns
// the function that frees it.
func Fill(t testing.TB, dir string) func() {
	t.Helper()
	var s syscall.Statfs_t
	if err := syscall.Statfs(dir, &s); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "filler")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Allocate in chunks, halving a chunk the file system refuses: what statfs calls free
	// is not always one allocation's worth.
	var off int64
	for chunk := int64(s.Bavail) * int64(s.Bsize); chunk >= 4096; {
		if err := syscall.Fallocate(int(f.Fd()), 0, off, chunk); err == nil {
			off += chunk
		} else {
			chunk /= 2
		}
	}
	// Whatever the rounding left: write until the file system says no.
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			break
		}
	}
	return func() { os.Remove(p) }
}
