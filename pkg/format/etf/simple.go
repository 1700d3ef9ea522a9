package etf

import "encoding/binary"

// Readers of one encoded term (no version byte: a value MapAtoms returns) of
// a simple shape, answering only when the whole of v is exactly that shape,
// and with what the decoder would make of it; anything else is false, and
// the caller decodes. v must come from a term the skimmer checked (MapAtoms
// answered): they do not check what it has.

// ReadBinary is v as a binary (109): its bytes, within v.
func ReadBinary(v []byte) ([]byte, bool) {
	if len(v) < 5 || v[0] != TagBinary || uint64(binary.BigEndian.Uint32(v[1:])) != uint64(len(v)-5) {
		return nil, false
	}
	return v[5:], true
}

// ReadAtom is v as an atom of ASCII text, in any of the four atom tags: the
// text, within v.
func ReadAtom(v []byte) ([]byte, bool) {
	s := skimmer{b: v}
	a, ok := s.asciiAtom()
	return a, ok && s.off == len(v)
}

// ReadInt64 is v as an integer of the three tags a 64-bit integer of up to
// 56 bits is written in: 97, 98, and 110 of at most 7 bytes.
func ReadInt64(v []byte) (int64, bool) {
	switch {
	case len(v) == 2 && v[0] == TagSmallInteger:
		return int64(v[1]), true
	case len(v) == 5 && v[0] == TagInteger:
		return int64(int32(binary.BigEndian.Uint32(v[1:]))), true
	case len(v) >= 3 && v[0] == TagSmallBig && int(v[1]) <= 7 && len(v) == 3+int(v[1]):
		var n int64
		for i := len(v) - 1; i >= 3; i-- { // little-endian digits
			n = n<<8 | int64(v[i])
		}
		if v[2] != 0 { // any sign byte but 0 is negative, as in the decoder
			n = -n
		}
		return n, true
	}
	return 0, false
}

// ReadBinaryPairs is v as a proper list (106, or 108 ending in 106) of
// 2-tuples (104) of binaries: each pair, within v, handed to fn in order.
func ReadBinaryPairs(v []byte, fn func(a, b []byte)) bool {
	if len(v) == 1 && v[0] == TagNil {
		return true
	}
	if len(v) < 6 || v[0] != TagList || v[len(v)-1] != TagNil {
		return false
	}
	n := binary.BigEndian.Uint32(v[1:])
	off, end := 5, len(v)-1
	bin := func() ([]byte, bool) {
		if end-off < 5 || v[off] != TagBinary {
			return nil, false
		}
		l := uint64(binary.BigEndian.Uint32(v[off+1:]))
		if l > uint64(end-off-5) {
			return nil, false
		}
		b := v[off+5 : off+5+int(l)]
		off += 5 + int(l)
		return b, true
	}
	// Two passes: the first checks the shape, so that fn sees pairs only of
	// a list that is all pairs.
	for pass := 0; pass < 2; pass++ {
		off = 5
		for range n {
			if end-off < 2 || v[off] != TagSmallTuple || v[off+1] != 2 {
				return false
			}
			off += 2
			a, ok1 := bin()
			b, ok2 := bin()
			if !ok1 || !ok2 {
				return false
			}
			if pass == 1 {
				fn(a, b)
			}
		}
		if off != end {
			return false
		}
	}
	return true
}

// TupleElems reads the term at the start of b (the version byte first;
// trailing bytes are ignored, as DecodePrefix ignores them) when it is a
// small tuple (104) of at most len(elems) elements the skimmer checks as the
// decoder would: elems[:n] are their encodings, within b. ok is false for
// anything else (a compressed term, a larger tuple, an element the skimmer
// does not check), which the caller decodes.
func TupleElems(b []byte, elems [][]byte) (n int, ok bool) {
	if len(b) < 3 || b[0] != TagVersion || b[1] != TagSmallTuple || int(b[2]) > len(elems) {
		return 0, false
	}
	n = int(b[2])
	s := skimmer{b: b, off: 3}
	for i := range n {
		start := s.off
		if !s.term(1) {
			return 0, false
		}
		elems[i] = b[start:s.off]
	}
	return n, true
}
