package etf

import (
	"bytes"
	"testing"
)

// FuzzFindMapAtom: whenever FindMapAtom answers, it is DecodePrefix's answer:
// the input decodes, is a map exactly when FindMapAtom says so, and the value
// it returns decodes (alone) to the map's value under the key.
func FuzzFindMapAtom(f *testing.F) {
	for _, v := range loadVectors(f) {
		if len(v.Bytes) <= 1<<12 {
			f.Add(v.Bytes, "a")
		}
	}
	for _, c := range skimCases() {
		f.Add(c.in, c.key)
	}
	f.Fuzz(func(t *testing.T, in []byte, key string) {
		for _, c := range []byte(key) {
			if c >= 0x80 {
				return // FindMapAtom's keys are ASCII
			}
		}
		val, found, isMap, ok := FindMapAtom(in, key)
		if !ok {
			return
		}
		term, _, err := DecodePrefix(in)
		if err != nil {
			t.Fatalf("FindMapAtom answered for %x, which does not decode: %v", in, err)
		}
		m, decodedMap := term.(Map)
		if isMap != decodedMap {
			t.Fatalf("%x: isMap %v, decoded %s", in, isMap, Format(term))
		}
		want, wantFound := m.Get(Atom(key))
		if found != wantFound {
			t.Fatalf("%x: found %v, decoded map %s", in, found, Format(term))
		}
		if !found {
			return
		}
		got, n, err := DecodePrefix(append([]byte{TagVersion}, val...))
		if err != nil || n != len(val)+1 || !Equal(got, want) {
			t.Fatalf("%x: value %x decodes to %v (%d of %d bytes, %v), the map holds %s", in, val, got, n, len(val)+1, err, Format(want))
		}
	})
}

type skimCase struct {
	name      string
	in        []byte
	key       string
	val       []byte // nil: not found
	isMap, ok bool
}

func skimCases() []skimCase {
	enc := func(t Term) []byte {
		b, err := Encode(t)
		if err != nil {
			panic(err)
		}
		return b
	}
	env := Map{
		{Key: Atom("__struct__"), Value: Atom("Elixir.Ankusa.Envelope")},
		{Key: Atom("body"), Value: Binary("{}")},
		{Key: Atom("headers"), Value: List{Elems: []Term{Tuple{Binary("a"), Binary("b")}}}},
		{Key: Atom("id"), Value: Binary("i")},
		{Key: Atom("received_at"), Value: int64(1764496800123)},
		{Key: Atom("score"), Value: 1.5},
		{Key: Atom("tenant_id"), Value: Binary("acme")},
	}
	plain := enc(env)
	nested := enc(Map{{Key: Atom("m"), Value: Map{}}, {Key: Atom("tenant_id"), Value: Binary("x")}})
	dup := []byte{131, 116, 0, 0, 0, 2, 119, 1, 'k', 97, 1, 119, 1, 'k', 97, 2}
	// The same key as ATOM_EXT and SMALL_ATOM_UTF8_EXT: one atom, so a duplicate.
	dupForms := []byte{131, 116, 0, 0, 0, 2, 100, 0, 1, 'k', 97, 1, 119, 1, 'k', 97, 2}
	return []skimCase{
		{"envelope", plain, "tenant_id", []byte{109, 0, 0, 0, 4, 'a', 'c', 'm', 'e'}, true, true},
		{"absent key", plain, "nope", nil, true, true},
		{"trailing bytes", append(append([]byte{}, plain...), 1, 2, 3), "id", []byte{109, 0, 0, 0, 1, 'i'}, true, true},
		{"empty map", []byte{131, 116, 0, 0, 0, 0}, "k", nil, true, true},
		{"not a map", enc(Tuple{Atom("tenant_id")}), "tenant_id", nil, false, false},
		{"nested map", nested, "tenant_id", nil, false, false},
		{"duplicate key", dup, "k", nil, false, false},
		{"duplicate key, two atom forms", dupForms, "k", nil, false, false},
		{"truncated", plain[:len(plain)-2], "tenant_id", nil, false, false},
		{"compressed", []byte{131, 80, 0, 0, 0, 1, 0}, "k", nil, false, false},
		{"non-finite float", []byte{131, 116, 0, 0, 0, 1, 119, 1, 'f', 70, 0x7f, 0xf0, 0, 0, 0, 0, 0, 0}, "f", nil, false, false},
		{"bignum sign 2 (negative)", []byte{131, 116, 0, 0, 0, 1, 119, 1, 'b', 110, 1, 2, 1}, "b", []byte{110, 1, 2, 1}, true, true},
		{"improper list", []byte{131, 116, 0, 0, 0, 1, 119, 1, 'l', 108, 0, 0, 0, 1, 97, 1, 97, 2}, "l", nil, false, false},
		{"latin1 atom value", []byte{131, 116, 0, 0, 0, 1, 119, 1, 'a', 115, 1, 0xe9}, "a", nil, false, false},
		{"forged map count", []byte{131, 116, 0, 0, 0, 9, 119, 1, 'a', 97, 1}, "a", nil, false, false},
	}
}

func TestFindMapAtom(t *testing.T) {
	for _, c := range skimCases() {
		t.Run(c.name, func(t *testing.T) {
			val, found, isMap, ok := FindMapAtom(c.in, c.key)
			if ok != c.ok || (ok && (isMap != c.isMap || found != (c.val != nil) || !bytes.Equal(val, c.val))) {
				t.Fatalf("FindMapAtom = %x, found %v, map %v, ok %v; want %x, map %v, ok %v", val, found, isMap, ok, c.val, c.isMap, c.ok)
			}
			if _, _, err := DecodePrefix(c.in); c.ok && err != nil {
				t.Fatalf("answered, but the decoder refuses it: %v", err)
			}
		})
	}
}

// FindMapAtom's recursion is bounded (maxSkimDepth), the decoder's nesting is
// not: below the bound the fast path answers as the decoder does, from the
// bound on it must give up, for tuples and lists alike. A skimmer without
// the bound would answer at 100000; one that answered at the bound would
// disagree with the decoder here.
func TestFindMapAtomDepth(t *testing.T) {
	wrap := map[string]func(int) []byte{
		"tuples": func(n int) []byte { return append(bytes.Repeat([]byte{104, 1}, n), 106) },
		"lists": func(n int) []byte {
			return append(append(bytes.Repeat([]byte{108, 0, 0, 0, 1}, n), 97, 1), bytes.Repeat([]byte{106}, n)...)
		},
		// A skimmer that answered at the bound without reading the list
		// would end the map early, right when the list is its last value.
		"tuples around a list": func(n int) []byte {
			return append(bytes.Repeat([]byte{104, 1}, n-1), 108, 0, 0, 0, 1, 97, 1, 106)
		},
	}
	tenant := cat([]byte{119, 9}, []byte("tenant_id"), []byte{109, 0, 0, 0, 1, 'x'})
	for name, w := range wrap {
		for _, n := range []int{1, maxSkimDepth - 2, maxSkimDepth - 1, maxSkimDepth, maxSkimDepth + 1, 100000} {
			deep := cat([]byte{119, 1, 'p'}, w(n))
			for order, in := range [][]byte{
				cat([]byte{131, 116}, u32(2), deep, tenant),
				cat([]byte{131, 116}, u32(2), tenant, deep),
			} {
				m, err := Decode(in)
				if err != nil {
					t.Fatalf("%s %d deep: the decoder refuses it: %v", name, n, err)
				}
				for _, key := range []string{"tenant_id", "p"} {
					val, found, isMap, ok := FindMapAtom(in, key)
					if want := n < maxSkimDepth; ok != want {
						t.Errorf("%s %d deep, order %d, key %s: ok %v, want %v", name, n, order, key, ok, want)
					}
					if !ok {
						continue
					}
					v, _ := m.(Map).Get(Atom(key))
					got, derr := Decode(append([]byte{131}, val...))
					if !isMap || !found || derr != nil || !Equal(got, v) {
						t.Errorf("%s %d deep, key %s: FindMapAtom %.40x, %v, %v; decoded %.80s", name, n, key, val, found, isMap, Format(v))
					}
				}
			}
		}
	}
}
