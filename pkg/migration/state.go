package migration

import (
	"fmt"
	"time"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// State is where a store stands with respect to the 2 -> 3 migration.
type State struct {
	Format uint32
	// Migrating: m:migrating:3 is present; the fields below are read from the store.
	Migrating bool
	Cursor    format.MigrationCursor
	// StartedAt is the persisted start time (m:migrating:3:now), in ms. A
	// resumed run classifies due rows against it, whatever the clock says now.
	StartedAt uint64
	NextOrd   uint32
}

// Done reports whether the store needs no migration.
func (s State) Done() bool { return s.Format == format.Format3 && !s.Migrating }

// StartTime is StartedAt as a time.
func (s State) StartTime() time.Time { return time.UnixMilli(int64(s.StartedAt)).UTC() }

// ReadState reads the migration metadata of an open store. A store that has
// m:migrating:3 but not the keys the preparation writes with it was not left
// so by this migration (the preparation is one batch): it is corrupt.
//
// The format is read again, not taken from st.Format: that is the format the
// store had when it was opened, and a migration since may have changed it.
func ReadState(st *rocks.Store) (State, error) {
	var s State
	f, err := readMeta(st, format.KeyFormat, format.DecodeU32)
	if err != nil {
		return s, err
	}
	s.Format = f
	v, ok, err := st.Get(format.CFDefault, []byte(format.KeyMigrating3))
	if err != nil {
		return s, err
	}
	if !ok {
		return s, nil
	}
	s.Migrating = true
	if s.Cursor, err = format.DecodeMigrationCursor(v); err != nil {
		return s, fmt.Errorf("%w: %s: %s: %v", rocks.ErrCorrupt, st.Dir, format.KeyMigrating3, err)
	}
	if s.StartedAt, err = readMeta(st, format.KeyMigrating3Now, format.DecodeU64); err != nil {
		return s, err
	}
	if s.NextOrd, err = readMeta(st, format.KeyNextOrd, format.DecodeU32); err != nil {
		return s, err
	}
	if s.NextOrd < format.FirstOrd {
		return s, fmt.Errorf("%w: %s: %s is %d; ordinals start at %d", rocks.ErrCorrupt, st.Dir, format.KeyNextOrd, s.NextOrd, format.FirstOrd)
	}
	return s, nil
}

func readMeta[T any](st *rocks.Store, key string, decode func([]byte) (T, error)) (T, error) {
	var zero T
	v, ok, err := st.Get(format.CFDefault, []byte(key))
	if err != nil {
		return zero, err
	}
	if !ok {
		if key == format.KeyFormat {
			return zero, fmt.Errorf("%w: %s has no %s key", rocks.ErrNotStore, st.Dir, key)
		}
		return zero, fmt.Errorf("%w: %s: %s is present but %s is missing", rocks.ErrCorrupt, st.Dir, format.KeyMigrating3, key)
	}
	t, err := decode(v)
	if err != nil {
		return zero, fmt.Errorf("%w: %s: %s: %v", rocks.ErrCorrupt, st.Dir, key, err)
	}
	return t, nil
}
