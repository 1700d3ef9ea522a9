package rocks

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// ScanAhead gives fn what Scan gives it, in the same order and bounds (fills of many
// entries, and entries larger than a fill's buffer), and ends as Scan does: Stop after any
// entry ends it without error, fn's error is returned, and its reader is gone when it
// returns (no goroutine left, the store's read lock let go: Close does not wait).
func TestScanAheadIsScan(t *testing.T) {
	const n = manyFillsRows
	db := hooksOf(t, n, manyFillsVal)
	type entry struct{ k, v string }
	read := func(scan func(string, []byte, []byte, ReadOpts, func(k, v []byte) error) error, lo, hi []byte, stopAt int, fnErr error) ([]entry, error) {
		var got []entry
		err := scan(format.CFHooks, lo, hi, ReadOpts{}, func(k, v []byte) error {
			got = append(got, entry{string(k), string(v)})
			if len(got) == stopAt {
				if fnErr != nil {
					return fnErr
				}
				return Stop
			}
			return nil
		})
		return got, err
	}
	before := runtime.NumGoroutine()
	fail := errors.New("the consumer's own error")
	for _, c := range []struct {
		lo, hi []byte
		stopAt int
		fnErr  error
	}{
		{nil, nil, 0, nil},
		{hookKey(100), hookKey(9000), 0, nil},
		{nil, nil, 1, nil},
		{nil, nil, fillMaxEntries + 3, nil},
		{nil, nil, n, nil},
		{nil, nil, 2*fillMaxEntries - 1, fail},
	} {
		name := fmt.Sprintf("[%q, %q) stopped at %d by %v", c.lo, c.hi, c.stopAt, c.fnErr)
		want, wantErr := read(db.Scan, c.lo, c.hi, c.stopAt, c.fnErr)
		got, err := read(db.ScanAhead, c.lo, c.hi, c.stopAt, c.fnErr)
		if err != wantErr {
			t.Errorf("%s: error %v, Scan's %v", name, err, wantErr)
		}
		if len(want) == 0 || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %d entries, Scan's %d (or they differ)", name, len(got), len(want))
		}
	}
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before {
		t.Errorf("%d goroutines after the scans, %d before: a reader left running", g, before)
	}
	closed := make(chan struct{})
	go func() { db.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close waits: a reader still holds the store's read lock")
	}
}

// A failed iteration (a counter whose merge fails) ends ScanAhead with Scan's error, the
// key it names, after the same entries.
func TestScanAheadFailsAsScan(t *testing.T) {
	dir := t.TempDir() + "/store"
	newStore(t, dir, format.FamCounters)
	db := mustOpen(t, dir, Options{Mode: ReadWrite})
	const bad = 3*fillMaxEntries + 11
	mustWrite(t, db, func(b *Batch) {
		for i := 1; i < 4*fillMaxEntries; i++ {
			k := []byte{0, 0, byte(i >> 16), byte(i >> 8), byte(i), 1}
			if i == bad {
				b.Put(format.CFCounters, k, ok(1))
				b.Merge(format.CFCounters, k, tup(atomSmallUTF8))
				continue
			}
			b.Merge(format.CFCounters, k, operand(int64(i)))
		}
	})
	db.Close()
	ro := mustOpen(t, dir, Options{Mode: ReadOnly})
	var want, got [][]byte
	wantErr := ro.Scan(format.CFCounters, nil, nil, ReadOpts{}, func(k, _ []byte) error {
		want = append(want, bytes.Clone(k))
		return nil
	})
	err := ro.ScanAhead(format.CFCounters, nil, nil, ReadOpts{}, func(k, _ []byte) error {
		got = append(got, bytes.Clone(k))
		return nil
	})
	var wke, ke *KeyError
	if !errors.As(wantErr, &wke) || !errors.As(err, &ke) || !bytes.Equal(ke.Key, wke.Key) || ke.Corrupt != wke.Corrupt || err.Error() != wantErr.Error() {
		t.Fatalf("ScanAhead's error %v, Scan's %v", err, wantErr)
	}
	if len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Fatalf("ScanAhead gave %d keys before its error, Scan %d (or they differ)", len(got), len(want))
	}
}
