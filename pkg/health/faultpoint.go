package health

import (
	"fmt"
	"syscall"

	"github.com/ankusa/ankusa-store/internal/pausepoint"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// RepairFaultEnv names the environment variable that makes a repair fail at one named step
// as RocksDB fails there (a full disk under the checkpoint or the corrective write, a read
// error in the verify after it), so that the tests see on every run each state a failed
// repair can leave and what the command says about it; a real full disk lands in the right
// step once in many runs (internal/faults fills one for the checkpoint's room, before the
// store is opened). Nothing else reads it; unset or unknown, it does nothing. The points:
//
//   - RepairFaultVerifyBefore ("verify-before"): the verify that decides the repair fails
//     with a read error before it has a report; nothing is written;
//   - RepairFaultCheckpoint ("checkpoint"): the checkpoint fails (no space); nothing is
//     written;
//   - RepairFaultWrite ("write"): the checkpoint is taken, the corrective batch's write
//     fails (no space) before any of it reaches the store;
//   - RepairFaultVerifyAfter ("verify-after"): the batch is written and synced, and the
//     verify after it fails with a read error before it has a report;
//   - RepairPauseCheckpoint ("pause-checkpoint"): no failure, a stop: right before the
//     checkpoint, once the store has no flush or compaction left, the process stops itself
//     (SIGSTOP to its own thread, internal/pausepoint, as migration.PauseEnv's points do) and goes on with
//     SIGCONT, so that internal/faults fills a real disk there and the checkpoint meets it
//     full (TestRepairDiskFull).
//   - RepairPauseWrite ("pause-write"): no failure, a stop: the checkpoint is taken and
//     marked (RepairOptions.Checkpoint, checkpoint.Policy.Mark), nothing is written yet;
//     so that internal/faults kills the run there with SIGKILL and finds the checkpoint
//     marked and recorded (TestRepairKilledBeforeWrite).
const RepairFaultEnv = "ANKUSA_STORE_REPAIR_FAULT"

const (
	RepairFaultVerifyBefore = "verify-before"
	RepairFaultCheckpoint   = "checkpoint"
	RepairFaultWrite        = "write"
	RepairFaultVerifyAfter  = "verify-after"
	RepairPauseCheckpoint   = "pause-checkpoint"
	RepairPauseWrite        = "pause-write"
)

// repairPoints is read through internal/pausepoint like every test's point, though four of
// them are faults, not stops: a fault is an error this package makes as RocksDB would
// (noSpace, EIO), so it is health's to say; the variable, its one reading and the two stops
// are the mechanism every crash test shares. One variable for both, as the testscript
// verify_repair_faults and the fault suite set it.
var repairPoints = pausepoint.FromEnv(RepairFaultEnv)

// faultAt is the error the point asks for at step name, nil when it names another.
func faultAt(name string) error {
	if !repairPoints.Named(name) {
		return nil
	}
	cause := error(syscall.ENOSPC)
	if name == RepairFaultVerifyAfter || name == RepairFaultVerifyBefore {
		cause = syscall.EIO
	}
	what := map[string]string{
		RepairFaultCheckpoint:   "checkpoint",
		RepairFaultWrite:        "write",
		RepairFaultVerifyAfter:  "read",
		RepairFaultVerifyBefore: "read",
	}[name]
	if cause == syscall.ENOSPC {
		cause = noSpace{}
	}
	return fmt.Errorf("%s failed (%s=%s): %w", what, RepairFaultEnv, name, cause)
}

// pauseAt stops the process if the point is name (see RepairPauseCheckpoint, RepairPauseWrite).
func pauseAt(name string, st *rocks.Store) {
	repairPoints.StopIdle(name, st)
}

// noSpace is a full disk as pkg/rocks reports RocksDB's NoSpace status: rocks.ErrNoSpace,
// and ENOSPC beneath it (exit 3, class no_space).
type noSpace struct{}

func (noSpace) Error() string { return "no space left on device" }

func (noSpace) Is(target error) bool { return target == rocks.ErrNoSpace || target == syscall.ENOSPC }
