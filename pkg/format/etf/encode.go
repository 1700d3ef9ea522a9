package etf

import (
	"encoding/binary"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"unicode/utf8"
)

// Encode returns 131 followed by t, byte for byte what term_to_binary/1 of
// OTP 26 and later writes for the same term (maps in the Map's order, which
// for a decoded map is the order the node wrote).
func Encode(t Term) ([]byte, error) { return AppendEncode(nil, t) }

// AppendEncode appends Encode(t) to dst. On error dst is returned unchanged
// in length.
func AppendEncode(dst []byte, t Term) ([]byte, error) {
	n := len(dst)
	out, err := appendTerm(append(dst, TagVersion), t)
	if err != nil {
		return dst[:n], err
	}
	return out, nil
}

// AppendInt appends term_to_binary(v): the counter operands and values are
// integers, and this path allocates nothing.
func AppendInt(dst []byte, v int64) []byte {
	return appendInt64(append(dst, TagVersion), v)
}

// AppendIntTerm appends the integer v as a term inside another (no version byte): what
// Encode writes for it within a tuple.
func AppendIntTerm(dst []byte, v int64) []byte { return appendInt64(dst, v) }

// AppendBinaryTerm appends b as a binary term inside another (no version byte); false when
// it is too long for one (Encode's ErrTooLarge), dst unchanged.
func AppendBinaryTerm(dst, b []byte) ([]byte, bool) {
	if uint64(len(b)) > math.MaxUint32 {
		return dst, false
	}
	dst = binary.BigEndian.AppendUint32(append(dst, TagBinary), uint32(len(b)))
	return append(dst, b...), true
}

func appendInt64(dst []byte, v int64) []byte {
	switch {
	case v >= 0 && v <= 255:
		return append(dst, TagSmallInteger, byte(v))
	case v >= math.MinInt32 && v <= math.MaxInt32:
		return binary.BigEndian.AppendUint32(append(dst, TagInteger), uint32(v))
	}
	sign := byte(0)
	u := uint64(v)
	if v < 0 {
		sign = 1
		u = -u // two's complement: right for MinInt64 too
	}
	n := (bitLen64(u) + 7) / 8
	dst = append(dst, TagSmallBig, byte(n), sign)
	for i := 0; i < n; i++ {
		dst = append(dst, byte(u>>(8*i)))
	}
	return dst
}

func bitLen64(u uint64) int {
	n := 0
	for u != 0 {
		n++
		u >>= 1
	}
	return n
}

func encErr(err error, detail string) error { return &EncodeError{Err: err, Detail: detail} }

// listEnd is pushed on the encoder's stack to write a proper list's 106.
type listEnd struct{}

// appendTerm writes t with an explicit stack of the terms still to write, as
// the decoder reads, so any term the decoder returns (nested as deeply as its
// input was long) can be written back. t must be a tree: a value that
// contains itself never ends.
func appendTerm(dst []byte, t Term) ([]byte, error) {
	var local [16]Term // an envelope needs about ten
	work := append(local[:0], t)
	for len(work) > 0 {
		t := work[len(work)-1]
		work = work[:len(work)-1]
		var err error
		switch v := t.(type) {
		case listEnd:
			dst = append(dst, TagNil)
		case Tuple:
			if len(v) <= 255 {
				dst = append(dst, TagSmallTuple, byte(len(v)))
			} else {
				if uint64(len(v)) > math.MaxUint32 {
					return dst, encErr(ErrTooLarge, "tuple arity")
				}
				dst = binary.BigEndian.AppendUint32(append(dst, TagLargeTuple), uint32(len(v)))
			}
			for i := len(v) - 1; i >= 0; i-- {
				work = append(work, v[i])
			}
		case List:
			if dst, work, err = appendList(dst, v, work); err != nil {
				return dst, err
			}
		case Map:
			if uint64(len(v)) > math.MaxUint32 {
				return dst, encErr(ErrTooLarge, "map size")
			}
			if i := duplicateKey(v); i >= 0 {
				return dst, encErr(ErrInvalid, "duplicate map key "+Format(v[i].Key))
			}
			dst = binary.BigEndian.AppendUint32(append(dst, TagMap), uint32(len(v)))
			for i := len(v) - 1; i >= 0; i-- {
				work = append(work, v[i].Value, v[i].Key)
			}
		default:
			if dst, err = appendLeaf(dst, t); err != nil {
				return dst, err
			}
		}
	}
	return dst, nil
}

// appendLeaf writes a term that holds no other term.
func appendLeaf(dst []byte, t Term) ([]byte, error) {
	switch v := t.(type) {
	case int64:
		return appendInt64(dst, v), nil
	case *big.Int:
		return appendBig(dst, v)
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return dst, encErr(ErrInvalid, "non-finite float "+strconv.FormatFloat(v, 'g', -1, 64))
		}
		return binary.BigEndian.AppendUint64(append(dst, TagNewFloat), math.Float64bits(v)), nil
	case Atom:
		return appendAtom(dst, v)
	case Binary:
		out, ok := AppendBinaryTerm(dst, v)
		if !ok {
			return dst, encErr(ErrTooLarge, "binary size")
		}
		return out, nil
	case BitBinary:
		return appendBitBinary(dst, v)
	case Opaque:
		// Re-emitting is only safe if Raw is one whole, valid term of its
		// tag; otherwise we would write a row no node can read.
		d := decoder{b: v.Raw}
		if len(v.Raw) == 0 || v.Raw[0] != v.Tag || !isOpaqueTag(v.Tag) {
			return dst, encErr(ErrInvalid, "opaque value with tag "+strconv.Itoa(int(v.Tag)))
		}
		if t, err := d.term(); err != nil || d.off != len(v.Raw) || t.(Opaque).Tag != v.Tag {
			return dst, encErr(ErrInvalid, "opaque value is not one well-formed term")
		}
		return append(dst, v.Raw...), nil
	}
	if t == nil {
		return dst, encErr(ErrUnsupported, "nil (use List{} for [] or AtomNil for nil)")
	}
	return dst, encErr(ErrUnsupported, reflect.TypeOf(t).String())
}

func isOpaqueTag(tag byte) bool {
	switch tag {
	case TagNewPid, TagPid, TagNewerReference, TagNewReference, TagReference,
		TagV4Port, TagPort, TagNewPort, TagNewFun, TagExport:
		return true
	}
	return false
}

func appendBig(dst []byte, v *big.Int) ([]byte, error) {
	if v == nil {
		return dst, encErr(ErrUnsupported, "nil *big.Int")
	}
	if v.IsInt64() {
		return appendInt64(dst, v.Int64()), nil
	}
	mag := v.Bytes() // big-endian magnitude
	n := len(mag)
	if n <= 255 {
		dst = append(dst, TagSmallBig, byte(n))
	} else {
		if uint64(n) > math.MaxUint32 {
			return dst, encErr(ErrTooLarge, "bignum size")
		}
		dst = binary.BigEndian.AppendUint32(append(dst, TagLargeBig), uint32(n))
	}
	sign := byte(0)
	if v.Sign() < 0 {
		sign = 1
	}
	dst = append(dst, sign)
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, mag[i])
	}
	return dst, nil
}

func appendAtom(dst []byte, a Atom) ([]byte, error) {
	if !utf8.ValidString(string(a)) {
		return dst, encErr(ErrInvalid, "atom is not valid UTF-8: "+strconv.Quote(string(a)))
	}
	if len(a) > maxAtomChars && utf8.RuneCountInString(string(a)) > maxAtomChars {
		return dst, encErr(ErrInvalid, "atom longer than 255 characters")
	}
	if len(a) <= 255 {
		dst = append(dst, TagSmallAtomUTF8, byte(len(a)))
	} else {
		dst = binary.BigEndian.AppendUint16(append(dst, TagAtomUTF8), uint16(len(a)))
	}
	return append(dst, a...), nil
}

// appendList writes a list's header and pushes its elements and tail (or
// listEnd) on work.
func appendList(dst []byte, l List, work []Term) ([]byte, []Term, error) {
	elems, tail := flatten(l)
	if len(elems) == 0 {
		if tail == nil {
			return append(dst, TagNil), work, nil
		}
		return dst, append(work, tail), nil // [|T] is T
	}
	if tail == nil && len(elems) <= maxStringExtLen && allBytes(elems) {
		dst = binary.BigEndian.AppendUint16(append(dst, TagString), uint16(len(elems)))
		for _, e := range elems {
			b, _ := byteValue(e)
			dst = append(dst, b)
		}
		return dst, work, nil
	}
	if uint64(len(elems)) > math.MaxUint32 {
		return dst, work, encErr(ErrTooLarge, "list length")
	}
	dst = binary.BigEndian.AppendUint32(append(dst, TagList), uint32(len(elems)))
	if tail == nil {
		work = append(work, listEnd{})
	} else {
		work = append(work, tail)
	}
	for i := len(elems) - 1; i >= 0; i-- {
		work = append(work, elems[i])
	}
	return dst, work, nil
}

func allBytes(elems []Term) bool {
	for _, e := range elems {
		if _, ok := byteValue(e); !ok {
			return false
		}
	}
	return true
}

func byteValue(t Term) (byte, bool) {
	switch v := t.(type) {
	case int64:
		return byte(v), v >= 0 && v <= 255
	case *big.Int:
		if v != nil && v.IsInt64() && v.Int64() >= 0 && v.Int64() <= 255 {
			return byte(v.Int64()), true
		}
	}
	return 0, false
}

func appendBitBinary(dst []byte, v BitBinary) ([]byte, error) {
	data, bits, ok := bitsOf(v)
	if !ok {
		return dst, encErr(ErrInvalid, "bit binary with "+strconv.Itoa(int(v.Bits))+" bits in the last of "+strconv.Itoa(len(v.Data))+" bytes")
	}
	if bits == 8 || bits == 0 {
		return appendLeaf(dst, Binary(data))
	}
	if uint64(len(data)) > math.MaxUint32 {
		return dst, encErr(ErrTooLarge, "bit binary size")
	}
	dst = binary.BigEndian.AppendUint32(append(dst, TagBitBinary), uint32(len(data)))
	return append(append(dst, bits), data...), nil
}
