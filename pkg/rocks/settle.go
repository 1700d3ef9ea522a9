package rocks

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/linxGnu/grocksdb"
)

// NodeL0CompactionTrigger is RocksDB's default level0_file_num_compaction_trigger, which the
// node runs with: the most L0 files a family keeps before compacting them into L1.
const NodeL0CompactionTrigger = 4

// settlePoll is how long one wait for the compactions lasts before Settle looks at its
// context again: RocksDB's wait cannot be cancelled, only timed out.
const settlePoll = time.Second

// Settle gives every family the node's L0 trigger again (a bulk writer opens with a higher one,
// Tuning.L0CompactionTrigger, so that compaction keeps up with it) and waits until the
// compactions that trigger starts are done. A store left with the writer's trigger keeps a
// dozen or more L0 files per family, each one more table that every seek of every reader
// merges, until the node's own RocksDB gets round to them; settled, it is in the shape the
// node keeps it in. Settle writes nothing but compactions, which RocksDB makes atomic, so a
// kill at any moment leaves the store as it was or settled further; ctx ends the wait (the
// compactions then started finish in the background until Close).
func (d *DB) Settle(ctx context.Context) error {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.mode != ReadWrite {
		return ErrReadOnly
	}
	trigger := strconv.Itoa(NodeL0CompactionTrigger)
	before := d.backgroundErrors()
	for _, name := range d.names {
		f, err := d.cf(name)
		if err != nil {
			return err
		}
		if err := d.db.SetOptionsCF(f.h, []string{"level0_file_num_compaction_trigger"}, []string{trigger}); err != nil {
			return fmt.Errorf("rocks: settle %s: %w", name, d.wrapStatus(err))
		}
	}
	wo := grocksdb.NewWaitForCompactOptions()
	defer wo.Destroy()
	wo.SetTimeout(uint64(settlePoll / time.Microsecond))
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := d.db.WaitForCompact(wo)
		if err == nil {
			break
		}
		if st := ParseStatus(err.Error()); st.Code != CodeTimedOut {
			return fmt.Errorf("rocks: settle: waiting for compactions: %w", d.wrapStatus(err))
		}
	}
	if err := d.checkBackground("every family", before); err != nil {
		return errors.Join(errors.New("rocks: settle"), err)
	}
	return nil
}
