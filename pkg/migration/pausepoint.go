package migration

import (
	"os"

	"github.com/ankusa/ankusa-store/internal/selfstop"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// PauseEnv names the environment variable that makes a migration stop its own process
// (SIGSTOP, as a debugger's breakpoint would) at one named point, so that the fault suite
// changes the world under it there on every run (internal/faults fills the disk right before
// the flush at the end, TestMigrateENOSPCFinalFlush) and lets it go on with SIGCONT, where a
// fill at a moment a clock picks lands in the right few milliseconds once in many runs.
// Nothing but tests and bench/interrupted_bench.sh sets it; unset or unknown, it does
// nothing. The points:
//
//   - PauseFinalFlush ("final-flush"): the migration finished (its last step committed,
//     m:format 3) and flushAtRest flushed its first family, the others still to flush. Not
//     before the first: that flush switches the WAL, and closing the old WAL file gives back
//     the space RocksDB preallocated for it (up to 1.1 write buffers), which would let the
//     flushes after it through a disk the test had just filled.
//   - PauseAfterCheckpoint ("after-checkpoint"): the --backup checkpoint is taken and marked
//     (and recorded in the store's checkpoint list), nothing of the migration written yet:
//     the next write that needs new space is the migration's first (TestMigrateENOSPCMidRun,
//     which filled the disk when the marker appeared, and lost the race on a loaded machine
//     once the process had gone on into writes RocksDB had preallocated room for).
//   - PauseAfterStep ("after-step"): the run's first step is committed and synced, the
//     next not begun and the migration not finished: a signal sent there lands mid-migration
//     however fast the machine is (cmd's TestMigrateSecondInterruptNamesTheCheckpoint, which
//     raced a small migration to its end with SIGTERM and lost on a loaded machine).
const PauseEnv = "ANKUSA_STORE_MIGRATE_PAUSE"

const (
	PauseFinalFlush      = "final-flush"
	PauseAfterCheckpoint = "after-checkpoint"
	PauseAfterStep       = "after-step"
)

var pausePoint = os.Getenv(PauseEnv)

// pauseAt stops the process if the point is name, once st has no flush or compaction left
// to run (one finishing after the stop would delete its inputs and free space under a full
// disk); it goes on when it is sent SIGCONT.
func pauseAt(name string, st *rocks.Store) {
	if pausePoint != "" && pausePoint == name {
		_ = st.WaitIdle()
		selfstop.Here()
	}
}
