package walk

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// A held walk reads with one iterator: it sees the store as it was when the
// walk began (RocksDB pins an iterator's view), where a walk that scans again
// for each chunk sees what was written between its chunks. The test writes
// ahead of the walk after its first chunk, so it fails if the walk stops
// holding its iterator, the one thing that makes it read a family once.
func TestHeldWalkKeepsOneIterator(t *testing.T) {
	s := newTestStore(t, format.Format3)
	var want [][]byte
	for i := 0; i < 3*MaxChunk; i++ {
		k := format.DeadKey{At: uint64(2 * i), Seq: uint64(i), Sink: 1}.Encode()
		s.raw(format.CFIndex, k, nil)
		want = append(want, k)
	}
	st := s.openLive()
	for _, held := range []bool{false, true} {
		var got [][]byte
		chunks := 0
		late := format.DeadKey{At: uint64(4*MaxChunk + 1), Seq: uint64(held2int(held)), Sink: 1}.Encode()
		fn := func(chunk []Entry) (bool, error) {
			if chunks++; chunks == 1 {
				b := rocks.NewBatch()
				b.Put(format.CFIndex, late, nil)
				if err := st.DB.Write(b, false); err != nil {
					return true, err
				}
			}
			for _, e := range chunk {
				got = append(got, bytes.Clone(e.K))
			}
			return false, nil
		}
		var err error
		if held {
			err = HoldFamily(st.DB, format.FamDead, fn)
		} else {
			err = Family(st.DB, format.FamDead, nil, false, MaxChunk, fn)
		}
		if err != nil {
			t.Fatal(err)
		}
		sawLate := slices.ContainsFunc(got, func(k []byte) bool { return bytes.Equal(k, late) })
		if chunks < 3 || sawLate == held {
			t.Errorf("held=%v: %d chunks, saw the key written during the walk: %v", held, chunks, sawLate)
		}
		if held && !slices.EqualFunc(got, want, bytes.Equal) {
			t.Errorf("held: %d keys, want the %d written before the walk, in order", len(got), len(want))
		}
		want = slices.Insert(want, slices.IndexFunc(want, func(k []byte) bool { return bytes.Compare(k, late) > 0 }), late)
	}
}

func held2int(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A held walk resumes past a key whose own read fails, as a chunked walk
// does, and hands it on in place; an error of fn's own, even a *KeyError,
// ends the walk.
func TestHeldWalkResumesPastABadKeyNotPastFn(t *testing.T) {
	s := newTestStore(t, format.Format3)
	const n = 2*MaxChunk + 10
	for o := uint32(1); o <= n; o++ {
		s.merge(format.CounterKeyBytes(o, format.FieldPending), format.EncodeCounterOperand(1))
	}
	bad := format.CounterKeyBytes(MaxChunk+5, format.FieldPending)
	s.merge(bad, []byte{131, 100, 0, 3, 'b', 'a', 'd'})
	st := s.open()
	keys, errs := 0, 0
	err := HoldFamily(st.DB, format.FamCounters, func(chunk []Entry) (bool, error) {
		for _, e := range chunk {
			keys++
			if e.Err != nil {
				errs++
				if !bytes.Equal(e.K, bad) || !errors.Is(e.Err, rocks.ErrCorrupt) {
					t.Errorf("error at %x: %v", e.K, e.Err)
				}
			}
		}
		return false, nil
	})
	if err != nil || keys != n || errs != 1 {
		t.Errorf("%d keys, %d errors, %v; want %d keys, one error", keys, errs, err, n)
	}
	mine := &rocks.KeyError{CF: format.CFCounters, Key: bad, Err: errors.New("fn's own")}
	calls := 0
	err = HoldFamily(st.DB, format.FamCounters, func([]Entry) (bool, error) {
		calls++
		return false, mine
	})
	if err != mine || calls != 1 {
		t.Errorf("fn's error: got %v after %d calls, want it after one", err, calls)
	}
}
