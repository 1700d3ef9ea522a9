package rocks

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
)

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// Hand-built operand pieces, for encodings OTP 26 does not write.
var (
	atomSmallUTF8 = cat([]byte{119, 7}, []byte("int_add"))
	atomUTF8      = cat([]byte{118, 0, 7}, []byte("int_add"))
	atomLatin1    = cat([]byte{100, 0, 7}, []byte("int_add"))
	atomSmall     = cat([]byte{115, 7}, []byte("int_add"))
)

func term(v int64) []byte { return AppendETFInt(nil, v)[1:] }

func tup(elems ...[]byte) []byte {
	return cat(append([][]byte{{131, 104, byte(len(elems))}}, elems...)...)
}

type mergeCase struct {
	name string
	base []byte // nil: no base
	ops  [][]byte
	want []byte // nil: the merge must fail
}

func ok(v int64) []byte { return AppendETFInt(nil, v) }

func mergeCases() []mergeCase {
	big := func(sign byte, mag ...byte) []byte {
		return cat([]byte{110, byte(len(mag)), sign}, mag)
	}
	return []mergeCase{
		{"no base, one operand", nil, [][]byte{operand(5)}, ok(5)},
		{"no base, starts at first delta", nil, [][]byte{operand(-3), operand(10), operand(1)}, ok(8)},
		{"base plus operands", ok(100), [][]byte{operand(1), operand(-2)}, ok(99)},
		{"base 98", ok(-1000), [][]byte{operand(1000)}, ok(0)},
		{"base 110", ok(1 << 40), [][]byte{operand(1)}, ok(1<<40 + 1)},
		{"base 111 large big", cat([]byte{131, 111, 0, 0, 0, 2, 0, 1, 1}), [][]byte{operand(1)}, ok(258)},
		{"base with trailing bytes", cat(ok(7), []byte{1, 2, 3}), [][]byte{operand(1)}, ok(8)},
		{"wrap at 2^63", ok(math.MaxInt64), [][]byte{operand(1)}, ok(math.MinInt64)},
		{"wrap below -2^63", ok(math.MinInt64), [][]byte{operand(-1)}, ok(math.MaxInt64)},
		{"no base wraps", nil, [][]byte{operand(math.MaxInt64), operand(math.MaxInt64)}, ok(-2)},
		{"to 0", ok(5), [][]byte{operand(-5)}, ok(0)},
		{"to 255", nil, [][]byte{operand(255)}, ok(255)},
		{"to 256", nil, [][]byte{operand(255), operand(1)}, ok(256)},
		{"to -1", nil, [][]byte{operand(-1)}, ok(-1)},
		{"to max int32", nil, [][]byte{operand(math.MaxInt32)}, ok(math.MaxInt32)},
		{"to max int32+1", nil, [][]byte{operand(math.MaxInt32), operand(1)}, ok(math.MaxInt32 + 1)},
		{"to min int32", nil, [][]byte{operand(math.MinInt32)}, ok(math.MinInt32)},
		{"to min int32-1", nil, [][]byte{operand(math.MinInt32), operand(-1)}, ok(math.MinInt32 - 1)},
		{"to max int64", nil, [][]byte{operand(math.MaxInt64)}, ok(math.MaxInt64)},
		{"to min int64", nil, [][]byte{operand(math.MinInt64)}, ok(math.MinInt64)},
		{"atom 118", nil, [][]byte{tup(atomUTF8, term(2))}, ok(2)},
		{"atom 100", nil, [][]byte{tup(atomLatin1, term(3))}, ok(3)},
		{"atom 115", nil, [][]byte{tup(atomSmall, term(4))}, ok(4)},
		{"large tuple 105", nil, [][]byte{cat([]byte{131, 105, 0, 0, 0, 2}, atomSmallUTF8, term(6))}, ok(6)},
		{"extra tuple elements ignored", ok(1), [][]byte{tup(atomSmallUTF8, term(2), []byte{119, 3, 'f', 'o', 'o'})}, ok(3)},
		{"extra elements not parsed", ok(1), [][]byte{cat([]byte{131, 104, 3}, atomSmallUTF8, term(2), []byte{255, 255})}, ok(3)},
		{"trailing bytes after operand", nil, [][]byte{cat(operand(9), []byte{0, 1, 2})}, ok(9)},
		{"operand bignum 8 bytes", nil, [][]byte{tup(atomSmallUTF8, big(1, 0, 0, 0, 0, 0, 0, 0, 0x80))}, ok(math.MinInt64)},
		{"operand bignum with zero high byte", nil, [][]byte{tup(atomSmallUTF8, big(0, 5, 0, 0, 0, 0, 0, 0, 0, 0))}, ok(5)},

		{"bad base: not an integer", []byte{131, 119, 2, 'o', 'k'}, [][]byte{operand(1)}, nil},
		{"bad base: empty", []byte{}, [][]byte{operand(1)}, nil},
		{"bad base: no version byte", []byte{97, 1}, [][]byte{operand(1)}, nil},
		{"bad base: float", []byte{131, 70, 0, 0, 0, 0, 0, 0, 0, 0}, [][]byte{operand(1)}, nil},
		{"bad base: bignum beyond 64 bits", cat([]byte{131}, big(0, 0, 0, 0, 0, 0, 0, 0, 0, 1)), [][]byte{operand(1)}, nil},
		{"bad base: 2^63", cat([]byte{131}, big(0, 0, 0, 0, 0, 0, 0, 0, 0x80)), [][]byte{operand(1)}, nil},
		{"bad base: truncated", []byte{131, 98, 0, 0}, [][]byte{operand(1)}, nil},
		{"bad operand: wrong atom", nil, [][]byte{tup([]byte{119, 7, 'i', 'n', 't', '_', 's', 'u', 'b'}, term(1))}, nil},
		{"bad operand: arity 1", nil, [][]byte{tup(atomSmallUTF8)}, nil},
		{"bad operand: not a tuple", nil, [][]byte{ok(1)}, nil},
		{"bad operand: non-integer delta", nil, [][]byte{tup(atomSmallUTF8, []byte{119, 1, 'x'})}, nil},
		{"bad operand: bigint beyond 64 bits", nil, [][]byte{tup(atomSmallUTF8, big(0, 0, 0, 0, 0, 0, 0, 0, 0, 1))}, nil},
		{"bad operand: 2^63", nil, [][]byte{tup(atomSmallUTF8, big(0, 0, 0, 0, 0, 0, 0, 0, 0x80))}, nil},
		{"bad operand: truncated", nil, [][]byte{operand(1000)[:10]}, nil},
		{"bad operand: empty", nil, [][]byte{{}}, nil},
		{"bad operand later fails all", ok(1), [][]byte{operand(1), tup(atomSmallUTF8), operand(1)}, nil},
		{"bad operand after no base", nil, [][]byte{operand(1), []byte{131, 97, 1}}, nil},
	}
}

func TestMergeCounterPure(t *testing.T) {
	for _, c := range mergeCases() {
		t.Run(c.name, func(t *testing.T) {
			got, ok := MergeCounter(c.base, c.ops)
			if c.want == nil {
				if ok {
					t.Fatalf("merge succeeded with %v, want failure", got)
				}
				return
			}
			if !ok || !bytes.Equal(got, c.want) {
				t.Fatalf("got %v (ok=%v), want %v", got, ok, c.want)
			}
		})
	}
}

func TestMergeOperatorName(t *testing.T) {
	if n := (&mergeOperator{}).Name(); n != "ErlangMergeOperator" {
		t.Fatalf("Name() = %q", n)
	}
	if _, ok := any(&mergeOperator{}).(interface {
		PartialMerge(k, l, r []byte) ([]byte, bool)
	}); ok {
		t.Fatal("the operator must not implement PartialMerge")
	}
	if _, ok := any(&mergeOperator{}).(interface {
		PartialMergeMulti(k []byte, ops [][]byte) ([]byte, bool)
	}); ok {
		t.Fatal("the operator must not implement PartialMergeMulti")
	}
}

func TestOperandMatchesFormat(t *testing.T) {
	for _, v := range []int64{0, 1, 255, 256, -1, math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64} {
		if got := format.EncodeCounterOperand(v); !bytes.Equal(got, operand(v)) {
			t.Errorf("format.EncodeCounterOperand(%d) = %v, want %v", v, got, operand(v))
		}
	}
}

// The encodings at every tag boundary, byte for byte against real Erlang.
func TestETFIntAgainstErlang(t *testing.T) {
	erl, err := exec.LookPath("erl")
	if err != nil {
		t.Skip("erl not installed")
	}
	vals := []int64{0, 1, 255, 256, -1, -255, -256, math.MaxInt32, math.MaxInt32 + 1, math.MinInt32, math.MinInt32 - 1,
		1 << 40, -(1 << 40), math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	var list []string
	for _, v := range vals {
		list = append(list, fmt.Sprint(v))
	}
	ls := strings.Join(list, ",")
	// Integers, then operands {int_add, V} and {int_add, V, extra} as this
	// OTP writes them (our parser must accept them).
	script := fmt.Sprintf(`P = fun(B) -> io:format("~w~n", [binary_to_list(B)]) end,
		L = [%s],
		[P(term_to_binary(X)) || X <- L],
		[P(term_to_binary({int_add, X})) || X <- L],
		[P(term_to_binary({int_add, X, <<"extra">>})) || X <- L],
		halt().`, ls)
	out, err := exec.Command(erl, "-noshell", "-eval", script).Output()
	if err != nil {
		t.Fatalf("erl: %v", err)
	}
	lines := strings.Fields(strings.TrimSpace(string(out)))
	if len(lines) != 3*len(vals) {
		t.Fatalf("erl printed %d lines, want %d:\n%s", len(lines), 3*len(vals), out)
	}
	parse := func(s string) []byte {
		s = strings.Trim(s, "[]")
		var b []byte
		for _, f := range strings.Split(s, ",") {
			var n int
			fmt.Sscan(f, &n)
			b = append(b, byte(n))
		}
		return b
	}
	for i, v := range vals {
		if want, got := parse(lines[i]), AppendETFInt(nil, v); !bytes.Equal(got, want) {
			t.Errorf("term_to_binary(%d): erl %v, ours %v", v, want, got)
		}
		for j := 1; j <= 2; j++ {
			op := parse(lines[j*len(vals)+i])
			got, ok := MergeCounter(nil, [][]byte{op})
			if !ok || !bytes.Equal(got, AppendETFInt(nil, v)) {
				t.Errorf("merge of erl operand %v: %v ok=%v, want %d", op, got, ok, v)
			}
		}
	}
}

func counterKey(i int) []byte { return []byte{0, 0, byte(i >> 8), byte(i), 1} }

// Through a real DB: part of the operands flushed and compacted, the rest
// left in the WAL; read back after reopening, read-only and read-write, via
// Get, MultiGet and Fold.
func TestMergeThroughRocksDB(t *testing.T) {
	dir := t.TempDir() + "/store"
	newStore(t, dir, format.FamCounters)
	var good []mergeCase
	for _, c := range mergeCases() {
		if c.want != nil {
			good = append(good, c)
		}
	}
	db, err := Open(dir, Options{Mode: ReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	b := NewBatch()
	for i, c := range good {
		k := counterKey(i + 1)
		if c.base != nil {
			b.Put(format.CFCounters, k, c.base)
		}
		for _, op := range c.ops[:len(c.ops)/2] {
			b.Merge(format.CFCounters, k, op)
		}
	}
	if err := db.Write(b, true); err != nil {
		t.Fatal(err)
	}
	if err := db.Flush(format.CFCounters); err != nil {
		t.Fatal(err)
	}
	if err := db.CompactRange(format.CFCounters); err != nil {
		t.Fatal(err)
	}
	b.Clear()
	for i, c := range good {
		for _, op := range c.ops[len(c.ops)/2:] {
			b.Merge(format.CFCounters, counterKey(i+1), op)
		}
	}
	if err := db.Write(b, true); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if !walHasData(t, dir) {
		t.Fatal("the second half of the operands should be in the WAL")
	}

	check := func(db *DB) {
		t.Helper()
		keys := make([][]byte, len(good))
		for i, c := range good {
			keys[i] = counterKey(i + 1)
			v, found, err := db.Get(format.CFCounters, keys[i])
			if err != nil || !found || !bytes.Equal(v, c.want) {
				t.Errorf("%s: Get = %v %v %v, want %v", c.name, v, found, err, c.want)
			}
		}
		vals, found, err := db.MultiGet(format.CFCounters, keys)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range good {
			if !found[i] || !bytes.Equal(vals[i], c.want) {
				t.Errorf("%s: MultiGet = %v, want %v", c.name, vals[i], c.want)
			}
		}
		i := 0
		err = db.Fold(format.FamCounters, ReadOpts{}, func(k, v []byte) error {
			if !bytes.Equal(k, counterKey(i+1)) || !bytes.Equal(v, good[i].want) {
				t.Errorf("fold %d: %x=%v, want %v", i, k, v, good[i].want)
			}
			i++
			return nil
		})
		if err != nil || i != len(good) {
			t.Errorf("fold: %d keys, err %v", i, err)
		}
	}
	check(mustOpen(t, dir, Options{Mode: ReadOnly}))
	rw := mustOpen(t, dir, Options{Mode: ReadWrite}) // replays the WAL, flushing with merges
	check(rw)
	if err := rw.CompactRange(format.CFCounters); err != nil {
		t.Fatal(err)
	}
	check(rw)
}

func walHasData(t *testing.T, dir string) bool {
	for name, h := range dirHashes(t, dir) {
		if strings.HasSuffix(name, ".log") && h != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
			return true
		}
	}
	return false
}

// Each failing case in the WAL: Get and Fold name the key, nothing crashes.
func TestBadMergeNamesKey(t *testing.T) {
	var bad []mergeCase
	for _, c := range mergeCases() {
		if c.want == nil {
			bad = append(bad, c)
		}
	}
	dir := t.TempDir() + "/store"
	newStore(t, dir, format.FamCounters)
	db := mustOpen(t, dir, Options{Mode: ReadWrite})
	good := counterKey(0x100)
	mustWrite(t, db, func(b *Batch) {
		b.Merge(format.CFCounters, good, operand(1))
		for i, c := range bad {
			if c.base != nil {
				b.Put(format.CFCounters, counterKey(i+1), c.base)
			}
			for _, op := range c.ops {
				b.Merge(format.CFCounters, counterKey(i+1), op)
			}
		}
	})
	db.Close()
	// Read-only: a read-write open would flush the WAL on recovery and fail.
	ro := mustOpen(t, dir, Options{Mode: ReadOnly})
	for i, c := range bad {
		k := counterKey(i + 1)
		_, _, err := ro.Get(format.CFCounters, k)
		var ke *KeyError
		if !errors.Is(err, ErrCorrupt) || !errors.As(err, &ke) || !bytes.Equal(ke.Key, k) || !strings.Contains(err.Error(), FmtKey(k)) {
			t.Errorf("%s: Get error %v, want ErrCorrupt naming %x", c.name, err, k)
		}
		_, _, err = ro.MultiGet(format.CFCounters, [][]byte{good, k})
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), FmtKey(k)) {
			t.Errorf("%s: MultiGet error %v", c.name, err)
		}
		// A fold of just this key's range: lo of the range is the key itself.
		err = ro.Scan(format.CFCounters, k, append(k, 0), ReadOpts{}, func(k, v []byte) error { return nil })
		if !errors.As(err, &ke) || !errors.Is(err, ErrCorrupt) || !bytes.Equal(ke.Key, k) {
			t.Errorf("%s: Scan error %v", c.name, err)
		}
	}
	// The fold stops at the first bad key and names it and the family.
	err := ro.Fold(format.FamCounters, ReadOpts{}, func(k, v []byte) error { return nil })
	var cs *CutShortError
	if !errors.As(err, &cs) || cs.Family != format.FamCounters.Name || !errors.Is(err, ErrCorrupt) ||
		!strings.Contains(err.Error(), FmtKey(counterKey(1))) {
		t.Fatalf("fold error %v", err)
	}
	t.Log(err)
	// The good key still reads, and the process can open other stores.
	if v, _, err := ro.Get(format.CFCounters, good); err != nil || !bytes.Equal(v, ok(1)) {
		t.Fatalf("good key: %v %v", v, err)
	}
	other := t.TempDir() + "/other"
	newStore(t, other, format.FamCounters)
	o := mustOpen(t, other, Options{Mode: ReadWrite})
	mustWrite(t, o, func(b *Batch) { b.Merge(format.CFCounters, good, operand(2)) })
	if v, _, err := o.Get(format.CFCounters, good); err != nil || !bytes.Equal(v, ok(2)) {
		t.Fatalf("other store: %v %v", v, err)
	}
}

// A merge that fails during a flush puts RocksDB into background error: the
// flush reports the key, later writes fail, a read-only open still reads and
// reports the key as corrupt.
func TestBadMergeDuringFlush(t *testing.T) {
	dir := t.TempDir() + "/store"
	newStore(t, dir, format.FamCounters)
	db, err := Open(dir, Options{Mode: ReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	bad := counterKey(7)
	mustWrite(t, db, func(b *Batch) {
		b.Merge(format.CFCounters, counterKey(3), operand(3))
		b.Put(format.CFCounters, bad, ok(1))
		b.Merge(format.CFCounters, bad, tup(atomSmallUTF8))
	})
	err = db.Flush(format.CFCounters)
	var ke *KeyError
	if !errors.As(err, &ke) || !bytes.Equal(ke.Key, bad) || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("flush error %v, want ErrCorrupt naming %x", err, bad)
	}
	t.Log(err)
	b := NewBatch()
	b.Put(format.CFDefault, []byte("x"), []byte("y"))
	if err := db.Write(b, false); err == nil {
		t.Fatal("write after background error succeeded")
	}
	db.Close()

	if _, err := Open(dir, Options{Mode: ReadWrite}); err == nil {
		t.Log("read-write reopen succeeded")
	} else {
		t.Logf("read-write reopen: %v", err)
	}
	ro := mustOpen(t, dir, Options{Mode: ReadOnly})
	if _, _, err := ro.Get(format.CFCounters, bad); !errors.As(err, &ke) || !bytes.Equal(ke.Key, bad) {
		t.Fatalf("Get: %v", err)
	}
	if v, _, err := ro.Get(format.CFCounters, counterKey(3)); err != nil || !bytes.Equal(v, ok(3)) {
		t.Fatalf("good key: %v %v", v, err)
	}
}
