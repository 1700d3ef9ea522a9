package etf

import (
	"math"
	"math/big"
)

const (
	hashSeed  = 14695981039346656037
	hashPrime = 1099511628211
)

func hashMix(h, v uint64) uint64 {
	h ^= v
	h *= hashPrime
	return h ^ h>>29
}

func hashBytes(h uint64, b []byte) uint64 {
	h = hashMix(h, uint64(len(b)))
	for _, c := range b {
		h ^= uint64(c)
		h *= hashPrime
	}
	return h
}

// hashFrame is a container being hashed: its children in order (a map's keys
// and values alternate), then a list's improper tail.
type hashFrame struct {
	kids   []Term
	tail   Term
	h      uint64
	sum    uint64 // a map's pairs, summed so that their order does not count
	key    uint64 // the hash of the key whose value comes next
	i      int
	isMap  bool
	inTail bool
}

func (f *hashFrame) absorb(h uint64) {
	switch {
	case f.inTail || !f.isMap:
		f.h = hashMix(f.h, h)
	case (f.i-1)%2 == 0:
		f.key = h
	default:
		f.sum += f.key*31 + h*hashPrime
	}
}

func (f *hashFrame) next() (Term, bool) {
	if f.i < len(f.kids) {
		f.i++
		return f.kids[f.i-1], true
	}
	if f.tail != nil && !f.inTail {
		f.inTail = true
		f.h = hashMix(f.h, 7)
		return f.tail, true
	}
	return nil, false
}

func (f *hashFrame) result() uint64 {
	if f.isMap {
		return hashMix(f.h, f.sum)
	}
	return f.h
}

// hashTerm is consistent with equal of the same zerosEqual: terms that are
// equal hash the same. Post-order, with an explicit stack, as Equal walks.
func hashTerm(t Term, zerosEqual bool) uint64 {
	var st []hashFrame
	next := t
	for {
		var h uint64
		leaf := true
		switch v := unwrapCons(next).(type) {
		case Tuple:
			st = append(st, hashFrame{kids: v, h: hashMix(hashMix(hashSeed, 5), uint64(len(v)))})
			leaf = false
		case List:
			elems, tail := flatten(v)
			st = append(st, hashFrame{kids: elems, tail: tail, h: hashMix(hashSeed, 6)})
			leaf = false
		case Map:
			kids := make([]Term, 0, 2*len(v))
			for _, p := range v {
				kids = append(kids, p.Key, p.Value)
			}
			st = append(st, hashFrame{kids: kids, h: hashMix(hashSeed, 9), isMap: true})
			leaf = false
		default:
			h = hashLeaf(v, zerosEqual)
		}
		for {
			if leaf {
				if len(st) == 0 {
					return h
				}
				st[len(st)-1].absorb(h)
			}
			f := &st[len(st)-1]
			if n, ok := f.next(); ok {
				next = n
				break
			}
			h, leaf = f.result(), true
			st = st[:len(st)-1]
		}
	}
}

func hashLeaf(t Term, zerosEqual bool) uint64 {
	h := uint64(hashSeed)
	switch v := t.(type) {
	case int64:
		h = hashMix(hashMix(h, 1), uint64(v))
	case *big.Int:
		if v == nil {
			break
		}
		if v.IsInt64() {
			h = hashMix(hashMix(h, 1), uint64(v.Int64()))
		} else {
			h = hashBytes(hashMix(hashMix(h, 2), uint64(v.Sign()+1)), v.Bytes())
		}
	case float64:
		if zerosEqual && v == 0 {
			v = 0 // -0.0 hashes as 0.0
		}
		h = hashMix(hashMix(h, 3), math.Float64bits(v))
	case Atom:
		h = hashBytes(hashMix(h, 4), []byte(v))
	case Binary, BitBinary:
		data, bits, _ := bitsOf(v)
		h = hashBytes(hashMix(hashMix(h, 8), uint64(bits)), data)
	case Opaque:
		h = hashBytes(hashMix(hashMix(h, 10), uint64(v.Tag)), v.Raw)
	}
	return h
}
