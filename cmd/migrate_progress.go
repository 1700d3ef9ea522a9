package cmd

import (
	"context"

	"github.com/ankusa/ankusa-store/internal/ui/progress"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/migration"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// countLeftAsync counts the keys the migration has left to read beside the work, and gives
// the progress line its total when it knows it: the work does not wait for a count that is
// only for the line (RocksDB's key estimate for the index family is no use: it says 0 for
// many stores).
// The returned stop ends the count and waits for it: call it before the store closes.
func countLeftAsync(ctx context.Context, st *rocks.Store, c format.MigrationCursor, p *progress.Progress) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		left, err := migration.CountLeft(ctx, st, c)
		if err != nil {
			return
		}
		var total int64
		for _, n := range left {
			total += n
		}
		p.SetTotal(total)
	}()
	return func() { cancel(); <-done }
}

// migrateProgress is p for the steps: each phase its own line label ("migrate STORE: phase
// due"), with its own rate and ETA (the phases move rows at different speeds).
func migrateProgress(p *progress.Progress, what string) progress.Reporter {
	return p.Scoped(func(phase string) string { return what + ": phase " + phase }, true)
}
