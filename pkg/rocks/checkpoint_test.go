package rocks

import (
	"bytes"
	"os"
	"reflect"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// A read-only (or secondary) instance can checkpoint a store whose last
// writes are only in the WAL, without changing the store's files.
func TestCheckpointReadOnly(t *testing.T) {
	dir := t.TempDir() + "/store"
	newStore(t, dir, format.FamCounters)
	db := mustOpen(t, dir, Options{Mode: ReadWrite})
	mustWrite(t, db, func(b *Batch) { b.Merge(format.CFCounters, counterKey(1), operand(42)) })
	db.Close()
	before := dirHashes(t, dir)
	for _, m := range []Mode{ReadOnly, Secondary} {
		db := mustOpen(t, dir, Options{Mode: m})
		cp := t.TempDir() + "/cp"
		os.Remove(cp)
		if err := db.Checkpoint(cp); err != nil {
			t.Fatalf("%v: %v", m, err)
		}
		db.Close()
		st, err := OpenStore(cp, Options{Mode: ReadOnly})
		if err != nil {
			t.Fatal(err)
		}
		if v, _, err := st.Get(format.CFCounters, counterKey(1)); err != nil || !bytes.Equal(v, ok(42)) {
			t.Fatalf("%v checkpoint: %v %v", m, v, err)
		}
		if err := st.Fold(format.FamCounters, ReadOpts{}, func(k, v []byte) error { return nil }); err != nil {
			t.Fatal(err)
		}
		st.Close()
	}
	if after := dirHashes(t, dir); !reflect.DeepEqual(before, after) {
		t.Fatalf("checkpoint changed the store:\n%v\n%v", before, after)
	}
}
