package faults

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
)

// TestHarness holds the suite's own tools to what the cases rely on: the binary runs, an
// extracted fixture is a store, and a changed byte is seen.
func TestHarness(t *testing.T) {
	r := run(t, "version")
	expect(t, r, 0)
	dir := extract(t, "store-v3", t.TempDir())
	before := storetest.TreeOf(t, dir)
	expect(t, run(t, "counters", "verify", dir), 0)
	storetest.SameTree(t, before, storetest.TreeOf(t, dir))

	f := filepath.Join(dir, "CURRENT")
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	after := storetest.TreeOf(t, dir)
	if after["CURRENT"] == before["CURRENT"] {
		t.Fatal("tree does not see a changed file")
	}
}

// TestHarnessTmpfsFills: the tmpfs the disk-full cases use really runs out of space.
func TestHarnessTmpfsFills(t *testing.T) {
	dir := storetest.MountTmpfs(t, 1<<20)
	err := os.WriteFile(filepath.Join(dir, "big"), make([]byte, 2<<20), 0o644)
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("writing 2 MiB to a 1 MiB tmpfs: %v, want ENOSPC", err)
	}
}
