package migration

import (
	"fmt"

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
