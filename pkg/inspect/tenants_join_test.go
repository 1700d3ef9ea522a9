package inspect

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/walk"
)

// A cursor hands its chunks on in the walk's own buffers while its reader
// goes on: every entry must still be whole when the consumer reaches it, with
// the consumer slower than the reader (each entry is hashed a few times), so
// that a buffer refilled too early shows as a wrong value (and as a race
// under -race).
func TestFamCursorChunksStayWholeWhileTheReaderGoesOn(t *testing.T) {
	s := storetest.NewQueue(t, format.Format3)
	const n = 12 * walk.MaxChunk
	val := func(i uint64) []byte { return binary.BigEndian.AppendUint64(bytes.Repeat([]byte{byte(i)}, 8), i) }
	for i := uint64(0); i < n; i++ {
		s.Raw(format.CFIndex, format.DeadKey{At: i, Seq: i, Sink: 1}.Encode(), val(i))
	}
	st := s.Open()
	c := walk.PullFamily(context.Background(), st.DB, format.FamDead)
	defer c.Close()
	i := uint64(0)
	for e := c.Peek(); e != nil; e = c.Peek() {
		k, err := format.DecodeDeadKey(e.K)
		if err != nil || k.At != i || !bytes.Equal(e.V, val(i)) {
			t.Fatalf("entry %d: key %x (%v), value %x", i, e.K, err, e.V)
		}
		sum := sha256.Sum256(e.V)
		for range 8 {
			sum = sha256.Sum256(sum[:])
		}
		c.Advance()
		i++
	}
	if c.Err() != nil || i != n {
		t.Fatalf("%d entries, %v; want %d", i, c.Err(), n)
	}
}
