package health

import (
	"encoding/binary"
	"math"
	"unicode/utf8"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/format/etf"
)

// Fast paths for the two ETF values a fold reads per row: the ord in a dead
// row's value and the size in its delivery row. They read the encoding the
// node writes (term_to_binary, OTP 25 or 26) without building terms, and
// hand anything else to format's general decoders, so that the result is
// always what format.DecodeDeadValue and format.DecodeDelivery say
// (FuzzDeadValueOrd and FuzzDeliverySize hold them to it).

var be = binary.BigEndian

// deadValueOrd returns the ord a dead row's value carries; hasOrd is false
// for a format 2 value {source_id, id}.
func deadValueOrd(v []byte) (ord uint32, hasOrd bool, err error) {
	if ord, hasOrd, ok := fastDeadOrd(v); ok {
		return ord, hasOrd, nil
	}
	dv, err := format.DecodeDeadValue(v)
	if err != nil {
		return 0, false, err
	}
	return dv.Ord, dv.HasOrd, nil
}

// fastDeadOrd reads <<131, 104, 2 or 3, binary, binary[, small int or int]>>.
func fastDeadOrd(v []byte) (ord uint32, hasOrd, ok bool) {
	if len(v) < 3 || v[0] != etf.TagVersion || v[1] != etf.TagSmallTuple || (v[2] != 2 && v[2] != 3) {
		return 0, false, false
	}
	p := 3
	for i := 0; i < 2; i++ {
		if p+5 > len(v) || v[p] != etf.TagBinary {
			return 0, false, false
		}
		n := int(be.Uint32(v[p+1:]))
		p += 5
		if n > len(v)-p {
			return 0, false, false
		}
		p += n
	}
	if v[2] == 2 {
		return 0, false, p == len(v)
	}
	switch {
	case p+2 == len(v) && v[p] == etf.TagSmallInteger:
		return uint32(v[p+1]), true, true
	case p+5 == len(v) && v[p] == etf.TagInteger:
		if x := int32(be.Uint32(v[p+1:])); x >= 0 {
			return uint32(x), true, true
		}
	}
	return 0, false, false
}

// deliverySize returns the size of a delivery row.
func deliverySize(v []byte) (uint64, error) {
	if size, ok := fastDeliverySize(v); ok {
		return size, nil
	}
	d, err := format.DecodeDelivery(v)
	if err != nil {
		return 0, err
	}
	return d.Size, nil
}

// fastDeliverySize reads a delivery row map whose keys are the five known
// atoms, each at most once, with values of the types the node writes.
func fastDeliverySize(v []byte) (uint64, bool) {
	if len(v) < 6 || v[0] != etf.TagVersion || v[1] != etf.TagMap {
		return 0, false
	}
	arity := be.Uint32(v[2:])
	if arity > 5 {
		return 0, false
	}
	p := 6
	var seen uint8
	var size uint64
	for i := uint32(0); i < arity; i++ {
		name, q, ok := etfAtomAt(v, p)
		if !ok {
			return 0, false
		}
		p = q
		var bit uint8
		switch string(name) {
		case format.DeliveryKeySize:
			bit = 1
			n, q, ok := etfUintAt(v, p)
			if !ok {
				return 0, false
			}
			size, p = n, q
		case format.DeliveryKeySink:
			bit = 2
			n, q, ok := etfUintAt(v, p)
			if !ok || n > math.MaxUint16 {
				return 0, false
			}
			p = q
		case format.DeliveryKeyAttempts:
			bit = 4
			q, ok := etfInt64End(v, p)
			if !ok {
				return 0, false
			}
			p = q
		case format.DeliveryKeyStatus:
			bit = 8
			_, q, ok := etfAtomAt(v, p)
			if !ok {
				return 0, false
			}
			p = q
		case format.DeliveryKeyLastError:
			bit = 16
			switch {
			case p+5 <= len(v) && v[p] == etf.TagBinary:
				n := int(be.Uint32(v[p+1:]))
				if n > len(v)-p-5 {
					return 0, false
				}
				p += 5 + n
			default:
				a, q, ok := etfAtomAt(v, p)
				if !ok || string(a) != "nil" {
					return 0, false
				}
				p = q
			}
		default:
			return 0, false
		}
		if seen&bit != 0 {
			return 0, false
		}
		seen |= bit
	}
	if seen&1 == 0 || p != len(v) {
		return 0, false
	}
	return size, true
}

// etfAtomAt reads an atom in any of its four encodings; UTF-8 ones must be
// valid UTF-8, as the general decoder demands.
func etfAtomAt(v []byte, p int) (name []byte, next int, ok bool) {
	if p >= len(v) {
		return nil, 0, false
	}
	var n, h int
	switch v[p] {
	case etf.TagSmallAtom, etf.TagSmallAtomUTF8:
		if p+2 > len(v) {
			return nil, 0, false
		}
		n, h = int(v[p+1]), 2
	case etf.TagAtom, etf.TagAtomUTF8:
		if p+3 > len(v) {
			return nil, 0, false
		}
		n, h = int(be.Uint16(v[p+1:])), 3
	default:
		return nil, 0, false
	}
	// Longer atoms, and non-ASCII ones (Latin-1 atoms are re-encoded, UTF-8
	// ones validated), are left to the general decoder.
	if n > 255 || n > len(v)-p-h {
		return nil, 0, false
	}
	name = v[p+h : p+h+n]
	for _, c := range name {
		if c >= utf8.RuneSelf {
			return nil, 0, false
		}
	}
	return name, p + h + n, true
}

// etfUintAt reads a non-negative integer (97, 98 or a small big of at most
// eight bytes) as an unsigned value.
func etfUintAt(v []byte, p int) (uint64, int, bool) {
	if p >= len(v) {
		return 0, 0, false
	}
	switch v[p] {
	case etf.TagSmallInteger:
		if p+2 > len(v) {
			return 0, 0, false
		}
		return uint64(v[p+1]), p + 2, true
	case etf.TagInteger:
		if p+5 > len(v) {
			return 0, 0, false
		}
		x := int32(be.Uint32(v[p+1:]))
		if x < 0 {
			return 0, 0, false
		}
		return uint64(x), p + 5, true
	case etf.TagSmallBig:
		if p+3 > len(v) {
			return 0, 0, false
		}
		n := int(v[p+1])
		if v[p+2] != 0 || n > 8 || n > len(v)-p-3 {
			return 0, 0, false
		}
		var x uint64
		for i := 0; i < n; i++ {
			x |= uint64(v[p+3+i]) << (8 * i)
		}
		return x, p + 3 + n, true
	}
	return 0, 0, false
}

// etfInt64End skips an integer that fits in int64 and returns where it ends.
func etfInt64End(v []byte, p int) (int, bool) {
	if p >= len(v) {
		return 0, false
	}
	switch v[p] {
	case etf.TagSmallInteger:
		return p + 2, p+2 <= len(v)
	case etf.TagInteger:
		return p + 5, p+5 <= len(v)
	case etf.TagSmallBig:
		if p+3 > len(v) {
			return 0, false
		}
		n := int(v[p+1])
		if n > 8 || n > len(v)-p-3 {
			return 0, false
		}
		var x uint64
		for i := 0; i < n; i++ {
			x |= uint64(v[p+3+i]) << (8 * i)
		}
		neg := v[p+2] != 0
		if (!neg && x > math.MaxInt64) || (neg && x > 1<<63) {
			return 0, false
		}
		return p + 3 + n, true
	}
	return 0, false
}
