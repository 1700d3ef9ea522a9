package format

import (
	"encoding/binary"

	"github.com/ankusa/ankusa-store/pkg/format/etf"
)

// operandHead is term_to_binary({int_add, _}) up to the integer: version,
// SMALL_TUPLE_EXT arity 2, SMALL_ATOM_UTF8_EXT "int_add".
var operandHead = []byte{etfVersion, 104, 2, 119, byte(len(CounterOpAtom)),
	'i', 'n', 't', '_', 'a', 'd', 'd'}

// AppendCounterOperand appends term_to_binary({int_add, delta}) to dst.
func AppendCounterOperand(dst []byte, delta int64) []byte {
	dst = append(dst, operandHead...)
	// etf.AppendInt writes a whole term, version byte included; drop that byte.
	n := len(dst)
	dst = etf.AppendInt(dst, delta)
	copy(dst[n:], dst[n+1:])
	return dst[:len(dst)-1]
}

// EncodeCounterOperand is term_to_binary({int_add, delta}), the only way a
// counter ever changes.
func EncodeCounterOperand(delta int64) []byte {
	return AppendCounterOperand(make([]byte, 0, len(operandHead)+9), delta)
}

// DecodeCounterOperand reads a merge operand by the merge operator's rules: a
// tuple of at least two elements, int_add first, a 64-bit integer second;
// further elements and trailing bytes are ignored.
func DecodeCounterOperand(b []byte) (int64, error) {
	t, _, err := etf.DecodePrefix(b)
	if err != nil {
		return 0, valueErr("counter operand", "%v", err)
	}
	tup, ok := t.(etf.Tuple)
	if !ok || len(tup) < 2 || tup[0] != etf.Atom(CounterOpAtom) {
		return 0, valueErr("counter operand", "want {int_add, delta}, got %s", etf.Format(t))
	}
	d, ok := tup[1].(int64)
	if !ok {
		return 0, valueErr("counter operand", "delta must be a 64-bit integer, got %s", etf.Format(tup[1]))
	}
	return d, nil
}

// DecodeCounterValue reads a counter's value: an ETF integer that fits in int64.
func DecodeCounterValue(b []byte) (int64, error) {
	// What the merge operator writes back for a counter below 2^31, read
	// without the general decoder: `tenants ls` reads a million of these.
	switch {
	case len(b) == 3 && b[0] == etfVersion && b[1] == etf.TagSmallInteger:
		return int64(b[2]), nil
	case len(b) == 6 && b[0] == etfVersion && b[1] == etf.TagInteger:
		return int64(int32(binary.BigEndian.Uint32(b[2:]))), nil
	}
	t, err := etf.Decode(b)
	if err != nil {
		return 0, valueErr("counter value", "%v", err)
	}
	v, ok := t.(int64)
	if !ok {
		return 0, valueErr("counter value", "want a 64-bit integer, got %s", etf.Format(t))
	}
	return v, nil
}

// EncodeCounterValue is term_to_binary(v), what the merge operator leaves behind.
func EncodeCounterValue(v int64) []byte { return etf.AppendInt(make([]byte, 0, 10), v) }
