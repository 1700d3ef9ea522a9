package etf

import "math/big"

// Term is any decoded Erlang term. The concrete types are the ones below;
// integers decode to int64 when they fit and to *big.Int otherwise, floats to
// float64. Decoding never produces any other Go type.
type Term any

// Atom is an atom's name, whichever of the four atom encodings carried it.
type Atom string

// Common atoms.
const (
	AtomNil   Atom = "nil"
	AtomTrue  Atom = "true"
	AtomFalse Atom = "false"
)

// Tuple is a tuple of any arity (tags 104 and 105).
type Tuple []Term

// List is a proper or improper list (tags 106, 107, 108). Tail is nil for a
// proper list; the empty proper list (NIL_EXT) is List{}. A STRING_EXT (107)
// decodes to a List of int64; the encoder picks 107 itself for a proper list of
// 1..65535 integers in 0..255, as term_to_binary does, so canonical input
// re-encodes to the same bytes.
type List struct {
	Elems []Term
	Tail  Term
}

// Binary is a binary (tag 109).
type Binary []byte

// BitBinary is a bitstring whose last byte holds Bits significant bits (tag 77).
type BitBinary struct {
	Data []byte
	Bits uint8
}

// MapPair is one association of a Map.
type MapPair struct {
	Key, Value Term
}

// Map keeps its pairs in the order they were encoded, so that a decoded map
// re-encodes to the same bytes; lookups do not depend on that order.
type Map []MapPair

// Opaque is a pid, reference, port or fun, kept as its raw encoding (tag byte
// included) because the node accepts them in envelopes but no tool interprets
// or writes them.
type Opaque struct {
	Tag byte
	Raw []byte
}

// BigInt returns v as an *big.Int, for callers that want one integer type.
func BigInt(t Term) (*big.Int, bool) {
	switch v := t.(type) {
	case int64:
		return big.NewInt(v), true
	case *big.Int:
		return v, true
	}
	return nil, false
}

// Get returns the value stored under key (compared by value, not by position).
func (m Map) Get(key Term) (Term, bool) {
	for _, p := range m {
		if Equal(p.Key, key) {
			return p.Value, true
		}
	}
	return nil, false
}
