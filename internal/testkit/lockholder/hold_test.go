package lockholder

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/rocks"
)

func TestMain(m *testing.M) {
	Main()
	os.Exit(m.Run())
}

// A holder holds the LOCK as RocksDB sees it (rocks.ProbeLock) until it is let go, and one
// that cannot hold its store says so: no "ready", a failing exit.
func TestHoldAndRelease(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "LOCK"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	h := Start(t, dir, LockOnly)
	if ok, line := h.Held(); !ok {
		t.Fatalf("did not hold: %q", line)
	}
	if err := rocks.ProbeLock(dir); err == nil {
		t.Fatal("held, yet the LOCK is free")
	}
	if code := h.Release(); code != 0 {
		t.Fatalf("let go: exit %d", code)
	}
	if err := rocks.ProbeLock(dir); err != nil {
		t.Fatalf("let go, yet the LOCK is held: %v", err)
	}

	// Not a store: the open fails.
	h = Start(t, t.TempDir(), Open)
	if ok, line := h.Held(); ok || h.Release() == 0 {
		t.Fatalf("opened an empty directory: %q", line)
	}
}
