package faults

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/lockholder"
	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
)

// roCommands are the read-only commands, each as the arguments before STORE.
var roCommands = [][]string{
	{"counters", "verify"},
	{"tenants", "ls"},
	{"dlq", "scan"},
	{"scan", "index"},
	{"migrate", "--dry-run"},
	{"status"},
}

// TestLockedStoreIsUntouched: while a node holds the store, a command that would write
// refuses with exit 4 before RocksDB touches anything (LOG is not rotated, no file is made),
// and the read-only commands work beside it and change nothing either.
func TestLockedStoreIsUntouched(t *testing.T) {
	for _, fixture := range []string{"store-v2", "store-v3"} {
		t.Run(fixture, func(t *testing.T) {
			dir := extract(t, fixture, t.TempDir())
			lockholder.Hold(t, dir, lockholder.Open)
			before := storetest.TreeOf(t, dir)
			for _, args := range [][]string{
				{"migrate"},
				{"migrate", "--backup", filepath.Join(t.TempDir(), "bk")},
				{"counters", "verify", "--repair", "--yes"},
			} {
				r := run(t, append(args, dir)...)
				storetest.SameTree(t, before, storetest.TreeOf(t, dir))
				switch {
				case fixture == "store-v3" && args[0] == "migrate":
					// nothing to do on a format 3 store: it only reads, and says so
					expect(t, r, 0)
				case fixture == "store-v2" && args[0] == "counters":
					// a format 2 store has no counters to repair: it only reads (issue 44,
					// item 9), beside the node as every read-only command does
					expectOut(t, r, 0, "nothing written: a format 2 store has no counters to repair")
				default:
					expect(t, r, 4, "store is locked (is the node running?)", "holds "+filepath.Join(dir, "LOCK"))
					if n := strings.Count(strings.TrimSpace(r.Stderr), "\n"); n > 0 {
						t.Errorf("%v: want a one-line message, got:\n%s", args, r.Stderr)
					}
				}
			}
			for _, args := range roCommands {
				r := run(t, append(args, dir)...)
				if r.Signaled || (r.Code != 0 && r.Code != 1) {
					t.Fatalf("%v beside a node: %s", args, r)
				}
				storetest.SameTree(t, before, storetest.TreeOf(t, dir))
			}
		})
	}
}

// TestLockInPathIsNotLocked: a store on a read-only file system, below a directory whose
// name holds "lock", is a store error (exit 3) saying why, never "locked".
func TestLockInPathIsNotLocked(t *testing.T) {
	mnt := filepath.Join(t.TempDir(), "blockstore")
	if out, err := exec.Command("mkdir", "-p", mnt).CombinedOutput(); err != nil {
		t.Fatal(err, string(out))
	}
	m := storetest.MountTmpfsAt(t, mnt, 64<<20)
	dir := extract(t, "store-v2", m)
	if out, err := exec.Command("mount", "-o", "remount,ro", m).CombinedOutput(); err != nil {
		t.Fatalf("remount ro: %v\n%s", err, out)
	}
	before := storetest.TreeOf(t, dir)
	r := run(t, "migrate", dir)
	expect(t, r, 3, "Read-only file system")
	if strings.Contains(r.Stderr, "locked") {
		t.Fatalf("a read-only file system called locked:\n%s", r)
	}
	storetest.SameTree(t, before, storetest.TreeOf(t, dir))
}
