package rocks

import (
	"bytes"
	"testing"
)

// The operator runs inside RocksDB's threads: whatever bytes it meets, it
// must not panic, and a result it produces must be a valid base.
func FuzzMergeCounter(f *testing.F) {
	f.Add([]byte(nil), operand(1), operand(-1))
	f.Add(ok(300), operand(1<<40), tup(atomUTF8, term(2), []byte{1}))
	f.Add([]byte{131, 111, 0, 0, 0, 9, 0}, []byte{131, 105, 0, 0, 0, 2}, []byte{131, 104, 2, 100, 0, 7})
	f.Fuzz(func(t *testing.T, base, op1, op2 []byte) {
		if len(base) == 0 {
			base = nil
		}
		out, okay := MergeCounter(base, [][]byte{op1, op2})
		if !okay {
			return
		}
		v, ok1 := parseBase(out)
		if !ok1 || !bytes.Equal(AppendETFInt(nil, v), out) {
			t.Fatalf("result %v does not round-trip", out)
		}
		// Merging in two steps gives the same result (the associativity
		// RocksDB relies on when it merges some operands at flush time).
		mid, ok2 := MergeCounter(base, [][]byte{op1})
		if !ok2 {
			t.Fatal("a successful two-operand merge failed on its first operand")
		}
		if out2, ok3 := MergeCounter(mid, [][]byte{op2}); !ok3 || !bytes.Equal(out2, out) {
			t.Fatalf("two-step merge %v, one-step %v", out2, out)
		}
	})
}
