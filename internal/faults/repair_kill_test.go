package faults

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/checkpoint"
	"github.com/ankusa/ankusa-store/pkg/health"
)

// TestRepairKilledBeforeWrite: counters verify --repair marks its checkpoint before it writes,
// as migrate does. Killed with SIGKILL between the checkpoint and the corrective write (the
// run stops itself there, health.RepairFaultEnv=pause-write), it leaves a checkpoint whose
// marker names the store, in the store's record, that checkpoints ls lists as the repair's
// (before, the marker was written only once the repair had returned: the killed run left an
// unmarked directory); nothing was written, and the same command then repairs the store.
func TestRepairKilledBeforeWrite(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	if err := os.MkdirAll(store, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(storetest.Testdata(), "health", "verify-counters.tar.zst")
	if out, err := exec.Command("tar", "--zstd", "-xf", src, "-C", store).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	cp := filepath.Join(dir, "cp")
	args := []string{"counters", "verify", "--repair", "--yes", "--checkpoint", cp, store}
	c, done, res := startedStopped(t, health.RepairFaultEnv+"="+health.RepairPauseWrite, "before its write", args...)
	if err := c.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-done
	if !res.Signaled {
		t.Fatalf("the run was not killed: %s", res)
	}

	b, err := os.ReadFile(filepath.Join(cp, checkpoint.RepairMark))
	if err != nil {
		t.Fatalf("the killed repair left its checkpoint unmarked: %v", err)
	}
	var m checkpoint.Marker
	if err := json.Unmarshal(b, &m); err != nil || m.Store != store || m.TakenAtMS == 0 {
		t.Fatalf("the checkpoint's marker is %q (%v); want one naming %s", b, err, store)
	}
	recorded := false
	for _, l := range checkpoint.ReadRecord(store) {
		recorded = recorded || l.Path == cp && l.TakenBy == checkpoint.ByRepair
	}
	if !recorded {
		t.Fatalf("the store's record does not hold the checkpoint: %+v", checkpoint.ReadRecord(store))
	}
	expectOut(t, run(t, "checkpoints", "ls", store), 0, cp+"\tcounters verify --repair\t")
	// Nothing was written: the counters differ as before, and the repair runs again.
	expectOut(t, run(t, "counters", "verify", store), 1, "\ncounter_mismatch\t1\tacme\tpending\t7\t4\t-3\t")
	expectOut(t, run(t, "counters", "verify", "--repair", "--yes", "--checkpoint", filepath.Join(dir, "cp2"), store), 0, "\nrepair\t\t\twritten\t")
	expect(t, run(t, "counters", "verify", store), 0)
}

// A repair whose checkpoint cannot be marked writes nothing: a symlink planted in place of the
// store's record (ANKUSA-CHECKPOINTS -> a victim) is refused, not written through, and the
// corrective batch is not written (before, the repair was written and the failed marking
// was a warning after it). The victim is as it was, and the counters differ as before.
func TestRepairUnmarkedWritesNothing(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	if err := os.MkdirAll(store, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(storetest.Testdata(), "health", "verify-counters.tar.zst")
	if out, err := exec.Command("tar", "--zstd", "-xf", src, "-C", store).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(store, checkpoint.RecordFile)); err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(dir, "cp")
	r := run(t, "counters", "verify", "--repair", "--yes", "--checkpoint", cp, store)
	expect(t, r, 3, "nothing written: the checkpoint "+cp+" was taken but could not be marked as this repair's, so no operand was written; the store is as it was")
	expectOut(t, r, 3, "\nrepair\t\t\tnothing\t")
	if b, _ := os.ReadFile(victim); string(b) != "keep\n" {
		t.Fatalf("the victim was written through the planted link: %q", b)
	}
	expectOut(t, run(t, "counters", "verify", store), 1, "\ncounter_mismatch\t1\tacme\tpending\t7\t4\t-3\t")
}
