package faults

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/diskspace"
	"github.com/ankusa/ankusa-store/pkg/health"
	"github.com/ankusa/ankusa-store/pkg/migration"
)

// dirBytes is the size of the regular files below dir.
func dirBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	for _, f := range storetest.TreeOf(t, dir) {
		n += f.Size
	}
	return n
}

// TestMigrateRefusesWithoutRoom: a store on a file system with less room than the
// migration's estimate is refused before anything is written: exit 3, the numbers, and
// every file of the store as it was (no checkpoint either).
func TestMigrateRefusesWithoutRoom(t *testing.T) {
	base := genStoreV2(t, t.TempDir(), 8000)
	mnt := storetest.MountTmpfs(t, dirBytes(t, base)+2<<20)
	store := copyStore(t, base, filepath.Join(mnt, "store"))
	before := storetest.TreeOf(t, store)

	r := run(t, "migrate", "--dry-run", store)
	// Piped, the plan is TSV (migrate --help): the space row says it is not enough.
	expectOut(t, r, 0, "\nspace\tneeded_bytes=", " enough=false\n")
	r = run(t, "migrate", "--now", migNow, store)
	expect(t, r, 3, "not enough free space for the migration: it needs about", "MiB free; nothing was written", "the file system of "+store)
	if strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 {
		t.Fatalf("want one line on stderr:\n%s", r)
	}
	storetest.SameTree(t, before, storetest.TreeOf(t, store))
	ents, _ := os.ReadDir(mnt)
	if len(ents) != 1 {
		t.Fatalf("the refused run left %v beside the store", ents)
	}
}

// TestMigrateENOSPCMidRun: the disk fills after the preflight passed (the test fills it
// the moment the checkpoint is recorded, with the process stopped). RocksDB returns the
// error: the run must end with exit 3 and "no space left on device", never an abort, and
// leave a store that the same command, once there is room, finishes byte-identical (key
// by key, counters merged) to an uninterrupted run.
func TestMigrateENOSPCMidRun(t *testing.T) {
	t.Run("before the first write", func(t *testing.T) { migrateENOSPC(t, false) })
	t.Run("resuming", func(t *testing.T) { migrateENOSPC(t, true) })
}

// walBytes is the size of the store's WAL files: it grows by every committed step.
func walBytes(dir string) int64 {
	var n int64
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".log") {
			if info, err := e.Info(); err == nil {
				n += info.Size()
			}
		}
	}
	return n
}

// fileSize is the size of path, 0 if it is missing.
func fileSize(path string) int64 {
	info, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return info.Size()
}

// migrateENOSPC fills the disk under a running migration once its preflight has passed.
// Without resume: the moment the checkpoint is recorded, so that the first write fails.
// With resume: the store is first left mid-migration by kill -9 after a few steps; the
// same command is run again and the disk filled as it opens the store read-write (its LOG
// grows: the preflight's read-only opens write nothing), so that the WAL recovery's flush
// fails. RocksDB WAL files are preallocated, so a disk filled under a run already writing
// its WAL does not fail its writes: these are the two points where a full disk meets a
// write that needs new space.
func migrateENOSPC(t *testing.T, resume bool) {
	base := genStoreV2(t, t.TempDir(), 8000)
	want := copyStore(t, base, filepath.Join(t.TempDir(), "uninterrupted"))
	expect(t, run(t, "migrate", "--no-backup", "--now", migNow, want), 0)

	mnt := storetest.MountTmpfs(t, 64<<20)
	store := copyStore(t, base, filepath.Join(mnt, "store"))
	backup := filepath.Join(mnt, "store.pre-v3")
	args := []string{"migrate", "--method", "steps", "--backup", backup, "--now", migNow, store}
	var c *exec.Cmd
	var done chan struct{}
	var res *result
	if resume {
		c, done, res = started(t, args...)
		waitFile(t, c, done, filepath.Join(backup, "ANKUSA-MIGRATION-CHECKPOINT"))
		waitUntil(t, done, func() string { return fmt.Sprintf("the migration ended before the test could kill it: %s", res) },
			func() bool { return walBytes(store) >= 40<<10 })
		c.Process.Kill()
		<-done
		log := fileSize(filepath.Join(store, "LOG"))
		c, done, res = started(t, args...)
		waitUntil(t, done, func() string { return fmt.Sprintf("the rerun ended before it opened the store read-write: %s", res) },
			func() bool { return fileSize(filepath.Join(store, "LOG")) != log })
	} else {
		// Stopped by itself once the checkpoint is taken and marked, before its first write:
		// filled then, on every run, not when a poll happens to see the marker.
		c, done, res = startedStopped(t, migration.PauseEnv+"="+migration.PauseAfterCheckpoint, "after its checkpoint", args...)
		if fileSize(filepath.Join(backup, "ANKUSA-MIGRATION-CHECKPOINT")) == 0 {
			t.Fatal("stopped after the checkpoint, but the checkpoint has no marker")
		}
	}
	free := fillFrozen(t, c, done, mnt)
	expect(t, *res, 3, "no space left on device")
	t.Logf("the run on the full disk: %s", strings.TrimSpace(res.Stderr[strings.LastIndex(res.Stderr, "Error:"):]))
	if !resume {
		expect(t, *res, 3, "the store is untouched (format 2): make room and run the same command again", "checkpoint of the store before migrating: "+backup)
	}
	free()
	if resume {
		expectOut(t, run(t, "migrate", "--dry-run", store), 0, "\nmid_migration\tmid-migration phase=")
	}
	r := run(t, args...)
	expect(t, r, 0)
	if resume {
		expect(t, r, 0, "the checkpoint its first run took is "+backup)
	}
	storetest.AssertSame(t, storetest.Dump(t, want), storetest.Dump(t, store))
	expect(t, run(t, "counters", "verify", store), 0)
}

// TestRepairDiskFull: counters verify --repair --yes with no room for its checkpoint is
// refused before the store is opened (exit 3, the numbers, every file as it was); with
// the disk filled as it opens the store read-write it ends with exit 3 and "no space
// left on device", and once there is room the same command repairs the store.
func TestRepairDiskFull(t *testing.T) {
	src := filepath.Join(storetest.Testdata(), "health", "verify-counters.tar.zst")
	unpack := func(t *testing.T, dst string) string {
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("tar", "--zstd", "-xf", src, "-C", dst).CombinedOutput(); err != nil {
			t.Fatalf("tar: %v\n%s", err, out)
		}
		return dst
	}
	t.Run("preflight", func(t *testing.T) {
		probe := unpack(t, filepath.Join(t.TempDir(), "probe"))
		mnt := storetest.MountTmpfs(t, dirBytes(t, probe)+1<<20)
		store := unpack(t, filepath.Join(mnt, "store"))
		before := storetest.TreeOf(t, store)
		r := run(t, "counters", "verify", "--repair", "--yes", "--backup", filepath.Join(mnt, "cp"), store)
		expect(t, r, 3, "not enough free space for the repair's checkpoint: it needs about", "nothing was written")
		storetest.SameTree(t, before, storetest.TreeOf(t, store))
		if _, err := os.Lstat(filepath.Join(mnt, "cp")); err == nil {
			t.Fatal("a refused repair made its checkpoint")
		}
	})
	// The disk fills right before the checkpoint (the run stops itself there, health.
	// RepairFaultEnv=pause-checkpoint, and the test fills the tmpfs): the checkpoint fails on
	// a real full disk, and the message says nothing was written (before the fix it said
	// "checkpoint: none taken (nothing to write)" and "nothing written: no counter differs
	// from its fold"); the counters differ as before, and with room again the repair runs.
	t.Run("at checkpoint", func(t *testing.T) {
		mnt := storetest.MountTmpfs(t, 64<<20)
		store := unpack(t, filepath.Join(mnt, "store"))
		cp := filepath.Join(mnt, "cp")
		args := []string{"counters", "verify", "--repair", "--yes", "--backup", cp, store}
		c, done, res := startedStopped(t, health.RepairFaultEnv+"="+health.RepairPauseCheckpoint, "before its checkpoint", args...)
		free := storetest.Fill(t, mnt)
		if err := c.Process.Signal(syscall.SIGCONT); err != nil {
			t.Fatal(err)
		}
		<-done
		expect(t, *res, 3, "Error: nothing written: the checkpoint before the write failed, so no operand was written; the store is as it was: ", "no space left on device")
		expectOut(t, *res, 3, "\ncheckpoint\t\t\tnone\t\t\t\t\tnone taken (it failed)\nrepair\t\t\tnothing\t\t\t\t\tnothing written: the checkpoint before the write failed")
		if strings.Contains(res.Stdout, "no counter differs") || strings.Contains(res.Stdout, "wrote ") {
			t.Fatalf("the output does not say what the store holds:\n%s", res)
		}
		t.Logf("%s", strings.TrimSpace(res.Stderr))
		free()
		expectOut(t, run(t, "counters", "verify", store), 1, "\ncounter_mismatch\t1\tacme\tpending\t7\t4\t-3\t")
		// The failed checkpoint left nothing behind: the same command runs as it stands.
		if _, err := os.Lstat(cp); err == nil {
			t.Fatalf("the failed checkpoint left %s", cp)
		}
		expectOut(t, run(t, args...), 0, "\nrepair\t\t\twritten\t")
		expect(t, run(t, "counters", "verify", store), 0)
	})
	t.Run("at open", func(t *testing.T) {
		mnt := storetest.MountTmpfs(t, 64<<20)
		store := unpack(t, filepath.Join(mnt, "store"))
		args := []string{"counters", "verify", "--repair", "--yes", "--backup", filepath.Join(mnt, "cp"), store}
		log := fileSize(filepath.Join(store, "LOG"))
		c, done, res := started(t, args...)
		waitUntil(t, done, func() string { return fmt.Sprintf("the repair ended before it opened the store read-write: %s", res) },
			func() bool { return fileSize(filepath.Join(store, "LOG")) != log })
		free := fillFrozen(t, c, done, mnt)
		free()
		expect(t, *res, 3, "no space left on device")
		t.Logf("%s", strings.TrimSpace(res.Stderr))
		r := run(t, args...)
		// Piped, the repair's result is its TSV rows (counters verify --help).
		expectOut(t, r, 0, "\nrepair\t\t\twritten\t\t\t\t\twrote 2 corrective int_add operands", "\nverdict\t\t\thealthy\t")
		expect(t, run(t, "counters", "verify", store), 0)
	})
}

// TestMigrateRefusesWithoutRoomForItsCheckpoint: a checkpoint beside the store hard-links
// its table files and copies the rest (the WAL, MANIFEST, OPTIONS), and the preflight adds
// that copy to the migration's own estimate. The file system is filled to leave the
// estimate and half the copy free: with the checkpoint the run is refused before anything
// is written (exit 3, nothing beside the store, the store as it was); without one it
// passes the preflight and migrates.
func TestMigrateRefusesWithoutRoomForItsCheckpoint(t *testing.T) {
	base := genStoreV2(t, t.TempDir(), 8000)
	r := run(t, "migrate", "--dry-run", "-o", "json", "--now", migNow, base)
	expect(t, r, 0)
	var dry struct {
		Space struct {
			// The migration's own share: needed_bytes has the checkpoint's in it too.
			Needed int64 `json:"migration_bytes"`
		} `json:"space"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &dry); err != nil || dry.Space.Needed <= 0 {
		t.Fatalf("the dry run's estimate: %v\n%s", err, r)
	}
	// What a checkpoint on the same file system copies: every file but the tables.
	var share int64
	for name, f := range storetest.TreeOf(t, base) {
		if !strings.HasSuffix(name, ".sst") {
			share += f.Size
		}
	}
	if share < 1<<20 {
		t.Fatalf("the store's files besides its tables are %d bytes: too few to tell the checkpoint's share from rounding", share)
	}
	mnt := storetest.MountTmpfs(t, dirBytes(t, base)+dry.Space.Needed+share+16<<20)
	store := copyStore(t, base, filepath.Join(mnt, "store"))
	before := storetest.TreeOf(t, store)
	free, err := diskspace.Free(mnt)
	if err != nil {
		t.Fatal(err)
	}
	leave := dry.Space.Needed + share/2
	filler, err := os.Create(filepath.Join(mnt, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Fallocate(int(filler.Fd()), 0, 0, free-leave); err != nil {
		t.Fatal(err)
	}
	filler.Close()
	if free, _ = diskspace.Free(mnt); free < dry.Space.Needed+share/4 || free > dry.Space.Needed+3*share/4 {
		t.Fatalf("%d bytes free, want about %d (the estimate %d and half the checkpoint's %d)", free, leave, dry.Space.Needed, share)
	}

	r = run(t, "migrate", "--backup", filepath.Join(mnt, "cp"), "--now", migNow, store)
	expect(t, r, 3, "not enough free space for the migration: it needs about", "nothing was written")
	storetest.SameTree(t, before, storetest.TreeOf(t, store))
	if ents, _ := os.ReadDir(mnt); len(ents) != 2 {
		t.Fatalf("the refused run left %v beside the store", ents)
	}
	expect(t, run(t, "migrate", "--no-backup", "--now", migNow, store), 0)
}

// TestMigrateENOSPCFinalFlush is issue 19's fourth case: the disk fills as the migration
// flushes the store at its end, after its last step committed (format 3, complete). The run
// stops itself during that flush, after its first family (migration.PauseEnv), the test fills
// the disk and lets it go on: the next family's flush fails, exit 3, and the message says what
// the store is, finished and at format 3 (before the fix: "the store is untouched (format
// 3)"), with the summary on stdout. With room again the store is the uninterrupted
// migration's, key for key, and verifies.
func TestMigrateENOSPCFinalFlush(t *testing.T) {
	base := genStoreV2(t, t.TempDir(), 20000)
	want := copyStore(t, base, filepath.Join(t.TempDir(), "uninterrupted"))
	expect(t, run(t, "migrate", "--no-backup", "--now", migNow, want), 0)

	mnt := storetest.MountTmpfs(t, 64<<20)
	store := copyStore(t, base, filepath.Join(mnt, "store"))
	backup := filepath.Join(mnt, "store.pre-v3")
	c, done, res := startedStopped(t, migration.PauseEnv+"="+migration.PauseFinalFlush, "in its final flush",
		"migrate", "--method", "steps", "--backup", backup, "--now", migNow, store)
	free := storetest.Fill(t, mnt)
	if err := os.WriteFile(filepath.Join(mnt, "probe"), make([]byte, 8192), 0o644); err == nil {
		t.Fatal("the disk is not full: a probe file was written")
	}
	if err := c.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	<-done
	expect(t, *res, 3, "no space left on device: the migration finished: the store is at format 3 and complete, only the flush at its end failed",
		"nothing needs to run again", "checkpoint of the store before migrating: "+backup)
	if strings.Contains(res.Stderr, "untouched") || strings.Count(res.Stderr, "Error:") != 1 {
		t.Fatalf("the message does not tell the store's state in one error:\n%s", res)
	}
	// The summary is the result, on stdout; piped it is TSV (migrate --help): finished.
	expectOut(t, *res, 3, "\nresult\tfinished=true resumed=false ")
	t.Logf("%s", strings.TrimSpace(res.Stderr[strings.LastIndex(res.Stderr, "Error:"):]))

	free()
	os.Remove(filepath.Join(mnt, "probe"))
	expectOut(t, run(t, "migrate", "--dry-run", store), 0, "\nnothing_to_do\t"+store+"\n")
	storetest.AssertSame(t, storetest.Dump(t, want), storetest.Dump(t, store))
	expect(t, run(t, "counters", "verify", store), 0)
}
