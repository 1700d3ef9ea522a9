package cmd

import (
	"context"
	"sync"

	"github.com/ankusa/ankusa-store/internal/reporting"
	"github.com/ankusa/ankusa-store/internal/ui/progress"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/migration"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// countLeftAsync counts the keys the migration has left to read beside the work, and gives
// the progress line its total when it knows it: the work does not wait for a count that is
// only for the line (RocksDB's key estimate for the index family is no use: it says 0 for
// many stores).
// setTotal gives the line its total (a bulk run's only while it reads rows).
// The returned stop ends the count and waits for it: call it before the store closes.
func countLeftAsync(ctx context.Context, st *rocks.Store, c format.MigrationCursor, setTotal func(int64)) (stop func()) {
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
		setTotal(total)
	}()
	return func() { cancel(); <-done }
}

// migrateProgress is p for the steps: each phase its own line label ("migrate STORE: phase
// due"), with its own rate and ETA (the phases move rows at different speeds).
func migrateProgress(p *progress.Progress, what string) reporting.Reporter {
	return p.Scoped(func(phase string) string { return what + ": phase " + phase }, true)
}

// bulkStages is p for the bulk method: each stage its own line label ("migrate STORE:
// write"), unit, total, rate and ETA (migration.Stager); the reads' phases labelled as
// the steps' are ("migrate STORE: read: phase due"), counting rows.
type bulkStages struct {
	p    *progress.Progress
	what string
	mu   sync.Mutex
	// read: the phases told are the reads' (before the first stage, the key pass's; in the
	// read stage, the steps' phases), shown on the stage's own count; after the reads, a
	// phase is a step of no count of its own.
	read bool
	// quiet: a stage's start and end are shown at the line's own pace, not at once (a dry
	// run's: its stages are a rehearsal's, not the record of a run).
	quiet bool
}

func migrateBulkProgress(p *progress.Progress, what string) *bulkStages {
	return &bulkStages{p: p, what: what, read: true}
}

// dryBulkProgress is migrateBulkProgress for a dry run of the bulk method: its join and read
// stages, each on the line as its steps' phases are, the line shown at its own pace.
func dryBulkProgress(p *progress.Progress, what string) *bulkStages {
	return &bulkStages{p: p, what: what, read: true, quiet: true}
}

func (b *bulkStages) Add(n int64)          { b.p.Add(n) }
func (b *bulkStages) SetTotal(total int64) { b.p.SetTotal(total) }

// Phase is a read stage's phase; after the reads, a step of no count of its own (the
// settle after the ingest), shown as a stage is.
func (b *bulkStages) Phase(name string) {
	b.mu.Lock()
	read := b.read
	b.mu.Unlock()
	if !read {
		b.Stage(name, "", 0)
		return
	}
	b.p.Phase(b.what + ": " + name)
}

// Stage shows the stage that ended as it ended (its count, rate) and the next one as it
// starts, at once: a stage can be shorter than a log's interval, and its line is the record
// of what it did.
func (b *bulkStages) Stage(name, unit string, total int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.read = name == migration.StageRead
	if b.quiet {
		b.p.Stage(b.what+": "+name, unit, total)
		return
	}
	b.p.Show()
	b.p.Stage(b.what+": "+name, unit, total)
	b.p.Show()
}
