package storetest

import (
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// Writer fills a store the way a node commits to it, for the tests that
// build small stores row by row: rows go into B, counter deltas into Deltas
// (the per-batch coalescer the node and the migration use), and Commit
// writes both, with m:next_ord, in one batch. A new Writer's batch already
// holds the lo and hi sentinels of every family of its format, so the first
// Commit makes an empty store a healthy one.
type Writer struct {
	Format uint32
	B      *rocks.Batch
	Deltas format.Deltas
	next   uint32
	ords   map[string]uint32
}

// NewWriter starts the rows of a store of the given format.
func NewWriter(storeFormat uint32) *Writer {
	w := &Writer{Format: storeFormat, B: rocks.NewBatch(), next: format.FirstOrd, ords: map[string]uint32{}}
	for _, f := range format.FamiliesOf(storeFormat) {
		w.B.Put(f.CF, f.Lo, nil)
		w.B.Put(f.CF, f.Hi, nil)
	}
	return w
}

// Ord returns the tenant's ordinal (format 3), handing out the next one,
// with its t and n rows, the first time the tenant is seen.
func (w *Writer) Ord(tenant string) uint32 {
	if o, ok := w.ords[tenant]; ok {
		return o
	}
	o := w.next
	w.next++
	w.ords[tenant] = o
	w.B.Put(format.CFTenants, format.TenantByOrdKey{Ord: o}.Encode(), []byte(tenant))
	w.B.Put(format.CFTenants, format.OrdByTenantKey{Tenant: tenant}.Encode(), format.EncodeU32(o))
	return o
}

// Commit writes the batch to st and starts a new one. In format 3 the
// batch first gets the counter operands of the deltas added since the last
// Commit and m:next_ord, as a node's commit carries them.
func (w *Writer) Commit(t testing.TB, st *rocks.Store, sync bool) {
	t.Helper()
	if w.Format == format.Format3 {
		for _, op := range w.Deltas.Ops() {
			w.B.Merge(format.CFCounters, op.Key, op.Operand)
		}
		w.Deltas.Reset()
		w.B.Put(format.CFDefault, []byte(format.KeyNextOrd), format.EncodeU32(w.next))
	}
	if err := st.Write(w.B, sync); err != nil {
		t.Fatalf("commit: %v", err)
	}
	w.B = rocks.NewBatch()
}

// Create creates an empty store of the given format in dir, open for
// writing (its families and m:format; the sentinels come with a Writer's
// first Commit). The store is closed when the test ends if it is still open.
func Create(t testing.TB, dir string, storeFormat uint32, tune rocks.Tuning) *rocks.Store {
	t.Helper()
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite, Create: true, CreateFormat: storeFormat, Tune: tune})
	if err != nil {
		t.Fatalf("create store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// OpenReadOnly opens the store in dir read-only, as the views open a store a
// node holds; it is closed when the test ends.
func OpenReadOnly(t testing.TB, dir string) *rocks.Store {
	t.Helper()
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		t.Fatalf("open read-only: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
