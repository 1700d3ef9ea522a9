package cmd

import (
	"context"
	"errors"

	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/pkg/diskspace"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/migration"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// migrateSpace refuses a run the file system has no room for, before anything
// is written: the migration's estimate plus the checkpoint's share
// (migration.NeedSpace, the figure status and --dry-run print).
// st is the store open read-only; method the method that will run, whose need it is. The
// estimate is returned too: the rows left it counted (SpaceEstimate.RowsLeft) or, for the
// bulk method, bounded (SpaceEstimate.RowsBound), the progress line's first total.
func migrateSpace(ctx context.Context, st *rocks.Store, store, backup string, state migration.State, method string) (migration.SpaceEstimate, error) {
	est, err := methodSpace(ctx, st, state.Cursor, method)
	if err != nil {
		return est, migrateStopped(err, state, 0, "", "")
	}
	need, err := migration.NeedSpace(est, store, backup)
	if err != nil {
		return est, err
	}
	if err := need.Check(); err != nil {
		if errors.Is(err, diskspace.ErrShort) {
			return est, &exitcode.Error{Code: exitcode.Store, Err: err}
		}
		return est, err
	}
	return est, nil
}

// methodSpace is the estimate of method's need from cursor c: the steps' from a count of
// the rows left (EstimateSpace), or the bulk method's (EstimateBulkSpace: from the start,
// the only place it starts), which counts only when its bound is not close. Its dry run and
// status work out the same figure from the count they make anyway (migration.BulkSpace).
func methodSpace(ctx context.Context, st *rocks.Store, c format.MigrationCursor, method string) (migration.SpaceEstimate, error) {
	if method == methodBulk {
		return migration.EstimateBulkSpace(ctx, st)
	}
	return migration.EstimateSpace(ctx, st, c)
}

// methodDuration is how long method would take over rows, and the rate it assumes.
func methodDuration(rows int64, method string) (ms, rate int64) {
	if method == methodBulk {
		return migration.EstimateBulk(rows).Milliseconds(), migration.EstimatedBulkRowsPerSec
	}
	return int64(float64(rows) / migration.EstimatedRowsPerSec * 1000), migration.EstimatedRowsPerSec
}
