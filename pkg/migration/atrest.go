package migration

import (
	"context"
	"errors"
	"fmt"

	"github.com/ankusa/ankusa-store/internal/reporting"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// flushAtRest flushes every family once the migration has finished, so that the store the
// node opens next holds everything in table files and its WAL holds nothing to replay. The
// steps are synced batches, so the rows are safe without it; what it saves is the next
// open's replay: a family written rarely keeps every WAL file alive until it flushes, and a
// migrated store was left with up to 1 GB of WAL (issue 11) that every read-only command and
// the node's first boot replayed into memory before answering.
func flushAtRest(st *rocks.Store) error {
	for i, cf := range st.Families() {
		if err := st.Flush(cf); err != nil {
			return fmt.Errorf("migration: finished, but flushing the store at the end failed (the next open replays the WAL): %w", err)
		}
		if i == 0 {
			pauseAt(PauseFinalFlush, st)
		}
	}
	return nil
}

// settleAtRest compacts what the migration left in L0 down to the node's own trigger
// (rocks.Settle), once the store is flushed. The migration runs with a trigger of a dozen files
// so that compaction keeps up with its steps, and left at that a 10^8-row store kept 12 L0
// tables in the index family and 18 in counters: every seek of every view after the migration
// (tenants ls's walk of the due rows, one seek a tenant, above all) merged them all, until the
// node got round to them. A signal during the wait ends it and is not an error: the
// migration is finished, and the node's RocksDB compacts the rest itself.
func settleAtRest(ctx context.Context, st *rocks.Store, p reporting.Reporter) error {
	reporting.Or(p).Phase("settle")
	err := st.Settle(ctx)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("migration: finished and flushed, but compacting its L0 tables failed: %w", err)
	}
	return nil
}
