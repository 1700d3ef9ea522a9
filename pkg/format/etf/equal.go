package etf

import (
	"bytes"
	"math"
	"math/big"
	"slices"
)

// Equal reports whether a and b are the same Erlang term (=:=), whatever
// encoding or Go representation carried them: an int64 equals a *big.Int of
// the same value, a list with a list tail equals the flattened list, a
// BitBinary of whole bytes equals a Binary, and maps compare as sets of pairs.
// Floats compare by bit pattern, so -0.0 and 0.0 differ, as in OTP 27.
func Equal(a, b Term) bool { return equal(a, b, 0) }

// equalDepthCap stops a self-referencing Go value (a Tuple that contains
// itself) from recursing forever; decoded terms never get near it.
const equalDepthCap = 4 * MaxDepth

func equal(a, b Term, depth int) bool {
	if depth > equalDepthCap {
		return false
	}
	a, b = unwrapCons(a), unwrapCons(b)
	switch x := a.(type) {
	case int64, *big.Int:
		return equalInt(x, b)
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case Atom:
		y, ok := b.(Atom)
		return ok && x == y
	case Tuple:
		y, ok := b.(Tuple)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i], depth+1) {
				return false
			}
		}
		return true
	case List:
		y, ok := b.(List)
		if !ok {
			return false
		}
		xe, xt := flatten(x)
		ye, yt := flatten(y)
		if len(xe) != len(ye) || (xt == nil) != (yt == nil) {
			return false
		}
		for i := range xe {
			if !equal(xe[i], ye[i], depth+1) {
				return false
			}
		}
		return xt == nil || equal(xt, yt, depth+1)
	case Binary, BitBinary:
		xd, xb, ok1 := bitsOf(x)
		yd, yb, ok2 := bitsOf(b)
		return ok1 && ok2 && xb == yb && bytes.Equal(xd, yd)
	case Map:
		y, ok := b.(Map)
		return ok && equalMaps(x, y, depth)
	case Opaque:
		y, ok := b.(Opaque)
		return ok && x.Tag == y.Tag && bytes.Equal(x.Raw, y.Raw)
	}
	return false
}

// unwrapCons turns a List with no elements but a tail into that tail: [|T]
// is T in Erlang.
func unwrapCons(t Term) Term {
	for i := 0; i < equalDepthCap; i++ {
		l, ok := t.(List)
		if !ok || len(l.Elems) != 0 || l.Tail == nil {
			return t
		}
		t = l.Tail
	}
	return t
}

func equalInt(a, b Term) bool {
	switch y := b.(type) {
	case int64:
		if x, ok := a.(int64); ok {
			return x == y
		}
	case *big.Int:
	default:
		return false
	}
	x, _ := BigInt(a)
	y, _ := BigInt(b)
	return x != nil && y != nil && x.Cmp(y) == 0
}

// flatten folds list tails into one element slice; it allocates only for
// the unusual case of a List whose Tail is a List.
func flatten(l List) ([]Term, Term) {
	elems, tail := l.Elems, l.Tail
	copied := false
	for {
		t, ok := tail.(List)
		if !ok {
			return elems, tail
		}
		if !copied {
			elems = slices.Clip(elems)
			copied = true
		}
		elems = append(elems, t.Elems...)
		tail = t.Tail
	}
}

// bitsOf returns a bitstring's bytes (last one masked to its significant
// bits) and the number of significant bits in the last byte (8 for whole
// bytes), so that Binary and BitBinary compare by value.
func bitsOf(t Term) ([]byte, uint8, bool) {
	switch v := t.(type) {
	case Binary:
		if len(v) == 0 {
			return nil, 0, true
		}
		return v, 8, true
	case BitBinary:
		if len(v.Data) == 0 {
			return nil, 0, v.Bits == 0 || v.Bits == 8
		}
		if v.Bits == 0 || v.Bits > 8 {
			return nil, 0, false
		}
		if v.Bits == 8 || v.Data[len(v.Data)-1]&(0xff>>v.Bits) == 0 {
			return v.Data, v.Bits, true
		}
		m := clone(v.Data)
		m[len(m)-1] &= byte(0xff << (8 - v.Bits))
		return m, v.Bits, true
	}
	return nil, 0, false
}

func equalMaps(x, y Map, depth int) bool {
	if len(x) != len(y) {
		return false
	}
	if len(x) <= 16 {
		for _, p := range x {
			found := false
			for _, q := range y {
				if equal(p.Key, q.Key, depth+1) {
					found = equal(p.Value, q.Value, depth+1)
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	}
	// Bigger maps: bucket y's keys by hash instead of a quadratic scan.
	idx := make(map[uint64][]int, len(y))
	for i, q := range y {
		h := hashTerm(q.Key, depth+1)
		idx[h] = append(idx[h], i)
	}
	for _, p := range x {
		found := false
		for _, i := range idx[hashTerm(p.Key, depth+1)] {
			if equal(p.Key, y[i].Key, depth+1) {
				found = equal(p.Value, y[i].Value, depth+1)
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// duplicateKey returns the index of a key that repeats an earlier one, or -1.
func duplicateKey(m Map) int {
	if len(m) <= 8 {
		for i := 1; i < len(m); i++ {
			for j := 0; j < i; j++ {
				if Equal(m[i].Key, m[j].Key) {
					return i
				}
			}
		}
		return -1
	}
	type hi struct {
		h uint64
		i int
	}
	hs := make([]hi, len(m))
	for i, p := range m {
		hs[i] = hi{hashTerm(p.Key, 0), i}
	}
	slices.SortFunc(hs, func(a, b hi) int {
		switch {
		case a.h < b.h:
			return -1
		case a.h > b.h:
			return 1
		}
		return a.i - b.i
	})
	for i := 1; i < len(hs); i++ {
		for j := i - 1; j >= 0 && hs[j].h == hs[i].h; j-- {
			if Equal(m[hs[i].i].Key, m[hs[j].i].Key) {
				return hs[i].i
			}
		}
	}
	return -1
}

// hashTerm is consistent with Equal: terms that are Equal hash the same.
func hashTerm(t Term, depth int) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	mix := func(v uint64) {
		h ^= v
		h *= prime
		h ^= h >> 29
	}
	mixBytes := func(b []byte) {
		mix(uint64(len(b)))
		for _, c := range b {
			h ^= uint64(c)
			h *= prime
		}
	}
	mixString := func(s string) {
		mix(uint64(len(s)))
		for i := 0; i < len(s); i++ {
			h ^= uint64(s[i])
			h *= prime
		}
	}
	if depth > equalDepthCap {
		return h
	}
	switch v := t.(type) {
	case int64:
		mix(1)
		mix(uint64(v))
	case *big.Int:
		if v == nil {
			break
		}
		if v.IsInt64() {
			mix(1)
			mix(uint64(v.Int64()))
		} else {
			mix(2)
			mix(uint64(v.Sign() + 1))
			mixBytes(v.Bytes())
		}
	case float64:
		mix(3)
		mix(math.Float64bits(v))
	case Atom:
		mix(4)
		mixString(string(v))
	case Tuple:
		mix(5)
		mix(uint64(len(v)))
		for _, e := range v {
			mix(hashTerm(e, depth+1))
		}
	case List:
		if len(v.Elems) == 0 && v.Tail != nil {
			return hashTerm(v.Tail, depth+1)
		}
		mix(6)
		var tail Term = v
		for {
			l, ok := tail.(List)
			if !ok {
				break
			}
			for _, e := range l.Elems {
				mix(hashTerm(e, depth+1))
			}
			tail = l.Tail
		}
		if tail != nil {
			mix(7)
			mix(hashTerm(tail, depth+1))
		}
	case Binary, BitBinary:
		data, bits, _ := bitsOf(v)
		mix(8)
		mix(uint64(bits))
		mixBytes(data)
	case Map:
		mix(9)
		var sum uint64
		for _, p := range v {
			k := hashTerm(p.Key, depth+1)
			sum += k*31 + hashTerm(p.Value, depth+1)*prime
		}
		mix(sum)
	case Opaque:
		mix(10)
		mix(uint64(v.Tag))
		mixBytes(v.Raw)
	}
	return h
}
