package health

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/checkpoint"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

func vtArchiveDir(t *testing.T, name string) string {
	t.Helper()
	return storetest.Extract(t, "health/"+name+".tar.zst")
}

// A repair merges folded - stored into each drifted counter, in one batch,
// after a checkpoint; the store is then healthy, and the checkpoint is the
// store as it was.
func TestRepair(t *testing.T) {
	dir := vtArchiveDir(t, "verify-counters")
	cp := filepath.Join(t.TempDir(), "cp")
	st := vtOpen(t, dir, rocks.ReadWrite)
	res, err := Repair(context.Background(), st, RepairOptions{Checkpoint: checkpoint.RepairPolicy(dir, cp, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Synced || len(res.Operands) != 2 || res.Before.Healthy || !res.After.Healthy {
		t.Fatalf("repair: %+v\nbefore %s\nafter %s", res, res.Before.Summary(), res.After.Summary())
	}
	for i, m := range res.Before.CounterMismatches {
		op := res.Operands[i]
		if op.Delta != m.Folded-m.Stored || op.Key != m.Key || op.Tenant.Ord != m.Tenant.Ord {
			t.Errorf("operand %+v for mismatch %+v", op, m)
		}
	}
	// Merges, not overwrites: the aggregate's shard keeps its operand, the
	// unsharded key gets the correction.
	v, ok, err := st.Get(format.CFCounters, format.CounterKey{Ord: 0, Field: format.FieldBytes, Shard: 7}.Encode())
	if n, _ := format.DecodeCounterValue(v); err != nil || !ok || n != -40 {
		t.Errorf("shard 7 of bytes: %d %v %v", n, ok, err)
	}
	st.Close()
	vtHealthy(t, dir)
	old, err := vtVerify(t, cp, VerifyOptions{})
	if err != nil || len(old.CounterMismatches) != 2 {
		t.Fatalf("the checkpoint: %v %s", err, old.Summary())
	}

	// Nothing left to repair: nothing written, not even a checkpoint.
	st = vtOpen(t, dir, rocks.ReadWrite)
	cp2 := filepath.Join(t.TempDir(), "cp2")
	res, err = Repair(context.Background(), st, RepairOptions{Checkpoint: checkpoint.RepairPolicy(dir, cp2, nil)})
	if err != nil || res.Synced || len(res.Operands) != 0 || res.After != res.Before || res.Checkpoint != "" {
		t.Fatalf("second repair: %v %+v", err, res)
	}
	if _, err := os.Lstat(cp2); err == nil {
		t.Errorf("a repair that wrote nothing took a checkpoint")
	}
}

// One tenant's repair leaves the others, and the aggregate, alone.
func TestRepairOneTenant(t *testing.T) {
	dir := vtArchiveDir(t, "verify-counters")
	st := vtOpen(t, dir, rocks.ReadWrite)
	res, err := Repair(context.Background(), st, RepairOptions{Tenant: vtTenant(t, st, "acme"), Checkpoint: checkpoint.RepairPolicy(dir, filepath.Join(t.TempDir(), "cp"), nil)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Operands) != 1 || res.Operands[0].Tenant.Ord != vtOrd(t, st, "acme") || !res.After.Healthy {
		t.Fatalf("repair of acme: %+v", res.Operands)
	}
	rep, err := Verify(context.Background(), st, VerifyOptions{})
	if err != nil || len(rep.CounterMismatches) != 1 || rep.CounterMismatches[0].Tenant.Ord != 0 {
		t.Fatalf("after repairing acme: %v\n%s", err, vtDump(rep))
	}
}

// A repair needs the store to itself, and writes nothing to a corrupt one.
func TestRepairRefuses(t *testing.T) {
	dir := vtArchiveDir(t, "verify-counters")
	ro := vtOpen(t, dir, rocks.ReadOnly)
	if _, err := Repair(context.Background(), ro, RepairOptions{Checkpoint: checkpoint.RepairPolicy(dir, filepath.Join(t.TempDir(), "cp"), nil)}); !errors.Is(err, ErrRepairNeedsWrite) {
		t.Errorf("read-only: %v", err)
	}
	ro.Close()

	bad := vtArchiveDir(t, "verify-bad-operand")
	st := vtOpen(t, bad, rocks.ReadWrite)
	cp := filepath.Join(t.TempDir(), "cp")
	res, err := Repair(context.Background(), st, RepairOptions{Checkpoint: checkpoint.RepairPolicy(dir, cp, nil)})
	if !errors.Is(err, rocks.ErrCorrupt) || res == nil || res.Synced || len(res.Operands) != 0 || res.Before.Verdict != VerdictCorrupt {
		t.Fatalf("corrupt store: %v %+v", err, res)
	}
	if _, err := os.Lstat(cp); err == nil || res.Checkpoint != "" {
		t.Errorf("a repair of a corrupt store, which writes nothing, took a checkpoint")
	}
	st.Close()
	// It still fails on the same key: no operand was added.
	rep, err := vtVerify(t, bad, VerifyOptions{})
	if !errors.Is(err, rocks.ErrCorrupt) || len(rep.Corruption) != 1 {
		t.Fatalf("after a refused repair: %v", err)
	}

	st = vtOpen(t, dir, rocks.ReadWrite)
	if _, err := Repair(context.Background(), st, RepairOptions{}); err == nil {
		t.Error("a repair without a checkpoint directory ran")
	}
	mid := filepath.Join(t.TempDir(), "exists")
	if err := os.MkdirAll(mid, 0o755); err != nil {
		t.Fatal(err)
	}
	if res, err := Repair(context.Background(), st, RepairOptions{Checkpoint: checkpoint.RepairPolicy(dir, mid, nil)}); err == nil || res != nil {
		t.Errorf("a checkpoint into an existing directory: %v", err)
	}
}
