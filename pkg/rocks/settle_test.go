package rocks

import (
	"context"
	"encoding/binary"
	"errors"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// l0Files is how many L0 tables cf has.
func l0Files(t *testing.T, db *DB, cf string) uint64 {
	t.Helper()
	v, err := db.Property(cf, "rocksdb.num-files-at-level0")
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		t.Fatalf("num-files-at-level0 of %s: %q: %v", cf, v, err)
	}
	return n
}

// A bulk writer's trigger (12 L0 files, as migrate opens) leaves its flushes in L0; Settle
// brings every family, counters and its merges included, under the node's trigger, and
// every row reads as before.
func TestSettleCompactsL0ToTheNodesTrigger(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	st, err := OpenStore(dir, Options{Mode: ReadWrite, Create: true, CreateFormat: format.Format3,
		Tune: Tuning{L0SlowdownTrigger: 128, L0StopTrigger: 256, L0CompactionTrigger: 12}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const flushes, perFlush = 10, 50
	ctr := make([]byte, 5)
	binary.BigEndian.PutUint32(ctr, 7)
	for i := range flushes {
		b := NewBatch()
		for j := range perFlush {
			b.Put(format.CFIndex, binary.BigEndian.AppendUint64([]byte("D"), uint64(j*flushes+i)), []byte("v"))
		}
		b.Merge(format.CFCounters, ctr, operand(1))
		if err := st.Write(b, true); err != nil {
			t.Fatal(err)
		}
		for _, cf := range []string{format.CFIndex, format.CFCounters} {
			if err := st.Flush(cf); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, cf := range []string{format.CFIndex, format.CFCounters} {
		if n := l0Files(t, st.DB, cf); n != flushes {
			t.Fatalf("%s: %d L0 files before Settle, want the %d flushes (the trigger of 12 compacted early)", cf, n, flushes)
		}
	}
	if err := st.Settle(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, cf := range []string{format.CFIndex, format.CFCounters} {
		if n := l0Files(t, st.DB, cf); n >= NodeL0CompactionTrigger {
			t.Errorf("%s: %d L0 files after Settle, want fewer than the node's trigger %d", cf, n, NodeL0CompactionTrigger)
		}
	}
	rows := 0
	if err := st.Scan(format.CFIndex, []byte("D"), []byte("E"), ReadOpts{}, func(k, v []byte) error { rows++; return nil }); err != nil {
		t.Fatal(err)
	}
	if rows != flushes*perFlush {
		t.Errorf("%d rows after Settle, want %d", rows, flushes*perFlush)
	}
	v, found, err := st.Get(format.CFCounters, ctr)
	if err != nil || !found {
		t.Fatalf("counter after Settle: %v, %v", found, err)
	}
	if n, ok := parseBase(v); !ok || n != flushes {
		t.Errorf("counter after Settle: %d (decodes: %v), want %d: the merges did not fold", n, ok, flushes)
	}
}

// A read-only store has nothing to settle; a cancelled context stops the wait.
func TestSettleRefusals(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	newStore(t, dir, format.FamDue)
	ro := mustOpen(t, dir, Options{Mode: ReadOnly})
	if err := ro.Settle(context.Background()); !errors.Is(err, ErrReadOnly) {
		t.Errorf("read-only: %v, want ErrReadOnly", err)
	}
	ro.Close()
	rw := mustOpen(t, dir, Options{Mode: ReadWrite})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := rw.Settle(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}
