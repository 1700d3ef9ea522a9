package exitcode

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/checkpoint"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// Every error a command returns maps to the status and class scripts branch on, wrapped
// as the commands wrap them (fmt.Errorf with %w): by the sentinels pkg/rocks classifies
// from RocksDB's status codes, never by words.
func TestOfAndClass(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("open /var/lib/ankusa/store: %w", err) }
	for _, tc := range []struct {
		name  string
		err   error
		code  int
		class string
	}{
		{"usage", Usagef("--limit must be positive, not %d", -1), Usage, "usage"},
		{"findings", &Error{Code: Findings, Err: errors.New("3 findings")}, Findings, "findings"},
		{"locked", wrap(rocks.ErrLocked), Locked, "locked"},
		{"no space", wrap(rocks.ErrNoSpace), Store, "store"},
		{"ENOSPC", wrap(syscall.ENOSPC), Store, "no_space"},
		{"corruption", wrap(rocks.ErrCorrupt), Store, "corruption"},
		{"not a store", wrap(rocks.ErrNotStore), Store, "not_a_store"},
		{"newer format", wrap(rocks.ErrNewerFormat), Store, "newer_format"},
		{"unknown family", wrap(rocks.ErrUnknownFamily), Store, "newer_format"},
		{"newer table", wrap(rocks.ErrNewerTable), Store, "newer_table_format"},
		{"mid-migration", wrap(rocks.ErrMidMigration), Store, "mid_migration"},
		{"interrupted", wrap(context.Canceled), Interrupted, "interrupted"},
		{"anything else", errors.New("read /x: input/output error"), Store, "store"},
		{"checkpoint refused", Checkpoint(&checkpoint.Refused{Err: errors.New("not empty")}), Usage, "usage"},
		{"checkpoint in use", Checkpoint(&checkpoint.InUse{Err: errors.New("LOCK held")}), Locked, "locked"},
		{"checkpoint other", Checkpoint(errors.New("EIO")), Store, "store"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Of(tc.err); got != tc.code {
				t.Errorf("Of(%v) = %d, want %d", tc.err, got, tc.code)
			}
			if got := Class(tc.err); got != tc.class {
				t.Errorf("Class(%v) = %q, want %q", tc.err, got, tc.class)
			}
			if j := JSON(tc.err); j.Error.Code != tc.code || j.Error.Class != tc.class || j.Error.Message != tc.err.Error() {
				t.Errorf("JSON(%v) = %+v", tc.err, j)
			}
		})
	}
	if Of(nil) != OK || Checkpoint(nil) != nil {
		t.Error("no error is not status 0")
	}
}
