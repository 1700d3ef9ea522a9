package cmd

import (
	"context"
	"errors"

	"github.com/ankusa/ankusa-store/pkg/diskspace"
	"github.com/ankusa/ankusa-store/pkg/migration"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// migrateSpace refuses a run the file system has no room for, before anything
// is written: the migration's estimate plus the checkpoint's share
// (migration.NeedSpace, the figure status and --dry-run print).
// st is the store open read-only.
func migrateSpace(ctx context.Context, st *rocks.Store, store, backup string, state migration.State) error {
	est, err := migration.EstimateSpace(ctx, st, state.Cursor)
	if err != nil {
		return migrateStopped(err, state, 0, "", false)
	}
	need, err := migration.NeedSpace(est, store, backup)
	if err != nil {
		return err
	}
	if err := need.Check(); err != nil {
		if errors.Is(err, diskspace.ErrShort) {
			return &ExitError{Code: ExitStore, Err: err}
		}
		return err
	}
	return nil
}
