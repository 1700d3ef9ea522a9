package storetest

import (
	"os/exec"
	"strconv"
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
