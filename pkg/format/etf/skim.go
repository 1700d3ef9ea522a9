package etf

import (
	"encoding/binary"
	"math"
)

// maxSkimKeys bounds the top-level maps FindMapAtom reads itself: the
// envelope has eight keys; a bigger map goes to the decoder, whose duplicate
// check scales.
const maxSkimKeys = 32

// maxSkimDepth bounds the skimmer's recursion. It is not a limit on what
// decodes (the decoder has none, as binary_to_term has none): past it,
// FindMapAtom gives up and the caller decodes, so it must never answer
// there. An envelope nests three levels (map, headers list, header tuple).
const maxSkimDepth = 64

// FindMapAtom reads the term at the start of b (trailing bytes are ignored,
// as DecodePrefix ignores them) and, when it is a map, returns the encoding
// of the value under the atom key, without building any term: a migration or
// a fold reads every hook's tenant_id, and decoding whole envelopes (their
// headers and body copied, every element boxed) was most of that work.
//
// ok reports that the answer is DecodePrefix's: b decodes, the term is a map
// (isMap), and found says whether key is among its keys. ok is false when b
// holds anything FindMapAtom does not check itself as the decoder does
// (compressed terms, nested maps, improper lists, old floats, large bignums,
// bit binaries, pids and the like, non-ASCII atoms, keys that are not ASCII
// atoms, nesting of maxSkimDepth or more, a damaged term): the caller decodes
// b then. key must be ASCII.
func FindMapAtom(b []byte, key string) (val []byte, found, isMap, ok bool) {
	var v [1][]byte
	isMap, ok = MapAtoms(b, []string{key}, v[:])
	return v[0], v[0] != nil, isMap, ok
}

// MapAtoms is FindMapAtom for several keys at once: vals[i] (len(vals) must
// be len(keys)) is the encoding of the value under keys[i], nil when the map
// has no such key. A reader of whole envelopes (dlq show and export) takes
// each field's encoding from it, and decodes the whole term only when a
// field is not of the simple shape it reads itself (ReadBinary and the like).
func MapAtoms(b []byte, keys []string, vals [][]byte) (isMap, ok bool) {
	clear(vals)
	if len(b) < 2 || b[0] != TagVersion || b[1] != TagMap {
		return false, false
	}
	s := skimmer{b: b, off: 2}
	n, ok := s.u32()
	if !ok || n > maxSkimKeys || uint64(n)*2 > uint64(s.remaining()) {
		return false, false
	}
	var seen [maxSkimKeys][]byte
	for i := range int(n) {
		k, ok := s.asciiAtom()
		if !ok {
			return false, false
		}
		for _, prev := range seen[:i] {
			if string(prev) == string(k) {
				return false, false // the decoder's error, in its words
			}
		}
		seen[i] = k
		start := s.off
		if !s.term(1) {
			return false, false
		}
		for j, key := range keys {
			if string(k) == key {
				vals[j] = b[start:s.off]
			}
		}
	}
	return true, true
}

// skimmer walks a term as decoder.term does, checking the same things, and
// builds nothing; it gives up (false) on what it does not check.
type skimmer struct {
	b   []byte
	off int
}

func (s *skimmer) remaining() int { return len(s.b) - s.off }

func (s *skimmer) skip(n int) bool {
	if n < 0 || n > s.remaining() {
		return false
	}
	s.off += n
	return true
}

func (s *skimmer) u8() (byte, bool) {
	if s.remaining() < 1 {
		return 0, false
	}
	s.off++
	return s.b[s.off-1], true
}

func (s *skimmer) u16() (int, bool) {
	if s.remaining() < 2 {
		return 0, false
	}
	s.off += 2
	return int(binary.BigEndian.Uint16(s.b[s.off-2:])), true
}

func (s *skimmer) u32() (uint32, bool) {
	if s.remaining() < 4 {
		return 0, false
	}
	s.off += 4
	return binary.BigEndian.Uint32(s.b[s.off-4:]), true
}

// asciiAtom reads an atom of any of the four tags whose text is ASCII and at
// most 255 characters: the same atom in every form.
func (s *skimmer) asciiAtom() ([]byte, bool) {
	tag, ok := s.u8()
	if !ok {
		return nil, false
	}
	var n int
	switch tag {
	case TagAtom, TagAtomUTF8:
		n, ok = s.u16()
	case TagSmallAtom, TagSmallAtomUTF8:
		var c byte
		c, ok = s.u8()
		n = int(c)
	default:
		return nil, false
	}
	if !ok || n > maxAtomChars || n > s.remaining() {
		return nil, false
	}
	a := s.b[s.off : s.off+n]
	for _, c := range a {
		if c >= 0x80 {
			return nil, false
		}
	}
	s.off += n
	return a, true
}

func (s *skimmer) term(depth int) bool {
	if s.remaining() < 1 {
		return false
	}
	switch tag := s.b[s.off]; tag {
	case TagSmallInteger:
		return s.skip(2)
	case TagInteger:
		return s.skip(5)
	case TagSmallBig:
		s.off++
		n, ok := s.u8()
		if !ok {
			return false
		}
		_, ok = s.u8()
		return ok && s.skip(int(n)) // any sign byte: non-zero is negative, as in the decoder
	case TagNewFloat:
		if s.remaining() < 9 {
			return false
		}
		f := math.Float64frombits(binary.BigEndian.Uint64(s.b[s.off+1:]))
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return false
		}
		s.off += 9
		return true
	case TagAtom, TagSmallAtom, TagAtomUTF8, TagSmallAtomUTF8:
		_, ok := s.asciiAtom()
		return ok
	case TagSmallTuple, TagLargeTuple:
		s.off++
		var n uint64
		if tag == TagSmallTuple {
			c, ok := s.u8()
			if !ok {
				return false
			}
			n = uint64(c)
		} else {
			v, ok := s.u32()
			if !ok {
				return false
			}
			n = uint64(v)
		}
		if depth >= maxSkimDepth || n > uint64(s.remaining()) {
			return false
		}
		for range n {
			if !s.term(depth + 1) {
				return false
			}
		}
		return true
	case TagNil:
		s.off++
		return true
	case TagString:
		s.off++
		n, ok := s.u16()
		return ok && s.skip(n)
	case TagList:
		// A proper list only; any other tail goes to the decoder, which
		// folds chained lists and strings into one.
		if depth >= maxSkimDepth {
			return false
		}
		s.off++
		n, ok := s.u32()
		if !ok || uint64(n)+1 > uint64(s.remaining()) {
			return false
		}
		for range n {
			if !s.term(depth + 1) {
				return false
			}
		}
		if s.remaining() < 1 || s.b[s.off] != TagNil {
			return false
		}
		s.off++
		return true
	case TagBinary:
		s.off++
		n, ok := s.u32()
		return ok && uint64(n) <= uint64(s.remaining()) && s.skip(int(n))
	}
	return false
}
