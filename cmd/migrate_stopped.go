package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/ankusa/ankusa-store/pkg/migration"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// migrateStopped says, for a run that stopped on err, what state it left the
// store in and what to do: untouched, mid-migration at a phase and resumable
// by the same command, or finished (its flush at the end failed), and where the
// checkpoint is. state is the store's, read after the failure where anything
// could have been written. method is the method that ran ("" when none had begun): a bulk
// run's store has two states only, as it was before the commit and migrated after it, and
// the words say which, since what a bulk run left before its commit is more than untouched
// (the new families, empty) and less than begun (nothing to resume).
func migrateStopped(err error, state migration.State, steps int, backup string, method string) error {
	where := "the store is untouched (format " + fmt.Sprint(state.Format) + ")"
	again := "run the same command again"
	switch {
	case method == methodBulk && state.Done():
		where = fmt.Sprintf("the store is migrated (format %d, complete: the bulk commit went through); what failed came after it, the flush or the compaction of level 0", state.Format)
		again = "nothing needs to run again"
	case method == methodBulk && !state.Migrating:
		where = "nothing was changed: the store is as it was (a new empty family at most)"
	case state.Migrating:
		where = fmt.Sprintf("the store is mid-migration (phase %s, %d %s committed by this run)",
			migration.Phase(state.Cursor.Phase), steps, map[bool]string{true: "step", false: "steps"}[steps == 1])
		again = "run the same command again to resume"
	case state.Done():
		// Only a run that finished gets here with format 3 (one that found it there has
		// nothing to do): what failed came after the last step, the flush at the end.
		where = fmt.Sprintf("the migration finished: the store is at format %d and complete, only the flush at its end failed (the next open replays its WAL)", state.Format)
		again = "nothing needs to run again"
	}
	cp := ""
	if backup != "" {
		if _, serr := os.Stat(backup); serr == nil {
			cp = "; checkpoint of the store before migrating: " + backup
		}
	}
	switch {
	case errors.Is(err, context.Canceled):
		return interrupted("%s; %s%s", where, again, cp)
	case state.Done() && (errors.Is(err, rocks.ErrNoSpace) || errors.Is(err, syscall.ENOSPC)):
		return fmt.Errorf("%w: %s: make room before the node starts; %s%s [%s]", rocks.ErrNoSpace, where, again, cp, rocksCause(err))
	case errors.Is(err, rocks.ErrNoSpace), errors.Is(err, syscall.ENOSPC):
		// RocksDB's status, or the file system's own ENOSPC (the checkpoint's mark file).
		return fmt.Errorf("%w: %s: make room and %s%s (%v)", rocks.ErrNoSpace, where, again, cp, err)
	case state.Migrating:
		return fmt.Errorf("%s: %s once this is fixed%s: %w", where, again, cp, err)
	case state.Done():
		return fmt.Errorf("%s; %s%s: %w", where, again, cp, err)
	case method == methodBulk:
		return fmt.Errorf("%s; %s once this is fixed%s: %w", where, again, cp, err)
	}
	return err
}

// rocksCause is RocksDB's own text of err when it has one, else err's: for a message that
// has said what it means already.
func rocksCause(err error) string {
	var se *rocks.StatusError
	if errors.As(err, &se) {
		return "RocksDB: " + se.Status.Msg
	}
	return err.Error()
}
