package migration

import (
	"context"
	"time"

	"github.com/ankusa/ankusa-store/internal/pausepoint"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// PauseEnv names the environment variable that makes a migration stop its own process
// (SIGSTOP, as a debugger's breakpoint would: internal/pausepoint) at one named point, so that the fault suite
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
//   - The bulk method's stage boundaries (RunBulk), where internal/faults kills it, fills its
//     disk and sends it SIGTERM on every run, where a random instant may miss a short
//     stage: PauseBulkStaged ("bulk-staged": the staging directory made, nothing read),
//     PauseBulkSorted ("bulk-sorted": every source row read and its writes kept in sorted
//     runs, the new families not created), PauseBulkWritten ("bulk-written": the table
//     files finished in the staging, not ingested), PauseBulkIngested ("bulk-ingested": the
//     one ingest done, the store migrated, its flush and settle to come).
const PauseEnv = "ANKUSA_STORE_MIGRATE_PAUSE"

const (
	PauseFinalFlush      = "final-flush"
	PauseAfterCheckpoint = "after-checkpoint"
	PauseAfterStep       = "after-step"

	PauseBulkStaged   = "bulk-staged"
	PauseBulkSorted   = "bulk-sorted"
	PauseBulkWritten  = "bulk-written"
	PauseBulkIngested = "bulk-ingested"
)

// BulkPauses are the bulk method's points, in the order a run reaches them.
var BulkPauses = []string{PauseBulkStaged, PauseBulkSorted, PauseBulkWritten, PauseBulkIngested}

var pauses = pausepoint.FromEnv(PauseEnv)

// pauseSettle is how long a run let go on from a bulk point waits for a signal the test sent
// while it was stopped: the kernel delivers it as the process continues, but main's goroutine
// cancels the context on its own schedule, and the run, let go on, would race past the check
// that follows the point (a SIGINT sent at bulk-written was seen only after the ingest, one
// run in several). Only a run with PauseEnv set ever waits.
const pauseSettle = time.Second

// pauseAt stops the process if the point is name, once st has no flush or compaction left
// to run (one finishing after the stop would delete its inputs and free space under a full
// disk); it goes on when it is sent SIGCONT.
func pauseAt(name string, st *rocks.Store) {
	pauses.StopIdle(name, st)
}

// pauseAtCtx is pauseAt for a point that a signal is sent at: after it goes on, it waits
// for ctx to be cancelled, pauseSettle at most.
func pauseAtCtx(ctx context.Context, name string, st *rocks.Store) {
	if pauses.Named(name) {
		pauseAt(name, st)
		select {
		case <-ctx.Done():
		case <-time.After(pauseSettle):
		}
	}
}
