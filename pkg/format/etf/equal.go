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
//
// It walks with an explicit stack, as the decoder does, because a decoded
// term may nest as deeply as its input is long. A and b must be trees: a
// value that contains itself compares equal to itself (the same slice is the
// same term) but loops against a copy.
func Equal(a, b Term) bool { return equal(a, b, false) }

// equal is Equal; zerosEqual makes 0.0 and -0.0 one term, as =:= has them
// before OTP 27, which is how binary_to_term of OTP 25 judges duplicate map
// keys (#{0.0 => a, -0.0 => b} is refused).
func equal(a, b Term, zerosEqual bool) bool {
	if isLeaf(a) {
		// The common case (map keys are atoms), without a stack.
		return equalLeaf(a, unwrapCons(b), zerosEqual)
	}
	type pair struct{ a, b Term }
	var local [8]pair
	work := append(local[:0], pair{a, b})
	for len(work) > 0 {
		p := work[len(work)-1]
		work = work[:len(work)-1]
		x, y := unwrapCons(p.a), unwrapCons(p.b)
		switch xv := x.(type) {
		case Tuple:
			yv, ok := y.(Tuple)
			if !ok || len(xv) != len(yv) {
				return false
			}
			if len(xv) > 0 && &xv[0] == &yv[0] {
				continue // the same elements
			}
			for i := range xv {
				work = append(work, pair{xv[i], yv[i]})
			}
		case List:
			yv, ok := y.(List)
			if !ok {
				return false
			}
			xe, xt := flatten(xv)
			ye, yt := flatten(yv)
			if len(xe) != len(ye) || (xt == nil) != (yt == nil) {
				return false
			}
			if xt != nil {
				work = append(work, pair{xt, yt})
			}
			if len(xe) > 0 && &xe[0] == &ye[0] {
				continue
			}
			for i := range xe {
				work = append(work, pair{xe[i], ye[i]})
			}
		case Map:
			yv, ok := y.(Map)
			if !ok || len(xv) != len(yv) {
				return false
			}
			pairs, ok := matchKeys(xv, yv, zerosEqual)
			if !ok {
				return false
			}
			for _, ij := range pairs {
				work = append(work, pair{xv[ij[0]].Value, yv[ij[1]].Value})
				if !isLeaf(unwrapCons(xv[ij[0]].Key)) {
					work = append(work, pair{xv[ij[0]].Key, yv[ij[1]].Key})
				}
			}
		default:
			if !equalLeaf(x, y, zerosEqual) {
				return false
			}
		}
	}
	return true
}

func isLeaf(t Term) bool {
	switch t.(type) {
	case Tuple, List, Map:
		return false
	}
	return true
}

// matchKeys pairs each key of x with the key of y it must equal, without
// walking compound keys in full (their pairs go on Equal's stack): leaf keys
// are compared directly, compound ones matched by hash. A compound key whose
// hash several keys of y share is compared here in full, the one case that
// nests a walk in a walk (it needs a 64-bit hash collision). ok false: some
// key of x has no partner.
func matchKeys(x, y Map, zerosEqual bool) (pairs [][2]int, ok bool) {
	pairs = make([][2]int, 0, len(x))
	small := len(y) <= 16
	var byHash map[uint64][]int
	for i, p := range x {
		pk := unwrapCons(p.Key)
		if small && isLeaf(pk) {
			j := slices.IndexFunc(y, func(q MapPair) bool { return equalLeaf(pk, unwrapCons(q.Key), zerosEqual) })
			if j < 0 {
				return nil, false
			}
			pairs = append(pairs, [2]int{i, j})
			continue
		}
		if byHash == nil {
			byHash = make(map[uint64][]int, len(y))
			for j, q := range y {
				if qk := unwrapCons(q.Key); !small || !isLeaf(qk) {
					h := hashTerm(qk, zerosEqual)
					byHash[h] = append(byHash[h], j)
				}
			}
		}
		cands := byHash[hashTerm(pk, zerosEqual)]
		var k int
		switch {
		case isLeaf(pk):
			k = slices.IndexFunc(cands, func(j int) bool { return equalLeaf(pk, unwrapCons(y[j].Key), zerosEqual) })
		case len(cands) == 1:
			k = 0
		default:
			k = slices.IndexFunc(cands, func(j int) bool { return equal(pk, y[j].Key, zerosEqual) })
		}
		if k < 0 {
			return nil, false
		}
		pairs = append(pairs, [2]int{i, cands[k]})
	}
	return pairs, true
}

// equalLeaf compares two terms of which the first holds no other term.
func equalLeaf(a, b Term, zerosEqual bool) bool {
	switch x := a.(type) {
	case int64, *big.Int:
		return equalInt(x, b)
	case float64:
		y, ok := b.(float64)
		if zerosEqual && x == 0 && y == 0 {
			return ok
		}
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case Atom:
		y, ok := b.(Atom)
		return ok && x == y
	case Binary, BitBinary:
		xd, xb, ok1 := bitsOf(x)
		yd, yb, ok2 := bitsOf(b)
		return ok1 && ok2 && xb == yb && bytes.Equal(xd, yd)
	case Opaque:
		y, ok := b.(Opaque)
		return ok && x.Tag == y.Tag && bytes.Equal(x.Raw, y.Raw)
	}
	return false
}

// unwrapCons turns a List with no elements but a tail into that tail: [|T]
// is T in Erlang.
func unwrapCons(t Term) Term {
	for {
		l, ok := t.(List)
		if !ok || len(l.Elems) != 0 || l.Tail == nil {
			return t
		}
		t = l.Tail
	}
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

// duplicateKey returns the index of a key that repeats an earlier one, or -1,
// judged as binary_to_term of OTP 25 judges it (0.0 and -0.0 are one key).
func duplicateKey(m Map) int {
	if len(m) <= 8 {
		for i := 1; i < len(m); i++ {
			for j := 0; j < i; j++ {
				if equal(m[i].Key, m[j].Key, true) {
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
		hs[i] = hi{hashTerm(p.Key, true), i}
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
			if equal(m[hs[i].i].Key, m[hs[j].i].Key, true) {
				return hs[i].i
			}
		}
	}
	return -1
}
