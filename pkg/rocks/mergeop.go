package rocks

import (
	"encoding/binary"
	"math"
	"sync"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/format/etf"
)

// The counters merge operator: erlang-rocksdb's ErlangMergeOperator, int_add
// only, byte for byte (docs/format.md, "Counters and the merge operator"). It is a
// hot path (every counters read or compaction calls it), so it has its own
// minimal ETF reader instead of the general etf package.

const intAdd = "int_add"

// MergeCounter is the operator's full merge. base is nil when the key has no
// base value (absent or deleted); an empty non-nil base is a base that is not
// an integer. It returns false, failing the whole merge, on any base or
// operand that breaks the contract's rules.
func MergeCounter(base []byte, operands [][]byte) ([]byte, bool) {
	var sum int64
	ops := operands
	if base != nil {
		v, ok := parseBase(base)
		if !ok {
			return nil, false
		}
		sum = v
	} else {
		if len(ops) == 0 {
			return nil, false
		}
		v, ok := parseOperand(ops[0])
		if !ok {
			return nil, false
		}
		sum = v
		ops = ops[1:]
	}
	for _, op := range ops {
		v, ok := parseOperand(op)
		if !ok {
			return nil, false
		}
		sum += v // Go's signed overflow wraps (two's complement), as the NIF does
	}
	return AppendETFInt(make([]byte, 0, 12), sum), true
}

// parseBase reads a base value: 131, then an integer (97, 98, 110, 111) that
// fits in int64. Trailing bytes are ignored, as binary_to_term in the NIF
// ignores them.
func parseBase(b []byte) (int64, bool) {
	if len(b) < 2 || b[0] != etf.TagVersion {
		return 0, false
	}
	v, _, ok := parseInt(b, 1)
	return v, ok
}

// parseOperand reads 131, a tuple of arity >= 2 whose first element is the
// atom int_add (any of the four atom encodings) and whose second is an
// integer that fits in int64. Further elements and trailing bytes are not
// looked at.
func parseOperand(b []byte) (int64, bool) {
	if len(b) < 3 || b[0] != etf.TagVersion {
		return 0, false
	}
	p := 2
	var arity uint32
	switch b[1] {
	case etf.TagSmallTuple:
		arity = uint32(b[2])
		p = 3
	case etf.TagLargeTuple:
		if len(b) < 6 {
			return 0, false
		}
		arity = binary.BigEndian.Uint32(b[2:6])
		p = 6
	default:
		return 0, false
	}
	if arity < 2 || p >= len(b) {
		return 0, false
	}
	var n int
	switch b[p] {
	case etf.TagSmallAtom, etf.TagSmallAtomUTF8:
		if p+2 > len(b) {
			return 0, false
		}
		n = int(b[p+1])
		p += 2
	case etf.TagAtom, etf.TagAtomUTF8:
		if p+3 > len(b) {
			return 0, false
		}
		n = int(binary.BigEndian.Uint16(b[p+1 : p+3]))
		p += 3
	default:
		return 0, false
	}
	if n != len(intAdd) || p+n > len(b) || string(b[p:p+n]) != intAdd {
		return 0, false
	}
	v, _, ok := parseInt(b, p+n)
	return v, ok
}

// parseInt reads an ETF integer term at b[p] (its tag) and returns its value
// if it fits in int64, and the offset after it. Bignums are little-endian
// magnitudes with a sign byte; like enif_get_int64 they are judged by value,
// so zero high bytes are allowed.
func parseInt(b []byte, p int) (int64, int, bool) {
	if p >= len(b) {
		return 0, 0, false
	}
	switch b[p] {
	case etf.TagSmallInteger:
		if p+2 > len(b) {
			return 0, 0, false
		}
		return int64(b[p+1]), p + 2, true
	case etf.TagInteger:
		if p+5 > len(b) {
			return 0, 0, false
		}
		return int64(int32(binary.BigEndian.Uint32(b[p+1 : p+5]))), p + 5, true
	case etf.TagSmallBig, etf.TagLargeBig:
		var n, hdr int
		if b[p] == etf.TagSmallBig {
			if p+3 > len(b) {
				return 0, 0, false
			}
			n, hdr = int(b[p+1]), 2
		} else {
			if p+6 > len(b) {
				return 0, 0, false
			}
			n64 := uint64(binary.BigEndian.Uint32(b[p+1 : p+5]))
			if n64 > uint64(len(b)) {
				return 0, 0, false
			}
			n, hdr = int(n64), 5
		}
		neg := b[p+hdr] != 0
		d := p + hdr + 1
		if n > len(b)-d {
			return 0, 0, false
		}
		var mag uint64
		for i := 0; i < n; i++ {
			c := b[d+i]
			if i >= 8 {
				if c != 0 {
					return 0, 0, false
				}
				continue
			}
			mag |= uint64(c) << (8 * i)
		}
		end := d + n
		if !neg {
			if mag > math.MaxInt64 {
				return 0, 0, false
			}
			return int64(mag), end, true
		}
		if mag > 1<<63 {
			return 0, 0, false
		}
		return int64(-mag), end, true // -(1<<63) wraps to MinInt64, as wanted
	}
	return 0, 0, false
}

// AppendETFInt appends term_to_binary(v): 131, then 97 for 0..255, 98 for
// other 32-bit values, else 110 with the minimal little-endian magnitude.
func AppendETFInt(dst []byte, v int64) []byte {
	dst = append(dst, etf.TagVersion)
	switch {
	case v >= 0 && v <= 255:
		return append(dst, etf.TagSmallInteger, byte(v))
	case v >= math.MinInt32 && v <= math.MaxInt32:
		return binary.BigEndian.AppendUint32(append(dst, etf.TagInteger), uint32(int32(v)))
	}
	mag := uint64(v)
	sign := byte(0)
	if v < 0 {
		mag = -mag // MinInt64 stays 1<<63 as uint64
		sign = 1
	}
	n := 0
	for m := mag; m != 0; m >>= 8 {
		n++
	}
	dst = append(dst, etf.TagSmallBig, byte(n), sign)
	for i := 0; i < n; i++ {
		dst = append(dst, byte(mag>>(8*i)))
	}
	return dst
}

// mergeOperator is the grocksdb adapter. It implements FullMerge only: the
// NIF implements no partial merge, and grocksdb reports "cannot combine" for
// partial merges of an operator without one, which is what RocksDB expects.
// It remembers the last key whose merge failed, because an iterator that hits
// a failed merge only says "Corruption" and becomes invalid: the reader uses
// this to name the key.
type mergeOperator struct {
	mu       sync.Mutex
	lastFail []byte
	fails    uint64
}

func (m *mergeOperator) Name() string { return format.MergeOperatorName }

func (m *mergeOperator) FullMerge(key, existing []byte, operands [][]byte) ([]byte, bool) {
	out, ok := MergeCounter(existing, operands)
	if !ok {
		m.mu.Lock()
		m.lastFail = append(m.lastFail[:0], key...)
		m.fails++
		m.mu.Unlock()
	}
	return out, ok
}

// failure returns the last key whose merge failed and how many merges failed.
func (m *mergeOperator) failure() ([]byte, uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]byte(nil), m.lastFail...), m.fails
}
