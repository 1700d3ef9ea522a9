package health

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/ankusa/ankusa-store/internal/reporting"
	"github.com/ankusa/ankusa-store/pkg/checkpoint"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// Repair is beyond the design record: counters that drifted (a bug in an op
// builder, a hand edit) are corrected the only way a counter may change, by
// merge operands. Each mismatched counter gets one int_add of folded minus
// stored; a counter is never overwritten, so a repair composes with any
// operand already in the store and is itself undone by its negation.

// RepairOptions says what Repair repairs.
type RepairOptions struct {
	// Tenant limits the repair to one tenant's counters, resolved
	// (tenant.Resolve); the zero Tenant repairs all, the aggregate included.
	Tenant format.Tenant
	// Checkpoint is the copy of the store taken before anything is written: where it goes
	// (Checkpoint.Dir, which must not exist; required), and the marker it gets once taken
	// and before the write (checkpoint.Policy.Mark, as migration marks its own), so that a
	// run killed before its write leaves a checkpoint that says what it is. A failed mark
	// stops the repair with nothing written.
	Checkpoint checkpoint.Policy
	// Progress is shown both verifies' reads (VerifyOptions.Progress).
	Progress reporting.Reporter
}

// RepairOperand is one corrective merge Repair wrote.
type RepairOperand struct {
	Tenant TenantRef `json:"tenant"`
	Field  string    `json:"field"`
	// Key is the unsharded counter the operand was merged into (for the
	// aggregate, the unsharded key beside its shards).
	Key   KeyRef `json:"key"`
	Delta int64  `json:"delta"`
}

// RepairResult is what Repair did. Before is the verify that decided it;
// After the verify of the repaired store (Before again when nothing was
// written; nil when the batch was written and the verify after it failed
// before it had a report).
type RepairResult struct {
	// Checkpoint is where the store was checkpointed before the write; "" when
	// nothing was written (and so no checkpoint taken).
	Checkpoint string          `json:"checkpoint"`
	Operands   []RepairOperand `json:"operands"`
	// Synced: the operands were written in one synced batch.
	Synced bool    `json:"synced"`
	Before *Report `json:"before"`
	After  *Report `json:"-"`
}

// ErrRepairNeedsWrite: Repair was given a store not opened ReadWrite.
var ErrRepairNeedsWrite = errors.New("repair needs the store opened read-write, exclusively")

// Repair verifies the store and, when counters differ from their folds,
// checkpoints it, writes one corrective int_add per counter mismatch in one
// synced batch, and verifies it again. Nothing is written, not even the
// checkpoint, when there is nothing to correct or the store is corrupt (a
// merge that fails on a bad operand fails whatever is added to it). Other
// findings are left as they are (they are not counters); After still lists
// them. The checkpoint directory must not exist: that is checked before
// anything else.
func Repair(ctx context.Context, st *rocks.Store, o RepairOptions) (*RepairResult, error) {
	if st.Mode() != rocks.ReadWrite {
		return nil, fmt.Errorf("repair: %s is open %v: %w", st.Dir, st.Mode(), ErrRepairNeedsWrite)
	}
	if err := refuseMigrating(st); err != nil {
		return nil, err
	}
	if o.Checkpoint.Dir == "" {
		return nil, errors.New("repair: repair needs a checkpoint directory")
	}
	if _, err := os.Lstat(o.Checkpoint.Dir); err == nil {
		return nil, fmt.Errorf("repair: checkpoint directory %s: %w", o.Checkpoint.Dir, ErrCheckpointExists)
	}
	res := &RepairResult{Operands: []RepairOperand{}}
	vo := VerifyOptions{Tenant: o.Tenant, Progress: o.Progress}
	if err := faultAt(RepairFaultVerifyBefore); err != nil {
		return res, fmt.Errorf("repair: the verify before the write: %w", err)
	}
	before, err := Verify(ctx, st, vo)
	res.Before, res.After = before, before
	if err != nil {
		return res, err
	}
	// A corrupt store never gets here: Verify returns its error with every corrupt report
	// (TestRepairRefuses holds Repair to writing nothing then).
	if len(before.CounterMismatches) == 0 {
		return res, nil
	}
	// The store is ours alone (read-write holds its LOCK): the checkpoint
	// holds exactly what this verify read.
	pauseAt(RepairPauseCheckpoint, st)
	if err := faultAt(RepairFaultCheckpoint); err != nil {
		return res, fmt.Errorf("repair: checkpoint to %s: %w", o.Checkpoint.Dir, err)
	}
	if err := o.Checkpoint.Take(st); err != nil {
		return res, err
	}
	res.Checkpoint = o.Checkpoint.Dir
	if err := o.Checkpoint.Mark(time.Time{}); err != nil {
		return res, fmt.Errorf("repair: marking the checkpoint %s: %w", o.Checkpoint.Dir, err)
	}
	pauseAt(RepairPauseWrite, st)
	b := rocks.NewBatch()
	for _, m := range before.CounterMismatches {
		f, _ := format.FieldByName(m.Field)
		k := format.CounterKeyBytes(m.Tenant.Ord, f)
		b.Merge(format.CFCounters, k, format.EncodeCounterOperand(m.Delta))
		res.Operands = append(res.Operands, RepairOperand{Tenant: m.Tenant, Field: m.Field, Key: m.Key, Delta: m.Delta})
	}
	err = faultAt(RepairFaultWrite)
	if err == nil {
		err = st.Write(b, true)
	}
	if err != nil {
		return res, fmt.Errorf("repair: writing %d corrective operands: %w", b.Count(), err)
	}
	res.Synced = true
	// After is nil until a verify after the write has a report: Before no longer describes
	// the store.
	res.After = nil
	if err := faultAt(RepairFaultVerifyAfter); err != nil {
		return res, fmt.Errorf("repair: the verify after the write: %w", err)
	}
	after, err := Verify(ctx, st, vo)
	res.After = after
	return res, err
}

// ErrCheckpointExists: the repair's checkpoint directory is already there.
var ErrCheckpointExists = errors.New("exists")
