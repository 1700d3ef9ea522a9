package walk

import (
	"path/filepath"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// testStore is a small store the walk's tests fill with raw rows: a storetest.Writer's
// batch, committed when the store is opened.
type testStore struct {
	*storetest.Writer
	t   testing.TB
	dir string
}

func newTestStore(t testing.TB, storeFormat uint32) *testStore {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "store")
	storetest.Create(t, dir, storeFormat, rocks.Tuning{}).Close()
	return &testStore{Writer: storetest.NewWriter(storeFormat), t: t, dir: dir}
}

func (s *testStore) raw(cf string, k, v []byte) { s.B.Put(cf, k, v) }

// merge adds a raw merge operand to a counters key.
func (s *testStore) merge(k, operand []byte) { s.B.Merge(format.CFCounters, k, operand) }

// openLive opens the store read-write for the rest of the test, with what was built in it.
func (s *testStore) openLive() *rocks.Store {
	s.t.Helper()
	st, err := rocks.OpenStore(s.dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		s.t.Fatalf("open: %v", err)
	}
	s.t.Cleanup(func() { st.Close() })
	s.Commit(s.t, st, true)
	return st
}

// open commits what was built and opens the store read-only, as the views do.
func (s *testStore) open() *rocks.Store {
	s.t.Helper()
	rw, err := rocks.OpenStore(s.dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		s.t.Fatalf("open: %v", err)
	}
	s.Commit(s.t, rw, true)
	rw.Close()
	st, err := rocks.OpenStore(s.dir, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		s.t.Fatalf("open read-only: %v", err)
	}
	s.t.Cleanup(func() { st.Close() })
	return st
}
