package migration

import (
	"encoding/binary"
	"testing"
)

// The write stage's split key is the median of a sample spread over every index key added:
// within a few percent of the middle key however many were added, the sample never more
// than keySampleMost keys.
func TestKeySampleMedian(t *testing.T) {
	for _, n := range []uint32{1, 2, 1000, keySampleMost, 100_000, 3_000_001} {
		var s keySample
		for i := range n {
			s.add(binary.BigEndian.AppendUint32([]byte("D"), i))
			if len(s.keys) > keySampleMost {
				t.Fatalf("%d keys added: the sample holds %d", i+1, len(s.keys))
			}
		}
		m := s.median()
		if len(m) != 5 {
			t.Fatalf("%d keys: median %x", n, m)
		}
		got := binary.BigEndian.Uint32(m[1:])
		if d := int64(got) - int64(n/2); d < -int64(n/25)-1 || d > int64(n/25)+1 {
			t.Errorf("%d keys: median %d, want about %d", n, got, n/2)
		}
	}
	var none keySample
	if m := none.median(); m != nil {
		t.Errorf("no key added: median %x, want none", m)
	}
}
