package faults

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
)

// TestBackupRerunResumes is the runbook's crash instruction: kill -9 mid-migration with
// --backup, then the same command again resumes (recognising the checkpoint it took, and
// naming it), finishes, and equals an uninterrupted run. A directory at --backup that is
// not that checkpoint is refused with exit 2, nothing written.
func TestBackupRerunResumes(t *testing.T) {
	base := genStoreV2(t, t.TempDir(), 8000)
	want := copyStore(t, base, filepath.Join(t.TempDir(), "uninterrupted"))
	expect(t, run(t, "migrate", "--no-backup", "--now", migNow, want), 0)

	dir := t.TempDir()
	store := copyStore(t, base, filepath.Join(dir, "store"))
	backup := filepath.Join(dir, "store.pre-v3")
	// The steps' run, killed mid-way (auto would run bulk, which leaves no WAL to wait for).
	args := []string{"migrate", "--method", "steps", "--backup", backup, "--now", migNow, store}
	c, done, res := started(t, args...)
	waitFile(t, c, done, filepath.Join(backup, "ANKUSA-MIGRATION-CHECKPOINT"))
	waitUntil(t, done, func() string { return fmt.Sprintf("the migration ended before the test could kill it: %s", res) },
		func() bool { return walBytes(store) >= 40<<10 })
	c.Process.Kill()
	<-done
	expectOut(t, run(t, "migrate", "--dry-run", store), 0, "\nmid_migration\tmid-migration phase=") // piped: TSV

	// Someone else's directory at --backup: refused before anything is touched.
	foreign := filepath.Join(dir, "foreign")
	if err := os.MkdirAll(foreign, 0o755); err != nil {
		t.Fatal(err)
	}
	before, beforeForeign := storetest.TreeOf(t, store), storetest.TreeOf(t, foreign)
	expect(t, run(t, "migrate", "--backup", foreign, "--now", migNow, store), 2, "is not a checkpoint migrate took")
	storetest.SameTree(t, before, storetest.TreeOf(t, store))
	storetest.SameTree(t, beforeForeign, storetest.TreeOf(t, foreign))
	// The checkpoint of another store is refused too.
	other := copyStore(t, base, filepath.Join(dir, "other"))
	before = storetest.TreeOf(t, other)
	expect(t, run(t, "migrate", "--backup", backup, "--now", migNow, other), 2, "is the checkpoint of another store")
	storetest.SameTree(t, before, storetest.TreeOf(t, other))

	r := run(t, args...)
	expect(t, r, 0, "resuming the migration started at 2026-11-30T10:00:00Z; the checkpoint its first run took is "+backup)
	storetest.AssertSame(t, storetest.Dump(t, want), storetest.Dump(t, store))
	// The checkpoint is the store as it was: format 2, as the base.
	storetest.AssertSame(t, storetest.Dump(t, base), storetest.Dump(t, backup))
}
