package inspect

import (
	"fmt"
	"time"

	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// What the on-call views (ListTenants, ScanDLQ, ScanKeys, DecodeAnyKey) share.

// ViewNote is something a view has to say besides its rows: what a read cost,
// why a result is empty, or a finding met on the way (a hook filed under
// "default", a missing delivery row). Warnings are findings and are never
// suppressed; plain notes are context an operator may silence.
type ViewNote struct {
	Warning bool   `json:"warning"`
	Text    string `json:"text"`
}

type viewNotes []ViewNote

func (n *viewNotes) note(format string, args ...any) {
	*n = append(*n, ViewNote{Text: fmt.Sprintf(format, args...)})
}

func (n *viewNotes) warn(format string, args ...any) {
	*n = append(*n, ViewNote{Warning: true, Text: fmt.Sprintf(format, args...)})
}

// refuseMidMigration stops a view on a store the 2 -> 3 migration has not
// finished: its rows are half moved, and the contract forbids reporting them
// as facts.
func refuseMidMigration(st *rocks.Store) error {
	if !st.Migrating {
		return nil
	}
	return fmt.Errorf("%w: %s: m:migrating:3 is present, so its rows are half moved between the format 2 and format 3 families "+
		"and this view would misreport them; finish the migration first (ankusa-store migrate)", rocks.ErrMidMigration, st.Dir)
}

// viewTime is a store time (milliseconds since the epoch) as a UTC time.
func viewTime(ms uint64) time.Time { return time.UnixMilli(int64(ms)).UTC() }
