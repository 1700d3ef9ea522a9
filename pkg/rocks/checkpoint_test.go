package rocks

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// A read-write instance checkpoints a store whose last writes are only in the WAL. A read-only
// or secondary instance is refused: RocksDB 9.11 leaves the WAL's writes out of its
// checkpoint (they came back empty, with no error), and no command needs one.
func TestCheckpointReadWriteOnly(t *testing.T) {
	dir := t.TempDir() + "/store"
	newStore(t, dir, format.FamCounters)
	db := mustOpen(t, dir, Options{Mode: ReadWrite})
	mustWrite(t, db, func(b *Batch) { b.Merge(format.CFCounters, counterKey(1), operand(42)) })
	cp := t.TempDir() + "/cp"
	os.Remove(cp)
	if err := db.Checkpoint(cp); err != nil {
		t.Fatal(err)
	}
	db.Close()
	st, err := OpenStore(cp, Options{Mode: ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	if v, _, err := st.Get(format.CFCounters, counterKey(1)); err != nil || !bytes.Equal(v, ok(42)) {
		t.Fatalf("checkpoint: %v %v", v, err)
	}
	if err := st.Fold(format.FamCounters, ReadOpts{}, func(k, v []byte) error { return nil }); err != nil {
		t.Fatal(err)
	}
	st.Close()
	before := dirHashes(t, dir)
	for _, m := range []Mode{ReadOnly, Secondary} {
		db := mustOpen(t, dir, Options{Mode: m})
		cp := t.TempDir() + "/cp"
		os.Remove(cp)
		if err := db.Checkpoint(cp); !errors.Is(err, ErrReadOnly) {
			t.Errorf("%v: checkpoint = %v, want ErrReadOnly", m, err)
		}
		db.Close()
		if _, err := os.Stat(cp); err == nil {
			t.Errorf("%v: a refused checkpoint left %s", m, cp)
		}
	}
	if after := dirHashes(t, dir); !reflect.DeepEqual(before, after) {
		t.Fatalf("checkpoint changed the store:\n%v\n%v", before, after)
	}
}
