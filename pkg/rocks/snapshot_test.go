package rocks

import (
	"errors"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// A secondary instance cannot take snapshots: RocksDB hands one out and then fails every read
// through it, so NewSnapshot refuses up front. The other modes take one; a closed DB none.
func TestNewSnapshotByMode(t *testing.T) {
	dir := t.TempDir() + "/store"
	newStore(t, dir)
	for _, m := range []Mode{ReadOnly, Secondary, ReadWrite} {
		db := mustOpen(t, dir, Options{Mode: m})
		s, err := db.NewSnapshot()
		switch {
		case m == Secondary && !errors.Is(err, ErrNoSnapshots):
			t.Errorf("%v: NewSnapshot = %v, want ErrNoSnapshots", m, err)
		case m != Secondary && err != nil:
			t.Errorf("%v: NewSnapshot: %v", m, err)
		case m != Secondary:
			if _, _, err := db.GetOpts(format.CFDefault, []byte(format.KeyFormat), ReadOpts{Snap: s}); err != nil {
				t.Errorf("%v: read through the snapshot: %v", m, err)
			}
			s.Release()
		}
		db.Close()
		if _, err := db.NewSnapshot(); !errors.Is(err, ErrClosed) {
			t.Errorf("%v: NewSnapshot after Close = %v, want ErrClosed", m, err)
		}
	}
}
